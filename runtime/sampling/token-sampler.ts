// Turns one sequence's logits into its next token, in OpenAI's documented order, with the stages
// local servers add (each off unless the request sets it) in llama-server's order:
//   logit_bias → repetition penalty → frequency/presence penalties → DRY → grammar mask
//   → (logprobs) → temperature → top_n_sigma → top_k → typical_p → top_p → min_p → XTC
//   → a draw from the sequence's own SeededRng.
// Every truncation stage sees the distribution at the request's temperature, as top_p always did
// (vLLM's convention; llama-server applies temperature last), and at temperature 0 the choice is
// the argmax of the processed logits whatever they would keep.
// Usage (one sampler per sequence, one scratch per thread):
//   const sampler = new TokenSampler(params, vocabSize, new SeededRng(seed, choice), scratch, { prompt });
//   const { token, logprob } = sampler.sample(logitsView, grammarBitmask);
//   sampler.accept(token);
//
// Reported log-probabilities are the log-softmax of the processed logits (after bias, penalties
// and mask, before temperature and top_p): they describe the model as steered by the request,
// not the sampling distribution, and so do not change with temperature.
//
// The input logits are never written: they are a view of llama.cpp's buffer and may be shared by
// the n choices of one request. All work happens in the shared SamplingScratch.
import { MAX_TOP_LOGPROBS, type SamplingParams } from './sampling-params.js';
import type { SamplingScratch } from './sampling-scratch.js';
import type { SeededRng } from './seeded-rng.js';
import { NO_TOKEN_ALLOWED, SamplingError } from './sampling-error.js';
import { expNonPositive, sumExp } from './fast-exp.js';
import { NUCLEUS_PREFILTER, keepNucleus, keepNucleusAmong } from './nucleus.js';
import { selectTopTokens } from './top-tokens.js';
import { exponentialRace } from './exponential-race.js';
import { maskedArgmax, plainArgmax } from './argmax.js';
import { excludeTopChoices, keepMinP, keepTopK, keepTopNSigma, keepTypical, totalMass } from './candidate-filters.js';
import { DryPenalty } from './dry-penalty.js';
import { DRY_DEFAULTS, XTC_DEFAULT_THRESHOLD } from './sampling-params.js';

export interface TopLogprob {
  token: number;
  logprob: number;
}

export interface SampledToken {
  token: number;
  /** log-softmax of the processed logits at `token` (≤ 0); present when `params.logprobs`. */
  logprob?: number;
  /**
   * Present when `params.logprobs`: the `params.topLogprobs` best tokens, descending, ties to
   * the lower id; fewer when fewer tokens are possible (masked tokens are never listed).
   */
  topLogprobs?: TopLogprob[];
}

export interface TokenSamplerContext {
  /** The prompt's tokens: the repetition penalty's and DRY's windows cover them too. */
  prompt?: ArrayLike<number>;
  /** One entry per token, 1 where its text contains one of DRY's sequence breakers. */
  dryBreakers?: Uint8Array;
}

export class TokenSampler {
  readonly params: Readonly<SamplingParams>;
  readonly vocabSize: number;
  readonly #rng: SeededRng;
  readonly #scratch: SamplingScratch;
  readonly #greedy: boolean;
  readonly #invTemperature: number;
  readonly #topLogprobs: number;
  // logit_bias flattened once, so the hot path loops over typed arrays instead of a Map.
  readonly #biasIds: Int32Array;
  readonly #biasValues: Float64Array;
  // Penalty state, only when a penalty is set: a count per token plus the distinct tokens seen,
  // so applying penalties costs O(distinct generated tokens), not O(vocabulary).
  readonly #counts: Uint32Array | undefined;
  #seen: Int32Array;
  #seenCount = 0;
  // Prompt and output tokens, kept only for the repetition penalty and DRY (their windows).
  #history: Int32Array;
  #historyLength = 0;
  readonly #repetition: { penalty: number; lastN: number } | undefined;
  // The step each token was last penalised at, so a token repeated in the window counts once.
  readonly #repetitionStamps: Uint32Array | undefined;
  #step = 0;
  readonly #dry: { penalty: DryPenalty; lastN: number } | undefined;
  // Any truncation stage besides top_p: the draw then filters the masses in place.
  readonly #filtered: boolean;
  // log Σ exp(w - max) at temperature 1, left by #draw for the logprob of the chosen token.
  #logNormaliser = 0;

