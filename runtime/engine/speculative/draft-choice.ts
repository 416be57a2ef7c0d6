// A draft model's greedy choice under the request's grammar, shared by the drafters that run a
// model of their own (small_draft, eagle): the first choice takes the target's mask for the
// position (which it needs anyway), later ones advance the sequence's matcher past each draft
// token, and the drafter rolls the matcher back once the draft is made.
import { maskedArgmax, plainArgmax, SamplingError } from '../../sampling/index.js';
import type { Sequence } from '../sequence.js';

export interface GrammarDraft {
  sequence: Sequence;
  /** Tokens the grammar matcher accepted for this draft, rolled back at the end. */
  accepted: number;
  mask: Uint32Array | undefined;
}

/**
 * The greedy choice from a draft's logits, within the grammar's mask; -1 where the draft has
 * none (NaN logits, or nothing it can predict that the grammar allows: a draft over a smaller
 * vocabulary, EAGLE-3's d2t, gives the others −∞). A draft's failure only ends its draft.
 */
export function chooseDraftToken(logits: Float32Array, d: GrammarDraft): number {
  const grammar = d.sequence.grammar;
  try {
    if (!grammar) return plainArgmax(logits);
    if (!d.mask) {
      grammar.refresh(); // the target's mask for this position, which it needs anyway
      d.mask = Uint32Array.from(grammar.mask);
    }
    return maskedArgmax(logits, d.mask);
  } catch (error) {
    if (error instanceof SamplingError) return -1;
    throw error;
  }
}

/** Advances the sequence's matcher past a draft token and prepares the next mask; false when the grammar ends. */
export function advanceDraftGrammar(d: GrammarDraft, token: number): boolean {
  const grammar = d.sequence.grammar;
  if (!grammar) return true;
  if (!grammar.matcher.acceptToken(token)) return false;
  d.accepted++;
  if (grammar.matcher.isTerminated()) return false;
  grammar.matcher.fillNextTokenBitmask(d.mask!);
  return true;
}

/** Undoes what the draft did to the sequence's matcher. */
export function rollbackDraftGrammar(d: GrammarDraft): void {
  if (d.accepted > 0) d.sequence.grammar!.matcher.rollback(d.accepted);
  d.accepted = 0;
}
