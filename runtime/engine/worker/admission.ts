// A request becomes engine state, or an error naming the field at fault: its prompt is
// tokenized and checked against the vocabulary and the context window, its output format
// deserialized, and each choice gets its own sampler, decoder, stop matcher and grammar.
import { createHash } from 'node:crypto';
import type { Vocabulary } from '../../backend/vocabulary.js';
import { deserializeCompiledGrammar, TokenizerInfo, type CompiledGrammar } from '../../../compiler/index.js';
import {
  SamplingScratch,
  SeededRng,
  StopStringMatcher,
  TokenSampler,
  Utf8StreamDecoder,
  DRY_DEFAULTS,
  breakerTokens,
  defaultSamplingParams,
  type SamplingParams,
} from '../../sampling/index.js';
import { GrammarConstraint } from '../../sampling/grammar-constraint.js';
import { runTableBytes } from '../../../compiler/mask/ladder.js';
import { grammarVocabulary } from './grammar-vocabulary.js';
import { protocolTokens } from '../../chat-format/protocol-tokens.js';
import type { EngineErrorInfo, GenerateRequest } from '../protocol.js';
import { RequestState, Sequence } from './sequence.js';
import { requestFieldProblem } from './request-fields.js';

export interface AdmissionLimits {
  /** Most sequences decoded together (max_num_sequence). */
  maxNumSequence: number;
  /** Longest a sequence may grow: the context window, within the shared KV budget. */
  lengthLimit: number;
  /** KV cells all sequences share (max_total_seq_length in the shared layout; undefined with a stream of cells per sequence). */
  sharedCells?: number;
}

/**
 * Most bytes of deserialized grammars kept for later requests: their artifacts (standing for
 * the automata built from them) and the token masks computed so far. A mask is at most a
 * vocabulary bitset (6 KiB for 49k tokens, 32 KiB for 256k), so this keeps thousands.
 */
export const COMPILED_GRAMMAR_CACHE_BYTES = 128 * 2 ** 20;
const COMPILED_GRAMMAR_CACHE_ENTRIES = 64;

interface KeptGrammar {
  compiled: CompiledGrammar;
  artifactBytes: number;
}

/** What a kept grammar holds: its artifact, and the masks it has computed since. */
function keptBytes(kept: KeptGrammar): number {
  return kept.artifactBytes + (kept.compiled.masks?.maskBytes ?? 0);
}

export interface AdmissionOptions {
  /** Most bytes of grammars kept for later requests (default COMPILED_GRAMMAR_CACHE_BYTES). */
  grammarCacheBytes?: number;
  /** Vocabulary tables a compiled folder carries (compiled-artifacts.ts checked they are this model's). */
  vocabularyTables?: Uint8Array;
  /** Whether drafts are made (speculative decoding): else a request's prediction is not even tokenized. */
  draftsPredictions?: boolean;
}

/** More characters than any token spells but a run of spaces: where a prediction's text is cut before tokenizing. */
const CHARS_PER_TOKEN = 64;
/** Tokens a prefix of a text may have beyond the whole text's: a word or control token cut in two. */
const PREFIX_SLACK_TOKENS = 64;

export class Admission {
  private tokenizer: TokenizerInfo | undefined;
  /** Turn-opening control tokens by the template text they come from (one template per server). */
  private readonly turnOpeners = new Map<string, ReadonlySet<number>>();
  /** Deserialized grammars by artifact hash, least recently used first, so their lazily built masks serve later requests too. */
  private readonly grammars = new Map<string, KeptGrammar>();
  /** DRY's breaker tokens by the breaker list they come from (most requests send the default one). */
  private readonly dryBreakers = new Map<string, Uint8Array>();
  private readonly scratch: SamplingScratch;

  constructor(
    private readonly vocabulary: Vocabulary,
    /** Rows of a logits vector (the model's vocabulary size). */
    private readonly logitsWidth: number,
    private readonly limits: AdmissionLimits,
    private readonly options: AdmissionOptions = {},
  ) {
    this.scratch = new SamplingScratch(logitsWidth);
  }