  constructor(params: Readonly<SamplingParams>, vocabSize: number, rng: SeededRng, scratch: SamplingScratch, context: TokenSamplerContext = {}) {
    if (!Number.isSafeInteger(vocabSize) || vocabSize <= 0) {
      throw new RangeError(`vocabulary size must be a positive integer, got ${vocabSize}`);
    }
    if (scratch.capacity < vocabSize) {
      throw new RangeError(`sampling scratch holds ${scratch.capacity} tokens, the vocabulary has ${vocabSize}`);
    }
    if (!(params.temperature >= 0)) {
      throw new RangeError(`temperature must be ≥ 0, got ${params.temperature}`);
    }
    this.params = params;
    this.vocabSize = vocabSize;
    this.#rng = rng;
    this.#scratch = scratch;
    // A temperature so small that 1/T overflows behaves as its limit: greedy.
    this.#invTemperature = 1 / params.temperature;
    this.#greedy = params.temperature === 0 || !Number.isFinite(this.#invTemperature);
    this.#topLogprobs = params.logprobs ? Math.max(0, Math.min(MAX_TOP_LOGPROBS, Math.floor(params.topLogprobs))) : 0;

    const bias = params.logitBias;
    this.#biasIds = new Int32Array(bias?.size ?? 0);
    this.#biasValues = new Float64Array(bias?.size ?? 0);
    if (bias) {
      let i = 0;
      for (const [token, value] of bias) {
        if (!Number.isInteger(token) || token < 0 || token >= vocabSize) {
          throw new RangeError(`logit_bias token ${token} is outside the vocabulary (0..${vocabSize - 1})`);
        }
        this.#biasIds[i] = token;
        this.#biasValues[i] = value;
        i++;
      }
    }

    const penalised = params.frequencyPenalty !== 0 || params.presencePenalty !== 0;
    this.#counts = penalised ? new Uint32Array(vocabSize) : undefined;
    this.#seen = new Int32Array(penalised ? 64 : 0);

    const repetition = params.repetitionPenalty ?? 1;
    const repeatLastN = params.repeatLastN ?? -1;
    this.#repetition = repetition !== 1 && repeatLastN !== 0 ? { penalty: repetition, lastN: repeatLastN } : undefined;
    this.#repetitionStamps = this.#repetition ? new Uint32Array(vocabSize) : undefined;
    const dryLastN = params.dryPenaltyLastN ?? DRY_DEFAULTS.penaltyLastN;
    const dryBase = params.dryBase ?? DRY_DEFAULTS.base;
    this.#dry = dryEnabled(params)
      ? {
          penalty: new DryPenalty(
            { multiplier: params.dryMultiplier!, base: dryBase, allowedLength: params.dryAllowedLength ?? DRY_DEFAULTS.allowedLength },
            context.dryBreakers ?? new Uint8Array(vocabSize),
          ),
          lastN: dryLastN,
        }
      : undefined;
    this.#history = new Int32Array(this.#repetition || this.#dry ? Math.max(64, (context.prompt?.length ?? 0) + 64) : 0);
    if (this.#repetition || this.#dry) for (let i = 0; i < (context.prompt?.length ?? 0); i++) this.#remember(context.prompt![i]!);
    this.#filtered =
      (params.topK ?? 0) > 0 || (params.minP ?? 0) > 0 || (params.typicalP ?? 1) < 1 || (params.topNSigma ?? 0) > 0 || (params.xtcProbability ?? 0) > 0;
  }

  #remember(token: number): void {
    if (this.#historyLength === this.#history.length) {
      const grown = new Int32Array(this.#history.length * 2);
      grown.set(this.#history);
      this.#history = grown;
    }
    this.#history[this.#historyLength++] = token;
  }

  /** Whether any stage changes the logits before the mask (the plain greedy path skips them all). */
  get #penalised(): boolean {
    return this.#counts !== undefined || this.#repetition !== undefined || this.#dry !== undefined;
  }

  /** Records a generated token, for the penalties. Prompt tokens are never passed here. */
  accept(token: number): void {
    if (this.#repetition || this.#dry) {
      if (!(token >= 0 && token < this.vocabSize)) throw new RangeError(`token ${token} is outside the vocabulary`);
      this.#remember(token);
    }
    const counts = this.#counts;
    if (counts === undefined) return;
    if (!(token >= 0 && token < this.vocabSize)) throw new RangeError(`token ${token} is outside the vocabulary`);
    if (counts[token]!++ > 0) return;
    if (this.#seenCount === this.#seen.length) {
      const grown = new Int32Array(this.#seen.length * 2);
      grown.set(this.#seen);
      this.#seen = grown;
    }
    this.#seen[this.#seenCount++] = token;
  }

  /**
   * Chooses the next token. `allowed`, when given, is the grammar's bitmask: bit `i % 32` of word
   * `i >>> 5` set means token i may be chosen. Throws SamplingError when no token is possible.
   */
  sample(logits: Float32Array, allowed?: Uint32Array): SampledToken {
    const size = this.vocabSize;
    if (logits.length !== size) {
      throw new RangeError(`expected ${size} logits, got ${logits.length}`);
    }
    // Plain greedy (no bias, penalty or logprobs) is one pass over the logits, no copy; under a
    // grammar mask only the allowed tokens are looked at.
    if (this.#greedy && !this.params.logprobs && this.#biasIds.length === 0 && !this.#penalised) {
      return { token: allowed === undefined ? plainArgmax(logits) : maskedArgmax(logits, allowed) };
    }
    const w = this.#scratch.logits;
    w.set(logits);
    this.#applyBias(w);
    this.#applyRepetitionPenalty(w);
    this.#applyPenalties(w);
    this.#applyDry(w);

    // Mask, max and argmax in one pass. Strict > keeps the lowest id among equal maxima.
    let max = -Infinity;
    let argmax = -1;
    if (allowed !== undefined) {
      if (allowed.length * 32 < size) {
        throw new RangeError(`grammar bitmask has ${allowed.length} words, ${Math.ceil(size / 32)} needed`);
      }
      for (let base = 0, word = 0; base < size; base += 32, word++) {
        const bits = allowed[word]!;
        const end = Math.min(base + 32, size);
        if (bits === 0) {
          w.fill(-Infinity, base, end);
          continue;
        }
        for (let i = base; i < end; i++) {
          if ((bits >>> (i - base)) & 1) {
            const x = w[i]!;
            if (x > max) {
              max = x;
              argmax = i;
            }
          } else {
            w[i] = -Infinity;
          }
        }
      }
    } else {
      for (let i = 0; i < size; i++) {
        const x = w[i]!;
        if (x > max) {
          max = x;
          argmax = i;
        }
      }
    }
    // A NaN logit never wins a comparison, so look for one explicitly (cheap next to the copy).
    if (hasNaN(w, size)) throw new SamplingError('the logits contain NaN');
    if (argmax < 0) {
      // Only what the request sends can leave no token allowed: its fault, not the server's.
      if (allowed !== undefined) throw new SamplingError(NO_TOKEN_ALLOWED, { status: 400 });
      throw new SamplingError('no token is possible: every logit is -Infinity or NaN');
    }

    const token = this.#greedy ? argmax : this.#draw(w, size, max);
    // Log-probabilities cost a pass of exp over the vocabulary: only when the request asks.
    if (!this.params.logprobs) return { token };
    // Greedy never computed the softmax normaliser; the draw left it in #logNormaliser.
    const logNormaliser = this.#greedy || this.#invTemperature !== 1 ? Math.log(sumExp(w, size, max)) : this.#logNormaliser;
    if (logNormaliser !== logNormaliser) throw new SamplingError('the logits contain NaN');
    return { token, logprob: w[token]! - max - logNormaliser, topLogprobs: this.#topEntries(w, size, max, logNormaliser) };
  }

  #applyBias(w: Float64Array): void {
    const ids = this.#biasIds;
    const values = this.#biasValues;
    for (let i = 0; i < ids.length; i++) w[ids[i]!]! += values[i]!;
  }

  // vLLM and llama.cpp: each distinct token of the window has a positive logit divided by the
  // penalty and any other multiplied by it (so a penalty > 1 always makes it less likely).
  #applyRepetitionPenalty(w: Float64Array): void {
    const repetition = this.#repetition;
    if (repetition === undefined) return;
    const stamps = this.#repetitionStamps!;
    const step = ++this.#step;
    const end = this.#historyLength;
    const start = repetition.lastN < 0 ? 0 : Math.max(0, end - repetition.lastN);
    const penalty = repetition.penalty;
    for (let i = start; i < end; i++) {
      const token = this.#history[i]!;
      if (stamps[token] === step) continue;
      stamps[token] = step;
      const x = w[token]!;
      w[token] = x > 0 ? x / penalty : x * penalty;
    }
  }

  /**
   * DRY's penalties for the next token of a sequence whose tokens (prompt and output) are
   * `history[0, end)`, as `emit(token, amount)`; nothing without DRY. Sampling in the graph
   * uploads them each step, where this sampler never sees the logits.
   */
  dryPenalties(history: ArrayLike<number>, end: number, emit: (token: number, amount: number) => void): void {
    const dry = this.#dry;
    if (dry === undefined) return;
    dry.penalty.penalties(history, dry.lastN < 0 ? 0 : Math.max(0, end - dry.lastN), end, emit);
  }

  #applyDry(w: Float64Array): void {
    this.dryPenalties(this.#history, this.#historyLength, (token, amount) => {
      w[token]! -= amount;
    });
  }

