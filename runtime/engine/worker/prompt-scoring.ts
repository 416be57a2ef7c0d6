// Scores a prompt as its tokens are computed (GenerateRequest.promptLogprobs): the logits at
// prompt position p give token p + 1's logprob under the model and the most likely tokens there.
// The scheduler asks for those rows (StepEntry.promptRows); this turns them into the request's
// list, one entry per prompt token, and says when the list is whole.
import type { Vocabulary } from '../../backend/vocabulary.js';
import { ModelLogprobs } from '../../sampling/model-logprobs.js';
import type { PromptTokenLogprob } from '../protocol.js';
import type { StepEntry } from './scheduler.js';
import type { RequestState } from './sequence.js';

export class PromptScoring {
  private readonly logprobs: ModelLogprobs;

  constructor(private readonly vocabulary: Vocabulary, vocabSize: number) {
    this.logprobs = new ModelLogprobs(vocabSize);
  }

  /** The list a request that scores its prompt starts with: its first token, which nothing comes before. */
  start(prompt: ArrayLike<number>): PromptTokenLogprob[] {
    return [{ token: prompt[0]!, logprob: null, rank: null, bytes: Array.from(this.vocabulary.piece(prompt[0]!)), top: [] }];
  }

  /**
   * Scores the entry's prompt rows (`row(k)`: the k-th of them) that no other choice scored
   * first. Returns whether this completed the request's list.
   */
  score(entry: StepEntry, row: (k: number) => Float32Array): boolean {
    const state: RequestState = entry.sequence.request;
    const list = state.promptLogprobs!;
    const tokens = entry.sequence.tokens;
    const top = state.request.promptTopLogprobs ?? entry.sequence.sampler.params.topLogprobs;
    // The rows are the entry's last `logits` positions; the prompt rows come first among them.
    const first = entry.start + entry.count + entry.draft.length - entry.logits;
    for (let k = 0; k < entry.promptRows; k++) {
      const position = first + k;
      // Another choice's entry in the same step may have scored it already.
      if (position !== list.length - 1) continue;
      const token = tokens[position + 1]!;
      const scored = this.logprobs.at(row(k), token, top);
      list.push({
        token,
        logprob: scored.logprob,
        rank: scored.rank,
        bytes: Array.from(this.vocabulary.piece(token)),
        top: scored.top.map((entry) => ({ token: entry.token, logprob: entry.logprob, bytes: Array.from(this.vocabulary.piece(entry.token)) })),
      });
    }
    return list.length === state.promptLength;
  }
}