  /** The request's state with one sequence per choice, or why it cannot run. */
  admit(id: number, request: GenerateRequest): RequestState | EngineErrorInfo {
    const problem = requestFieldProblem(request);
    if (problem) return { code: 'invalid_request', ...problem };
    const limitProblem = this.limitProblem(request);
    if (limitProblem) return limitProblem;
    const keep = this.keptPromptTokens(request);
    const tokenized = typeof request.prompt === 'string' ? (keep === undefined ? this.tokenizeWithin(request.prompt, request.addSpecial ?? false) : this.tokenizeTail(request.prompt, request.addSpecial ?? false, keep)) : Int32Array.from(request.prompt);
    if (!(tokenized instanceof Int32Array)) return tokenized;
    const prompt = keep !== undefined && tokenized.length > keep ? tokenized.subarray(tokenized.length - keep) : tokenized;
    const n = request.n ?? 1;
    const promptProblem = this.promptProblem(prompt, request.maxTokens);
    if (promptProblem) return promptProblem;
    const sampling: SamplingParams = { ...defaultSamplingParams, ...request.sampling };
    let grammar: CompiledGrammar | undefined;
    if (request.grammar) {
      try {
        grammar = this.grammarOf(request.grammar);
      } catch (error) {
        return { code: 'invalid_request', param: 'response_format', message: `the compiled output format cannot be used: ${(error as Error).message}` };
      }
    }
    const turnOpeners = this.turnOpenersOf(request.turnOpener);
    const state = new RequestState(id, request, prompt.length, this.choiceLengthLimit(prompt.length, n), sampling.logprobs, turnOpeners, this.minTokensBan(request, turnOpeners), this.allowedTokensMask(request), this.badWordTokens(request));
    if (request.prediction !== undefined) {
      const room = Math.min(state.lengthLimit - prompt.length, request.maxTokens ?? Infinity);
      state.predicted = this.options.draftsPredictions ? this.predictionTokens(request.prediction, room) : [];
    }
    const context = { prompt, ...((sampling.dryMultiplier ?? 0) > 0 ? { dryBreakers: this.dryBreakersOf(sampling.drySequenceBreakers ?? DRY_DEFAULTS.sequenceBreakers) } : {}) };
    for (let choice = 0; choice < n; choice++) {
      const rng = request.seed === undefined ? SeededRng.fromEntropy() : new SeededRng(request.seed, choice);
      state.sequences.push(
        new Sequence(
          state,
          choice,
          prompt,
          new TokenSampler(sampling, this.vocabulary.size, rng, this.scratch, context),
          new Utf8StreamDecoder(),
          new StopStringMatcher(request.stop ?? [], new Set(request.outputStops ?? [])),
          grammar ? new GrammarConstraint(grammar, this.tokenizerInfo()) : undefined,
        ),
      );
    }
    return state;
  }

  /**
   * The predicted output's tokens, as the model would write them (special-token text is text),
   * at most `room` (what a choice may still generate): what no choice could reach is never drafted. The text is cut first, at a
   * generous CHARS_PER_TOKEN, so that a prediction far longer than the context is not all tokenized.
   */
  private predictionTokens(text: string, room: number): number[] {
    const cut = text.length > room * CHARS_PER_TOKEN ? text.slice(0, room * CHARS_PER_TOKEN) : text;
    return Array.from(this.vocabulary.tokenize(cut, { parseSpecial: false }).subarray(0, Math.max(0, room)));
  }

  /** What this engine cannot run whatever the prompt: more choices than it decodes together, more output than its context holds, a bias on a token it lacks. */
  private limitProblem(request: GenerateRequest): EngineErrorInfo | undefined {
    const limit = this.limits.lengthLimit;
    if (request.maxTokens !== undefined && request.maxTokens >= limit) {
      // A prompt has at least one token: no prompt could make this fit, so the field is at fault.
      return { code: 'context_length_exceeded', param: 'max_tokens', message: `This model's maximum context length is ${limit} tokens, prompt included, so at most ${limit - 1} can be generated; ${request.maxTokens} were requested.` };
    }
    const n = request.n ?? 1;
    if (n > this.limits.maxNumSequence) {
      return { code: 'invalid_request', param: 'n', message: `n=${n} is not possible: this server decodes at most ${this.limits.maxNumSequence} ${this.limits.maxNumSequence === 1 ? 'sequence' : 'sequences'} together (max_num_sequence)` };
    }
    const outside = this.outsideVocabulary('allowed_token_ids', request.allowedTokenIds) ?? this.outsideVocabulary('stop_token_ids', request.stopTokenIds);
    if (outside) return outside;
    if (request.minTokens !== undefined && request.maxTokens !== undefined && request.minTokens > request.maxTokens) {
      return { code: 'invalid_request', param: 'min_tokens', message: `min_tokens (${request.minTokens}) is more than max_tokens (${request.maxTokens})` };
    }
    return this.outsideVocabulary('logit_bias', request.sampling?.logitBias?.keys());
  }

