// The coordinator of speculative decoding: asks the proposers (proposers/) for draft tokens for a
// sequence about to decode, and learns from what was accepted.
// Under a grammar, the tokens it forces come first (jump-forward), spelt as the model spelt
// the same forced text before (forced-spellings.ts) or else as the tokenizer splits it. Then a continuation: the
// n-gram lookup's (ngram: of the text extended by the forced tokens, cut to what the grammar
// accepts), or the draft model's (small_draft: prepared before the step, where nothing is
// forced). Each source keeps its own acceptance estimate (draft-policy.ts), so forced tokens
// the model splits differently do not silence continuations that work, nor the other way
// round; the cost of a draft token is learnt from the steps (draft-cost.ts). A request's
// predicted output (OpenAI's Predicted Outputs) is a source of its own, before the others,
// where the output follows it (proposers/prediction-cursor.ts).
import { nowMicros } from '../../clock.js';
import type { StepPlan } from '../scheduler.js';
import type { Sequence } from '../sequence.js';
import { DraftCost, type RelativeCost } from './draft-cost.js';
import { AcceptanceRate, DraftPolicy, MAX_DRAFT, ProbeMemory } from './draft-policy.js';
import { ForcedSpellings, SpellingWatch } from './forced-spellings.js';
import { admissiblePrefix, forcedText } from './grammar-drafts.js';
import { lookupContinuation } from './proposers/ngram-lookup.js';
import { PredictionCursor } from './proposers/prediction-cursor.js';
import type { DraftProposer } from './proposers/proposer.js';

export interface SpeculationOptions {
  /** spec_draft_length: a fixed number of draft tokens per step, or 0 to adapt per sequence. */
  draftLength: number;
  /** The model's tokenizer without special-token parsing, for forced text. */
  tokenize: (text: string) => ArrayLike<number>;
  /** A token's bytes in the output, to follow how the model spells forced text. */
  piece: (token: number) => Uint8Array;
  /** small_draft's draft model or medusa's heads, continuing the drafts; n-gram lookup without one. */
  proposer?: DraftProposer;
}

interface DraftState {
  /** Forced text as the tokenizer splits it, and as the model spelt it before: two sources,
   * since the first may be rejected at once (a model spelling keys in fragments) where the
   * second is accepted whole. */
  forced: DraftPolicy;
  spelt: DraftPolicy;
  continuation: DraftPolicy;
  /** The request's prediction, when it has one: where the output is in it, and how often its tokens are accepted. */
  prediction: { cursor: PredictionCursor; policy: DraftPolicy } | undefined;
  /** Split of the last proposal, for record(). */
  lastForced: number;
  lastSpelt: boolean;
  lastContinuation: number;
  /** Whether the last continuation came from the prediction. */
  lastPredicted: boolean;
  /** Forced texts met, whose spelling is still being written. */
  spellingWatch: SpellingWatch;
}

/**
 * Prior acceptance of a forced token (a model usually writes what the grammar forces as the
 * tokenizer splits it) and of a continuation token, before any verification.
 */
const FORCED_PRIOR = 0.9;
const CONTINUATION_PRIOR = 0.5;
/**
 * A prediction is given because most of the answer is expected to repeat it. Each sequence's
 * estimate starts here, or at prompt lookup's when that is higher (the lookup often finds the
 * same text in the prompt): an audit saw a prior of 0.8 lose every step to the lookup's learnt
 * ~0.9 on a CPU, where short drafts do not pay.
 */
const PREDICTION_PRIOR = 0.9;

/** An entry of the step whose logits were sampled: its index in the plan, and its drafts' fate. */
export interface SettledEntry {
  index: number;
  sequence: Sequence;
  /** Draft tokens it carried, and how many of them the target accepted. */
  drafted: number;
  accepted: number;
  /** Whether the sequence finished with this step. */
  finished: boolean;
}

/** What the engine's step tells speculation once its tokens are committed. */
export interface FinishedStep {
  plan: StepPlan;
  /** By entry of the plan: the draft tokens accepted (0 for entries not sampled). */
  accepted: readonly number[];
  settled: readonly SettledEntry[];
  /** The hidden state entry `index` sampled from after `accepted` drafts, when the runner keeps them. */
  hiddenState(index: number, accepted: number): Float32Array | undefined;
  /** When the step was planned (µs): drafting is judged by the whole step, proposing and verifying included. */
  plannedAt: number;
}

