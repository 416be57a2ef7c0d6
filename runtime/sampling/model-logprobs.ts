// The model's own log-probabilities at one row of logits: the log-softmax of the raw logits,
// with no bias, penalty or mask, as a prompt is scored (GenerateRequest.promptLogprobs). Written
// as TokenSampler writes a chosen token's (the same float64 copy, exp and expression), so that a
// prompt token and the same token generated at that place without bias, penalty or mask agree
// to the bit.
import { sumExp } from './fast-exp.js';
import { MAX_TOP_LOGPROBS } from './sampling-params.js';
import { SamplingError } from './sampling-error.js';
import type { TopLogprob } from './token-sampler.js';
import { selectTopTokens } from './top-tokens.js';

export class ModelLogprobs {
  private readonly w: Float64Array;
  private readonly topIds = new Int32Array(MAX_TOP_LOGPROBS);
  private readonly topLogits = new Float64Array(MAX_TOP_LOGPROBS);

  constructor(private readonly vocabSize: number) {
    this.w = new Float64Array(vocabSize);
  }

  /**
   * `token`'s logprob in the row and its rank (1 + the tokens more likely there, as vLLM ranks),
   * and the `top` (at most MAX_TOP_LOGPROBS) most likely tokens, descending, ties to the lower id.
   */
  at(logits: Float32Array, token: number, top: number): { logprob: number; rank: number; top: TopLogprob[] } {
    const size = this.vocabSize;
    if (logits.length !== size) throw new RangeError(`expected ${size} logits, got ${logits.length}`);
    const w = this.w;
    w.set(logits);
    let max = -Infinity;
    for (let i = 0; i < size; i++) if (w[i]! > max) max = w[i]!;
    const logNormaliser = Math.log(sumExp(w, size, max));
    // A NaN logit makes the sum NaN (and never wins the max).
    if (!(logNormaliser === logNormaliser) || max === -Infinity) throw new SamplingError('the logits contain NaN or allow no token');
    const own = w[token]!;
    let rank = 1;
    for (let i = 0; i < size; i++) if (w[i]! > own) rank++;
    const count = selectTopTokens(w, size, Math.min(Math.max(0, Math.floor(top)), MAX_TOP_LOGPROBS), this.topIds, this.topLogits);
    const entries: TopLogprob[] = new Array(count);
    for (let j = 0; j < count; j++) entries[j] = { token: this.topIds[j]!, logprob: this.topLogits[j]! - max - logNormaliser };
    return { logprob: own - max - logNormaliser, rank, top: entries };
  }
}
