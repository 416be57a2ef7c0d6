// A draft model's greedy choice under the request's grammar, shared by the drafters that run a
// model of their own (small_draft, eagle): the first choice takes the target's mask for the
// position (which it needs anyway), later ones advance the sequence's matcher past each draft
// token, and the drafter rolls the matcher back once the draft is made.
import { maskedArgmax, plainArgmax, SamplingError } from '../../../../sampling/index.js';
import type { Sequence } from '../../sequence.js';

export interface GrammarDraft {
  sequence: Sequence;
  /** Tokens the grammar matcher accepted for this draft, rolled back at the end. */
  accepted: number;
  mask: Uint32Array | undefined;
}

/** One sequence's draft while a drafter with a model of its own is making it. */
export interface ModelDraft extends GrammarDraft {
  /** Most draft tokens wanted. */
  count: number;
  draft: number[];
  /** Logit row of the sequence in the drafter's last decode. */
  row: number;
}

export function startModelDraft(sequence: Sequence, count: number): ModelDraft {
  return { sequence, count, draft: [], row: -1, accepted: 0, mask: undefined };
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

/**
 * Appends each draft's chosen token (`chosen[i]` for `active[i]`; -1 ends that draft) and
 * returns the drafts that go on: not yet `count` long, no end token, the grammar still open.
 * `feed` puts each one's new token into the drafter's next batch.
 */
export function extendDrafts(active: readonly ModelDraft[], chosen: readonly number[], isEnd: (token: number) => boolean, feed: (d: ModelDraft, index: number) => void): ModelDraft[] {
  const next: ModelDraft[] = [];
  active.forEach((d, i) => {
    const token = chosen[i]!;
    if (token < 0) return;
    d.draft.push(token);
    if (d.draft.length >= d.count || isEnd(token) || !advanceDraftGrammar(d, token)) return;
    feed(d, i);
    next.push(d);
  });
  return next;
}

/** Undoes what the draft did to the sequence's matcher. */
export function rollbackDraftGrammar(d: GrammarDraft): void {
  if (d.accepted > 0) d.sequence.grammar!.matcher.rollback(d.accepted);
  d.accepted = 0;
}