export class Speculation {
  private readonly states = new WeakMap<Sequence, DraftState>();
  private readonly cost = new DraftCost();
  /** Each source's acceptance across sequences: where a new sequence's estimate starts. */
  private readonly forcedAcceptance = new AcceptanceRate(FORCED_PRIOR);
  private readonly speltAcceptance = new AcceptanceRate(FORCED_PRIOR);
  private readonly continuationAcceptance = new AcceptanceRate(CONTINUATION_PRIOR);
  /** Each source's probe wait across sequences. */
  private readonly forcedProbes = new ProbeMemory();
  private readonly speltProbes = new ProbeMemory();
  private readonly continuationProbes = new ProbeMemory();
  /** How the model spelt forced texts, across sequences. */
  private readonly spellings = new ForcedSpellings();
  /** The draft model's proposals for this step, or the prediction's where it has tokens to draft. */
  private prepared = new Map<Sequence, number[]>();
  private readonly preparedFromPrediction = new Set<Sequence>();
  proposed = 0;
  accepted = 0;
  /** By draft position: verifications that proposed a token there, and that accepted it. */
  readonly positions = { proposed: [] as number[], accepted: [] as number[] };

  constructor(private readonly options: SpeculationOptions) {}

  // The engine's step calls speculation at three moments, and nowhere else: beforeStep, then
  // propose (through the scheduler, for each sequence it plans), then afterStep.

  /**
   * Before the step is planned: a proposer that runs a model (small_draft, Medusa, EAGLE-3)
   * drafts for the sequences about to decode; `decoding` lists them, asked only then.
   */
  async beforeStep(decoding: () => readonly Sequence[]): Promise<void> {
    if (this.options.proposer) await this.prepare(decoding());
  }

  /**
   * After the step's tokens are committed: learns what was accepted, hands a hidden-state
   * proposer its states, lets the proposer follow the step, and learns a draft token's cost.
   */
  async afterStep(step: FinishedStep): Promise<void> {
    const proposer = this.options.proposer;
    for (const entry of step.settled) {
      if (entry.drafted > 0) this.record(entry.sequence, entry.accepted);
      if (proposer?.keepHiddenState && !entry.finished) {
        const hidden = step.hiddenState(entry.index, entry.accepted);
        if (hidden) proposer.keepHiddenState(entry.sequence, hidden);
      }
    }
    if (proposer?.observe) await proposer.observe(step.plan.entries, step.accepted);
    const { decoding, tokens, drafted } = step.plan;
    this.cost.observe(decoding, tokens - decoding - drafted, drafted, nowMicros() - step.plannedAt);
  }

  /**
   * Runs the draft model for the sequences about to decode (those with one token to compute
   * and nothing forced), as many tokens each as its policy wants; a sequence whose prediction
   * drafts this step takes those tokens instead.
   */
  private async prepare(sequences: readonly Sequence[]): Promise<void> {
    this.prepared.clear();
    this.preparedFromPrediction.clear();
    const model = this.options.proposer;
    if (!model) return;
    const relativeCost = this.cost.relative(Math.max(1, sequences.length));
    const requests = [];
    for (const sequence of sequences) {
      if (this.hasForcedText(sequence)) continue;
      const state = this.stateOf(sequence);
      const predicted = this.predictionDraft(sequence, state, Math.min(MAX_DRAFT, sequence.draftRoom), relativeCost);
      if (predicted.length > 0) {
        this.prepared.set(sequence, predicted);
        this.preparedFromPrediction.add(sequence);
        continue;
      }
      const most = Math.min(model.maxDraft ?? MAX_DRAFT, MAX_DRAFT, sequence.draftRoom);
      const count = most > 0 ? state.continuation.next(most, relativeCost) : 0;
      if (count > 0) requests.push({ sequence, count });
    }
    if (requests.length === 0) return;
    const start = nowMicros();
    const drafts = await model.propose(requests);
    this.cost.observeProposer(nowMicros() - start, drafts.reduce((sum, draft) => sum + draft.length, 0));
    requests.forEach(({ sequence }, i) => this.prepared.set(sequence, drafts[i]!));
  }