  /** The refusal of the first token id in `tokens` that this vocabulary lacks, naming `param`; undefined when all are in it. */
  private outsideVocabulary(param: string, tokens: Iterable<number> | undefined): EngineErrorInfo | undefined {
    const size = this.vocabulary.size;
    for (const token of tokens ?? []) {
      if (!Number.isInteger(token) || token < 0 || token >= size) {
        return { code: 'invalid_request', param, message: `${param} names token ${token}, but the vocabulary has tokens 0 to ${size - 1}` };
      }
    }
    return undefined;
  }

  /** How many prompt tokens truncatePromptTokens keeps, or undefined without it. */
  private keptPromptTokens(request: GenerateRequest): number | undefined {
    const asked = request.truncatePromptTokens;
    if (asked === undefined) return undefined;
    // More than the context keeps what the context allows, which then leaves no room for output
    // (the same refusal), but tokenizes no more of a long text than that.
    return asked === -1 ? Math.max(1, this.limits.lengthLimit - (request.maxTokens ?? 1)) : Math.min(asked, this.limits.lengthLimit);
  }

  /**
   * The text's tokens, at least its last `keep` of them (truncatePromptTokens): a text far
   * longer than the context is tokenized from growing suffixes (sized as tokenizeWithin sizes
   * its prefixes) until one holds `keep` tokens and PREFIX_SLACK_TOKENS more, which are dropped
   * where the cut may have split a word: tokenizing megabytes would hold every running request's
   * next step. Tokenizers decide a token from the text around it, so past the slack the suffix's
   * tokens are the whole text's.
   */
  private tokenizeTail(text: string, addSpecial: boolean, keep: number): Int32Array {
    const wanted = keep + PREFIX_SLACK_TOKENS;
    let chars = wanted * 8;
    for (;;) {
      if (chars >= text.length) return this.vocabulary.tokenize(text, { addSpecial, parseSpecial: true });
      const tail = this.vocabulary.tokenize(text.slice(text.length - chars), { parseSpecial: true });
      if (tail.length >= wanted) return tail.subarray(PREFIX_SLACK_TOKENS);
      chars = Math.max(chars * 2, Math.ceil(wanted * (chars / Math.max(tail.length, 1)) * 1.25));
    }
  }

  /**
   * The text's tokens, or its refusal when it is far longer than the context, found without
   * tokenizing it whole: tokenizing megabytes holds this thread (every running request's next
   * step) for seconds. A text of more bytes than the context's tokens could ever spell is
   * refused at once; else growing prefixes are tokenized, each sized from the last one's
   * characters per token (12 for a run of control tokens, 60 for spaces), until one has more
   * tokens than the limit or the prefix is the whole text. A prefix of a text never has many
   * more tokens than the whole (a cut word or control token costs a few): PREFIX_SLACK_TOKENS.
   */
  tokenizeWithin(text: string, addSpecial: boolean): Int32Array | EngineErrorInfo {
    const limit = this.limits.lengthLimit;
    const tooLong = (tokens: number, how: string): EngineErrorInfo => ({
      code: 'context_length_exceeded',
      param: 'prompt',
      message: `This model's maximum context length is ${limit} tokens, but the prompt has more than ${tokens} tokens (${how}).`,
    });
    const bytes = Buffer.byteLength(text, 'utf8');
    const fewest = Math.floor((bytes - 1) / this.vocabulary.longestPieceBytes);
    if (fewest > limit + PREFIX_SLACK_TOKENS) return tooLong(fewest - 1, `${bytes} bytes, and no token stands for more than ${this.vocabulary.longestPieceBytes}`);
    let chars = (limit + PREFIX_SLACK_TOKENS) * 8;
    for (;;) {
      if (chars >= text.length) return this.vocabulary.tokenize(text, { addSpecial, parseSpecial: true });
      const sample = this.vocabulary.tokenize(text.slice(0, chars), { addSpecial, parseSpecial: true }).length;
      if (sample - PREFIX_SLACK_TOKENS >= limit) return tooLong(sample - PREFIX_SLACK_TOKENS, `its first ${chars} characters alone do`);
      const charsPerToken = chars / Math.max(sample, 1);
      chars = Math.max(chars * 2, Math.ceil((limit + PREFIX_SLACK_TOKENS) * charsPerToken * 1.25));
    }
  }

