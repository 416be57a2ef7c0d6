// What a drafter that works before the step is planned offers (a draft model, Medusa heads):
// draft tokens for a batch of sequences at once, asynchronously, since it runs on the device.
import type { Sequence } from '../sequence.js';

export interface DraftRequest {
  sequence: Sequence;
  /** Draft tokens wanted. */
  count: number;
}

export interface DraftProposer {
  /** Draft tokens for each request, in order; fewer (or none) where it cannot propose them. */
  propose(requests: readonly DraftRequest[]): Promise<number[][]>;
  /** Most tokens it proposes for one sequence in one step. */
  readonly maxDraft?: number;
  /** Medusa heads read the target's last hidden state of each sequence: the engine hands it over after each step. */
  readonly wantsHiddenStates?: boolean;
  /** The hidden state from which the sequence's last token was sampled (a view: copy it). */
  keepHiddenState?(sequence: Sequence, hidden: Float32Array): void;
}