  /** Draft tokens to follow the sequence's last token, at most `most`, in a step decoding `width` sequences. */
  propose(sequence: Sequence, most: number, width: number): number[] {
    const state = this.stateOf(sequence);
    state.lastForced = 0;
    state.lastSpelt = false;
    state.lastContinuation = 0;
    state.lastPredicted = false;
    if (most <= 0) return [];
    const relativeCost = this.cost.relative(width);
    const matcher = sequence.grammar?.matcher;
    let forced: number[] = [];
    if (matcher) {
      state.spellingWatch.update(sequence.tokens, this.spellings, this.options.piece);
      const text = forcedText(matcher);
      if (text !== '') {
        state.spellingWatch.watch(sequence.tokens.length, text);
        const spelling = this.spellings.recall(text);
        state.lastSpelt = spelling !== undefined;
        const tokens = spelling ?? Array.from(this.options.tokenize(text));
        const count = (state.lastSpelt ? state.spelt : state.forced).next(Math.min(most, tokens.length), relativeCost);
        forced = admissiblePrefix(matcher, tokens.slice(0, count));
      }
    }
    let continuation: number[] = [];
    if (this.options.proposer) {
      // Drafted before the step (prepare), from the prediction or the draft model; none after forced text.
      if (forced.length === 0) continuation = (this.prepared.get(sequence) ?? []).slice(0, most);
      state.lastPredicted = continuation.length > 0 && this.preparedFromPrediction.has(sequence);
    } else {
      if (forced.length === 0) continuation = this.predictionDraft(sequence, state, most, relativeCost);
      state.lastPredicted = continuation.length > 0;
      if (!state.lastPredicted) {
        const room = state.continuation.next(most - forced.length, relativeCost);
        const context = forced.length > 0 ? sequence.tokens.concat(forced) : sequence.tokens;
        continuation = room > 0 ? lookupContinuation(context, room) : [];
        if (matcher && continuation.length > 0) continuation = admissibleAfter(matcher, forced, continuation);
      }
    }
    state.lastForced = forced.length;
    state.lastContinuation = continuation.length;
    return forced.length === 0 ? continuation : forced.concat(continuation);
  }

  /** What the target made of the sequence's last draft. */
  private record(sequence: Sequence, accepted: number): void {
    const state = this.stateOf(sequence);
    const forcedAccepted = Math.min(accepted, state.lastForced);
    const continuationAccepted = Math.max(0, accepted - state.lastForced);
    (state.lastSpelt ? state.spelt : state.forced).record(state.lastForced, forcedAccepted);
    (state.lastSpelt ? this.speltAcceptance : this.forcedAcceptance).record(state.lastForced, forcedAccepted);
    if (state.lastPredicted) {
      state.prediction!.policy.record(state.lastContinuation, continuationAccepted);
      sequence.predictionAccepted += continuationAccepted;
      sequence.predictionRejected += state.lastContinuation - continuationAccepted;
    } else {
      state.continuation.record(state.lastContinuation, continuationAccepted);
      this.continuationAcceptance.record(state.lastContinuation, continuationAccepted);
    }
    const proposed = state.lastForced + state.lastContinuation;
    this.proposed += proposed;
    this.accepted += accepted;
    for (let k = 0; k < proposed; k++) {
      this.positions.proposed[k] = (this.positions.proposed[k] ?? 0) + 1;
      if (k < accepted) this.positions.accepted[k] = (this.positions.accepted[k] ?? 0) + 1;
    }
  }

  /**
   * The prediction's next tokens where the output follows it, as many as its policy wants and
   * the grammar accepts; none when the request has no prediction or the output has left it.
   */
  private predictionDraft(sequence: Sequence, state: DraftState, most: number, relativeCost: RelativeCost): number[] {
    if (!state.prediction) return [];
    const expected = state.prediction.cursor.draft(sequence.tokens, sequence.promptLength, most);
    const count = expected.length > 0 ? state.prediction.policy.next(expected.length, relativeCost) : 0;
    const draft = expected.slice(0, count);
    const matcher = sequence.grammar?.matcher;
    return matcher && draft.length > 0 ? admissiblePrefix(matcher, draft) : draft;
  }

  /** Whether the grammar forces text at the sequence's next position (then forced tokens come first). */
  private hasForcedText(sequence: Sequence): boolean {
    const matcher = sequence.grammar?.matcher;
    return matcher !== undefined && !matcher.isTerminated() && matcher.findJumpForwardBytes().length > 0;
  }

  private stateOf(sequence: Sequence): DraftState {
    let state = this.states.get(sequence);
    if (!state) {
      const fixed = this.options.draftLength;
      state = {
        forced: new DraftPolicy(fixed, this.forcedAcceptance.rate, this.forcedProbes),
        spelt: new DraftPolicy(fixed, this.speltAcceptance.rate, this.speltProbes),
        continuation: new DraftPolicy(fixed, this.continuationAcceptance.rate, this.continuationProbes),
        // Each request's prediction is its own: one client's poor predictions do not lower another's trust.
        prediction: sequence.request.predicted?.length
          ? { cursor: new PredictionCursor(sequence.request.predicted), policy: new DraftPolicy(fixed, Math.max(PREDICTION_PRIOR, this.continuationAcceptance.rate)) }
          : undefined,
        lastForced: 0,
        lastSpelt: false,
        lastContinuation: 0,
        lastPredicted: false,
        spellingWatch: new SpellingWatch(),
      };
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
