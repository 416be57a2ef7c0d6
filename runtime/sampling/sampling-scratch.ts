// Working memory for sampling, sized to the vocabulary once and shared by every TokenSampler on
// a thread. Sampling is synchronous and sequential, so one set of buffers serves all sequences
// and the hot path never allocates vocabulary-sized arrays.
// Usage: `const scratch = new SamplingScratch(vocab.size);` once per engine worker.
import { MAX_TOP_LOGPROBS } from './sampling-params.js';

/** top_p's buckets (nucleus.ts): masses down to 2^-64 of the top one; anything smaller shares the last. */
export const NUCLEUS_BUCKETS = 64 * 16 + 1;

export class SamplingScratch {
  /** The largest vocabulary these buffers can serve. */
  readonly capacity: number;
  /** Processed logits (bias, penalties, mask applied); float64 so penalties do not round. */
  readonly logits: Float64Array;
  /** Unnormalised probability of each token at the request's temperature, by id. */
  readonly mass: Float64Array;
  /** The same memory as 32-bit words, for reading each mass's exponent bits. */
  readonly massWords: Uint32Array;
  /** The tokens of top_p's boundary bucket, reordered in place by the selection. */
  readonly tiedMass: Float64Array;
  readonly tiedIds: Int32Array;
  /** typical_p's ranking of the survivors (radix-order.ts), and the sort's other buffer. */
  readonly order: Uint32Array;
  readonly orderSwap: Uint32Array;
  /** One bit per token: in the nucleus. */
  readonly keptBits: Uint32Array;
  /** Histogram of token mass for top_p; all zero between samples. */
  readonly bucketMass = new Float64Array(NUCLEUS_BUCKETS);
  /** The best tokens by processed logit, for `top_logprobs`. */
  readonly topIds = new Int32Array(MAX_TOP_LOGPROBS);
  readonly topLogits = new Float64Array(MAX_TOP_LOGPROBS);

  constructor(vocabSize: number) {
    if (!Number.isSafeInteger(vocabSize) || vocabSize <= 0) {
      throw new RangeError(`vocabulary size must be a positive integer, got ${vocabSize}`);
    }
    this.capacity = vocabSize;
    this.logits = new Float64Array(vocabSize);
    this.mass = new Float64Array(vocabSize);
    this.massWords = new Uint32Array(this.mass.buffer);
    this.tiedMass = new Float64Array(vocabSize);
    this.tiedIds = new Int32Array(vocabSize);
    this.keptBits = new Uint32Array((vocabSize + 31) >>> 5);
    this.order = new Uint32Array(vocabSize);
    this.orderSwap = new Uint32Array(vocabSize);
  }
}