  /** A prompt this engine cannot take: empty, naming tokens outside its vocabulary, or leaving no room for output. */
  private promptProblem(prompt: Int32Array, maxTokens: number | undefined): EngineErrorInfo | undefined {
    if (prompt.length === 0) return { code: 'invalid_request', param: 'prompt', message: 'The prompt is empty: there is nothing to continue (vLLM refuses an empty prompt too; give at least one token).' };
    for (const token of prompt) {
      if (token < 0 || token >= this.vocabulary.size) return { code: 'invalid_request', param: 'prompt', message: `prompt token ${token} is not in the vocabulary` };
    }
    const limit = this.limits.lengthLimit;
    const wanted = maxTokens ?? 1;
    if (prompt.length + wanted <= limit) return undefined;
    return {
      code: 'context_length_exceeded',
      param: 'prompt',
      message:
        maxTokens === undefined
          ? `This model's maximum context length is ${limit} tokens, but the prompt has ${prompt.length} tokens, leaving no room for output.`
          : `This model's maximum context length is ${limit} tokens, but ${prompt.length + wanted} were requested (${prompt.length} in the prompt, ${wanted} in the completion).`,
    };
  }

  /**
   * Longest each choice may grow. In the cells every sequence shares, n choices may each fill
   * their part of what the prompt leaves (finish_reason "length", max_tokens or not), so that
   * alone they always fit: a lone request cannot preempt another to make room, and its decode
   * failed part-way, every choice ending in error. Beside others, preemption makes room.
   */
  private choiceLengthLimit(promptLength: number, n: number): number {
    const cells = this.limits.sharedCells;
    if (cells === undefined || n === 1) return this.limits.lengthLimit;
    return Math.min(this.limits.lengthLimit, promptLength + Math.floor((cells - promptLength) / n));
  }

  /**
   * With minTokens: the mask (sampling layout, a bit a token) of the tokens that may be sampled
   * before that many are generated: all but those that would end the choice (end of generation
   * and turn openers unless the request ignores them, its stop tokens). Undefined without.
   */
  private minTokensBan(request: GenerateRequest, turnOpeners: ReadonlySet<number>): Uint32Array | undefined {
    if (!request.minTokens) return undefined;
    const size = this.vocabulary.size;
    const mask = new Uint32Array(Math.ceil(size / 32)).fill(0xffffffff);
    if (size % 32 !== 0) mask[mask.length - 1] = (1 << (size % 32)) - 1;
    const ban = (token: number) => (mask[token >>> 5]! &= ~(1 << (token & 31)));
    if (!request.ignoreEos) {
      for (const token of this.vocabulary.endOfGeneration) ban(token);
      for (const token of turnOpeners) ban(token);
    }
    for (const token of request.stopTokenIds ?? []) ban(token);
    return mask;
  }

  /**
   * With badWords: each word's tokens as written and after a space, so that it is kept out at the
   * start of the text and mid-sentence (vLLM keeps the spaced form only where it has as many
   * tokens as the other: "Dolphin" as two tokens and " Dolphin" as one would pass there). Only
   * these spellings are held back: the same text in other tokens is not. Undefined without.
   */
  private badWordTokens(request: GenerateRequest): Int32Array[] | undefined {
    if (!request.badWords?.length) return undefined;
    const sequences: Int32Array[] = [];
    for (const word of request.badWords) {
      const bare = word.trimStart();
      if (bare === '') continue;
      const plain = this.vocabulary.tokenize(bare, { parseSpecial: false });
      if (plain.length > 0) sequences.push(plain);
      const spaced = this.vocabulary.tokenize(` ${bare}`, { parseSpecial: false });
      if (spaced.length > 0 && (spaced.length !== plain.length || spaced.some((token, i) => token !== plain[i]))) sequences.push(spaced);
    }
    return sequences;
  }