  // OpenAI: logit[j] -= count[j] * frequency_penalty + (count[j] > 0) * presence_penalty.
  #applyPenalties(w: Float64Array): void {
    const counts = this.#counts;
    if (counts === undefined) return;
    const seen = this.#seen;
    const frequency = this.params.frequencyPenalty;
    const presence = this.params.presencePenalty;
    for (let i = 0; i < this.#seenCount; i++) {
      const token = seen[i]!;
      w[token]! -= counts[token]! * frequency + presence;
    }
  }

  /**
   * Temperature, top_p and the draw. At temperature 1 it also leaves log Σ exp(w - max) in
   * #logNormaliser, sparing the logprobs a second sweep over the vocabulary.
   */
  #draw(w: Float64Array, size: number, max: number): number {
    const scratch = this.#scratch;
    const mass = scratch.mass;
    const invT = this.#invTemperature;
    // top_p alone: the exp pass also sets aside the nucleus's likely candidates (nucleus.ts).
    const nucleusOnly = this.params.topP < 1 && !this.#filtered;
    let total = 0;
    let candidates = 0;
    let candidateMass = 0;
    if (nucleusOnly) {
      const { tiedMass, tiedIds } = scratch;
      for (let i = 0; i < size; i++) {
        const e = expNonPositive((w[i]! - max) * invT);
        mass[i] = e;
        total += e;
        if (e >= NUCLEUS_PREFILTER) {
          tiedMass[candidates] = e;
          tiedIds[candidates++] = i;
          candidateMass += e;
        }
      }
    } else {
      // Branch-free: masked tokens simply get mass 0, which no draw can land on.
      for (let i = 0; i < size; i++) {
        const e = expNonPositive((w[i]! - max) * invT);
        mass[i] = e;
        total += e;
      }
    }
    if (total !== total) throw new SamplingError('the logits contain NaN');
    // At temperature 1 the masses are the softmax numerators: keep their sum for the logprobs.
    this.#logNormaliser = Math.log(total);

    // Both keys are drawn every step, whatever the logits, so the seeded stream stays in step.
    const key1 = this.#rng.nextUint32();
    const key2 = this.#rng.nextUint32();
    if (this.#filtered) return this.#drawFiltered(w, size, key1, key2);
    if (!nucleusOnly) return exponentialRace(mass, size, key1, key2);
    const target = this.params.topP * total;
    if (candidateMass >= target) keepNucleusAmong(scratch, size, candidates, target);
    else keepNucleus(scratch, size, target);
    return exponentialRace(mass, size, key1, key2, scratch.keptBits);
  }

  /** The truncation stages in order, each on the survivors of the one before, then the race. */
  #drawFiltered(w: Float64Array, size: number, key1: number, key2: number): number {
    const params = this.params;
    const scratch = this.#scratch;
    const mass = scratch.mass;
    // XTC's chance is a third word of the step, drawn whenever XTC is on, so the stream stays in step.
    const xtcProbability = params.xtcProbability ?? 0;
    const xtcApplies = xtcProbability > 0 && this.#rng.nextUint32() / 4294967296 < xtcProbability;
    if ((params.topNSigma ?? 0) > 0) keepTopNSigma(w, mass, size, params.topNSigma!);
    if ((params.topK ?? 0) > 0) keepTopK(scratch, w, size, params.topK!);
    if ((params.typicalP ?? 1) < 1) keepTypical(scratch, size, totalMass(mass, size), params.typicalP!);
    if (params.topP < 1) {
      keepNucleus(scratch, size, params.topP * totalMass(mass, size));
      const kept = scratch.keptBits;
      for (let i = 0; i < size; i++) if (((kept[i >>> 5]! >>> (i & 31)) & 1) === 0) mass[i] = 0;
    }
    if ((params.minP ?? 0) > 0) keepMinP(mass, size, params.minP!);
    if (xtcApplies) excludeTopChoices(mass, size, totalMass(mass, size), params.xtcThreshold ?? XTC_DEFAULT_THRESHOLD);
    return exponentialRace(mass, size, key1, key2);
  }

  #topEntries(w: Float64Array, size: number, max: number, logNormaliser: number): TopLogprob[] {
    const k = this.#topLogprobs;
    const { topIds, topLogits } = this.#scratch;
    const count = selectTopTokens(w, size, k, topIds, topLogits);
    const entries: TopLogprob[] = new Array(count);
    for (let j = 0; j < count; j++) {
      // Same expression as the chosen token's logprob, so the two agree to the bit.
      entries[j] = { token: topIds[j]!, logprob: topLogits[j]! - max - logNormaliser };
    }
    return entries;
  }
}

/** Whether DRY applies: a positive multiplier, a window (penalty_last_n not 0), a base of at least 1. */
export function dryEnabled(params: Readonly<SamplingParams>): boolean {
  return (params.dryMultiplier ?? 0) > 0 && (params.dryPenaltyLastN ?? DRY_DEFAULTS.penaltyLastN) !== 0 && (params.dryBase ?? DRY_DEFAULTS.base) >= 1;
}

function hasNaN(w: Float64Array, size: number): boolean {
  for (let i = 0; i < size; i++) if (w[i] !== w[i]) return true;
  return false;
}

