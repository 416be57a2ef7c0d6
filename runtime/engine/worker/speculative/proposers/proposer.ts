// What a drafter that works before the step is planned offers (a draft model, Medusa heads):
// draft tokens for a batch of sequences at once, asynchronously, since it runs on the device.
import type { KvOps } from '../../kv-manager.js';
import type { StepEntry } from '../../scheduler.js';
import type { Sequence } from '../../sequence.js';

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
  /**
   * An EAGLE-3 draft follows every target step: called once the step's tokens are sampled and
   * verified, before the next step; `accepted[i]` is the draft tokens of entry i accepted.
   */
  observe?(entries: readonly StepEntry[], accepted: readonly number[]): Promise<void>;
  /** Cache operations to repeat on the proposer's own cache whenever the engine does them on the target's (EAGLE-3). */
  readonly mirror?: KvOps;
}
