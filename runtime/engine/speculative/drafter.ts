// Proposes draft tokens for a sequence about to decode, and learns from what was accepted.
// Under a grammar, the tokens it forces come first (jump-forward), then the n-gram lookup's
// continuation of the text so extended; every draft is cut to what the grammar accepts.
// Each source keeps its own acceptance estimate (draft-policy.ts), so forced tokens the model
// splits differently do not silence lookups that work, nor the other way round; the cost of
// a draft token is learnt from the steps (draft-cost.ts).
import type { Sequence } from '../sequence.js';
import { DraftCost } from './draft-cost.js';
import { DraftPolicy } from './draft-policy.js';
import { admissiblePrefix, forcedTokens } from './grammar-drafts.js';
import { lookupContinuation } from './ngram-lookup.js';

export interface DrafterOptions {
  /** spec_draft_length: a fixed number of draft tokens per step, or 0 to adapt per sequence. */
  draftLength: number;
  /** The model's tokenizer without special-token parsing, for forced text. */
  tokenize: (text: string) => ArrayLike<number>;
}

interface DraftState {
  forced: DraftPolicy;
  lookup: DraftPolicy;
  /** Split of the last proposal, for record(). */
  lastForced: number;
  lastLookup: number;
}

/** Prior acceptance of a forced token (the model nearly always writes what the grammar forces) and of a looked-up one. */
const FORCED_PRIOR = 0.9;
const LOOKUP_PRIOR = 0.5;

export class Drafter {
  private readonly states = new WeakMap<Sequence, DraftState>();
  private readonly cost = new DraftCost();
  proposed = 0;
  accepted = 0;

  constructor(private readonly options: DrafterOptions) {}

  /** Draft tokens to follow the sequence's last token, at most `most`. */
  propose(sequence: Sequence, most: number): number[] {
    const state = this.stateOf(sequence);
    state.lastForced = 0;
    state.lastLookup = 0;
    if (most <= 0) return [];
    const relativeCost = this.cost.relative;
    const matcher = sequence.grammar?.matcher;
    let forced: number[] = [];
    if (matcher) forced = forcedTokens(matcher, this.options.tokenize, state.forced.next(most, relativeCost));
    let lookup: number[] = [];
    const room = state.lookup.next(most - forced.length, relativeCost);
    if (room > 0) {
      const context = forced.length > 0 ? sequence.tokens.concat(forced) : sequence.tokens;
      lookup = lookupContinuation(context, room);
      if (matcher && lookup.length > 0) lookup = admissibleAfter(matcher, forced, lookup);
    }
    state.lastForced = forced.length;
    state.lastLookup = lookup.length;
    return forced.length === 0 ? lookup : forced.concat(lookup);
  }

  /** Learns a draft token's cost from a finished step. */
  observeStep(decoding: number, promptTokens: number, drafted: number, micros: number): void {
    this.cost.observe(decoding, promptTokens, drafted, micros);
  }

  /** What the target made of the sequence's last draft. */
  record(sequence: Sequence, accepted: number): void {
    const state = this.stateOf(sequence);
    state.forced.record(state.lastForced, Math.min(accepted, state.lastForced));
    state.lookup.record(state.lastLookup, Math.max(0, accepted - state.lastForced));
    this.proposed += state.lastForced + state.lastLookup;
    this.accepted += accepted;
  }

  private stateOf(sequence: Sequence): DraftState {
    let state = this.states.get(sequence);
    if (!state) {
      const fixed = this.options.draftLength;
      state = { forced: new DraftPolicy(fixed, FORCED_PRIOR), lookup: new DraftPolicy(fixed, LOOKUP_PRIOR), lastForced: 0, lastLookup: 0 };
      this.states.set(sequence, state);
    }
    return state;
  }
}

/** The part of `draft` the grammar accepts once `before` (already admitted) is in. */
function admissibleAfter(matcher: NonNullable<Sequence['grammar']>['matcher'], before: readonly number[], draft: readonly number[]): number[] {
  for (const token of before) matcher.acceptToken(token);
  const admitted = admissiblePrefix(matcher, draft);
  matcher.rollback(before.length);
  return admitted;
}