  /** With allowedTokenIds: the mask (sampling layout) of those tokens. Undefined without. */
  private allowedTokensMask(request: GenerateRequest): Uint32Array | undefined {
    if (!request.allowedTokenIds) return undefined;
    const mask = new Uint32Array(Math.ceil(this.vocabulary.size / 32));
    for (const token of request.allowedTokenIds) mask[token >>> 5]! |= 1 << (token & 31);
    return mask;
  }

  /** The control tokens (end-of-generation and protocol ones aside) in the text a template opens a turn with. */
  private turnOpenersOf(text: string | undefined): ReadonlySet<number> {
    if (!text) return new Set();
    let tokens = this.turnOpeners.get(text);
    if (!tokens) {
      const ids = this.vocabulary.tokenize(text, { parseSpecial: true });
      const protocol = protocolTokens(this.vocabulary);
      tokens = new Set(Array.from(ids).filter((id) => this.vocabulary.isControl(id) && !this.vocabulary.isEndOfGeneration(id) && !protocol.has(id)));
      this.turnOpeners.set(text, tokens);
      if (this.turnOpeners.size > 16) this.turnOpeners.delete(this.turnOpeners.keys().next().value!);
    }
    return tokens;
  }

  /** The tokens whose text contains one of `breakers`, built once per list. */
  private dryBreakersOf(breakers: readonly string[]): Uint8Array {
    const key = JSON.stringify(breakers);
    let marks = this.dryBreakers.get(key);
    if (!marks) {
      marks = breakerTokens(this.vocabulary.size, (token) => this.vocabulary.piece(token), breakers);
      this.dryBreakers.set(key, marks);
      if (this.dryBreakers.size > 16) this.dryBreakers.delete(this.dryBreakers.keys().next().value!);
    }
    return marks;
  }

  /** The vocabulary as the grammar compiler sees it: a compiled folder's tables, else built on the first constrained request (or on this call). */
  tokenizerInfo(): TokenizerInfo {
    this.tokenizer ??= this.compiledTables() ?? grammarVocabulary(this.vocabulary, this.logitsWidth);
    return this.tokenizer;
  }

  /** The compiled tables when their shape is this model's (a last guard; their binding to the GGUF is checked before the load). */
  private compiledTables(): TokenizerInfo | undefined {
    if (!this.options.vocabularyTables) return undefined;
    try {
      const tables = TokenizerInfo.fromCacheBytes(this.options.vocabularyTables);
      return tables.numTokens === this.vocabulary.size && tables.vocabSize === this.logitsWidth ? tables : undefined;
    } catch {
      return undefined;
    }
  }

  /** Bytes the kept grammars hold now (masks grow as running sequences reach new states). */
  get cachedGrammarBytes(): number {
    let total = 0;
    for (const kept of this.grammars.values()) total += keptBytes(kept);
    return total;
  }

  /** Bytes the vocabulary's mask-building caches hold (token sets by byte set, whitespace run tables). */
  get vocabularyCacheBytes(): number {
    return this.tokenizer ? this.tokenizer.withinCacheBytes + runTableBytes(this.tokenizer) : 0;
  }

  private grammarOf(artifact: Uint8Array): CompiledGrammar {
    const key = createHash('sha256').update(artifact).digest('hex');
    const kept = this.grammars.get(key) ?? { compiled: deserializeCompiledGrammar(artifact, this.tokenizerInfo()), artifactBytes: artifact.byteLength };
    this.grammars.delete(key);
    this.grammars.set(key, kept);
    // Masks grew since the last admission, so the bound is checked on each. A grammar dropped
    // here lives on in the sequences using it, and goes with the last of them.
    let total = this.cachedGrammarBytes;
    while (total > (this.options.grammarCacheBytes ?? COMPILED_GRAMMAR_CACHE_BYTES) || this.grammars.size > COMPILED_GRAMMAR_CACHE_ENTRIES) {
      const [oldest, dropped] = this.grammars.entries().next().value!;
      this.grammars.delete(oldest);
      total -= keptBytes(dropped);
    }
    return kept.compiled;
  }
}

export function isAdmissionError(value: RequestState | EngineErrorInfo): value is EngineErrorInfo {
  return !(value instanceof RequestState);
}
