// One choice of one request: its tokens, how many of them the KV cache holds, and its
// output state. Phase-free (vLLM v1): "computed" catches up with "known"; prefill, chunked
// prefill, resumption after preemption and decode are all the same rule.
import { StopStringMatcher, TokenSampler, Utf8StreamDecoder } from '../../sampling/index.js';
import type { GrammarConstraint } from '../../sampling/grammar-constraint.js';
import type { FinishReason, GenerateRequest, PromptTokenLogprob, TokenLogprob } from '../protocol.js';

export class Sequence {
  /** llama.cpp sequence id while it holds KV cells, else -1. */
  slot = -1;
  /** Prompt tokens followed by generated ones. */
  readonly tokens: number[];
  /** How many of `tokens` are in the KV cache (computed here or shared from the prefix cache). */
  computed = 0;
  /** Of those, the ones this sequence computed itself since it got its slot (the rest were shared). */
  computedHere = 0;
  /** The most tokens it held before a preemption dropped them: computing below this is computing again. */
  heldBeforePreemption = 0;
  generated = 0;
  finish: FinishReason | undefined;
  /** Predicted Outputs: draft tokens from the request's prediction the target accepted, and rejected. */
  predictionAccepted = 0;
  predictionRejected = 0;
  /** Output gathered since the last event. */
  pendingText = '';
  pendingTokens: number[] = [];
  pendingLogprobs: TokenLogprob[] | undefined;
  /** With logprobs, the end token that finished the choice (EOS, a turn opener): it is generated, though not output. */
  endLogprob: TokenLogprob | undefined;

  constructor(
    readonly request: RequestState,
    readonly choice: number,
    prompt: Int32Array,
    readonly sampler: TokenSampler,
    readonly decoder: Utf8StreamDecoder,
    readonly stopMatcher: StopStringMatcher,
    /** The output format this choice must follow, when the request has one. */
    readonly grammar: GrammarConstraint | undefined,
  ) {
    this.tokens = Array.from(prompt);
    this.pendingLogprobs = request.wantLogprobs ? [] : undefined;
  }

  get promptLength(): number {
    return this.request.promptLength;
  }

  /** Tokens not yet in the cache. */
  get pending(): number {
    return this.tokens.length - this.computed;
  }

  /**
   * Most draft tokens the next step may verify after this sequence's last token: each one
   * accepted is one more output token (and the step adds one of its own), within max_tokens
   * and the length limit.
   */
  get draftRoom(): number {
    const outputLeft = (this.request.request.maxTokens ?? Infinity) - this.generated - 1;
    return Math.min(outputLeft, this.request.lengthLimit - this.tokens.length - 1);
  }

  /** Whether min_tokens still holds: no token that would end the choice may be sampled, no stop string is looked for. */
  get belowMinTokens(): boolean {
    return this.generated < (this.request.request.minTokens ?? 0);
  }

  /** Whether a mask may hold back some of its tokens: its grammar's, allowed_token_ids, min_tokens, bad_words (allowedMask). */
  get masked(): boolean {
    const { allowedTokensMask, minTokensMask, badWords } = this.request;
    return this.grammar !== undefined || allowedTokensMask !== undefined || minTokensMask !== undefined || (badWords?.length ?? 0) > 0;
  }

  /**
   * The tokens this choice may sample next (a bitmask; undefined: any): those its grammar's mask
   * and allowed_token_ids allow, and while min_tokens holds, not those that would end it.
   */
  allowedMask(): Uint32Array | undefined {
    const { allowedTokensMask, minTokensMask, badWords } = this.request;
    if (!allowedTokensMask && !minTokensMask && !badWords) return this.grammar?.mask;
    const masks = [this.grammar?.mask, allowedTokensMask, this.belowMinTokens ? minTokensMask : undefined].filter((mask) => mask !== undefined);
    const banned = badWords ? this.badWordEnds(badWords) : [];
    if (masks.length <= 1 && banned.length === 0) return masks[0];
    // The request's masks are the vocabulary's width; a grammar's may be wider.
    const width = Math.ceil(this.sampler.vocabSize / 32);
    const all = (this.combinedMask ??= new Uint32Array(width));
    if (masks.length === 0) {
      all.fill(0xffffffff);
    } else {
      all.set(masks[0]!.subarray(0, width));
      for (const mask of masks.slice(1)) for (let w = 0; w < width; w++) all[w]! &= mask[w]!;
    }
    for (const token of banned) all[token >>> 5]! &= ~(1 << (token & 31));
    return all;
  }

  /** The bad words' last tokens that the next token would complete: the output ends with the rest of the word (one-token words always). */
  private badWordEnds(words: readonly Int32Array[]): number[] {
    const output = this.tokens.length - this.promptLength;
    const ends: number[] = [];
    for (const word of words) {
      const rest = word.length - 1;
      if (rest > output) continue;
      let follows = true;
      for (let i = 0; i < rest && follows; i++) follows = this.tokens[this.tokens.length - rest + i] === word[i];
      if (follows) ends.push(word[rest]!);
    }
    return ends;
  }

  private combinedMask: Uint32Array | undefined;
}

export class RequestState {
  readonly sequences: Sequence[] = [];
  cancelled = false;
  /** Set when generation failed for this request alone (its error has been reported). */
  failed = false;
  /** Admission order, for FIFO fairness and for choosing whom to preempt. */
  admittedAt = -1;
  /** When the request arrived (microseconds since the epoch), for its trace. */
  submittedAt = 0;
  /** The predicted output's tokens (Predicted Outputs), drafted where a choice follows them. */
  predicted: readonly number[] | undefined;
  /** Prompt tokens the first choice took from the prefix cache when it started; undefined before. */
  cachedTokens: number | undefined;
  /** Whether a delta has told the server `cachedTokens` (before the finish, for usage so far). */
  cachedTokensSent = false;
  /**
   * GenerateRequest.promptLogprobs: the prompt's tokens scored so far, the first (unscored) one
   * included; undefined without. Whichever choice computes a prompt position scores it, once
   * (a choice preempted part-way computes it again, another may compute it first).
   */
  promptLogprobs: PromptTokenLogprob[] | undefined;

  constructor(
    readonly id: number,
    readonly request: GenerateRequest,
    readonly promptLength: number,
    /** Most tokens (prompt plus output) a choice may reach. */
    readonly lengthLimit: number,
    readonly wantLogprobs: boolean,
    /** Control tokens that open a turn: generated outside a grammar, they end a choice. */
    readonly turnOpeners: ReadonlySet<number> = new Set(),
    /** GenerateRequest.minTokens: the tokens that may be sampled until that many are generated (Admission.minTokensBan). */
    readonly minTokensMask?: Uint32Array,
    /** GenerateRequest.allowedTokenIds as a mask. */
    readonly allowedTokensMask?: Uint32Array,
    /** GenerateRequest.badWords as token sequences (Admission.badWordTokens). */
    readonly badWords?: readonly Int32Array[],
  ) {
    this.stopTokens = new Set(request.stopTokenIds ?? []);
  }

  /** GenerateRequest.stopTokenIds. */
  readonly stopTokens: ReadonlySet<number>;

  /** Prompt positions still to be scored: the logits at position p score token p + 1, so the last position scores none. */
  get promptUnscored(): boolean {
    return this.promptLogprobs !== undefined && this.promptLogprobs.length < this.promptLength;
  }

  get done(): boolean {
    return this.sequences.every((sequence) => sequence.finish !== undefined);
  }

  /** Choices still generating. */
  get live(): Sequence[] {
    return this.sequences.filter((sequence) => sequence.finish === undefined);
  }
}
