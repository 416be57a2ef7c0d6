// A request becomes engine state, or an error naming the field at fault: its prompt is
// tokenized and checked against the vocabulary and the context window, its output format
// deserialized, and each choice gets its own sampler, decoder, stop matcher and grammar.
import { createHash } from 'node:crypto';
import type { Vocabulary } from '../backend/vocabulary.js';
import { deserializeCompiledGrammar, TokenizerInfo, type CompiledGrammar } from '../../compiler/index.js';
import {
  SamplingScratch,
  SeededRng,
  StopStringMatcher,
  TokenSampler,
  Utf8StreamDecoder,
  defaultSamplingParams,
  type SamplingParams,
} from '../sampling/index.js';
import { GrammarConstraint } from '../sampling/grammar-constraint.js';
import { grammarVocabulary } from './grammar-vocabulary.js';
import { protocolTokens } from './protocol-tokens.js';
import type { EngineErrorInfo, GenerateRequest } from './protocol.js';
import { RequestState, Sequence } from './sequence.js';

export interface AdmissionLimits {
  /** Most sequences decoded together (max_num_sequence). */
  maxNumSequence: number;
  /** Longest a sequence may grow: the context window, within the shared KV budget. */
  lengthLimit: number;
}

export class Admission {
  private tokenizer: TokenizerInfo | undefined;
  /** Turn-opening control tokens by the template text they come from (one template per server). */
  private readonly turnOpeners = new Map<string, ReadonlySet<number>>();
  /** Deserialized grammars by artifact hash, so their lazily built masks serve later requests too. */
  private readonly grammars = new Map<string, CompiledGrammar>();
  private readonly scratch: SamplingScratch;

  constructor(
    private readonly vocabulary: Vocabulary,
    /** Rows of a logits vector (the model's vocabulary size). */
    private readonly logitsWidth: number,
    private readonly limits: AdmissionLimits,
    /** Vocabulary tables a compiled folder carries (compiled-artifacts.ts checked they are this model's). */
    private readonly vocabularyTables?: Uint8Array,
  ) {
    this.scratch = new SamplingScratch(logitsWidth);
  }

  /** The request's state with one sequence per choice, or why it cannot run. */
  admit(id: number, request: GenerateRequest): RequestState | EngineErrorInfo {
    const n = request.n ?? 1;
    if (!Number.isInteger(n) || n < 1 || n > this.limits.maxNumSequence) {
      return { code: 'invalid_request', param: 'n', message: `n=${n} is not possible: this server decodes at most ${this.limits.maxNumSequence} sequences together (max_num_sequence)` };
    }
    for (const token of request.sampling?.logitBias?.keys() ?? []) {
      if (!Number.isInteger(token) || token < 0 || token >= this.vocabulary.size) {
        return { code: 'invalid_request', param: 'logit_bias', message: `logit_bias names token ${token}, but the vocabulary has tokens 0 to ${this.vocabulary.size - 1}` };
      }
    }
    const prompt =
      typeof request.prompt === 'string'
        ? this.vocabulary.tokenize(request.prompt, { addSpecial: request.addSpecial ?? false, parseSpecial: true })
        : Int32Array.from(request.prompt);
    if (prompt.length === 0) return { code: 'invalid_request', param: 'prompt', message: 'the prompt is empty after tokenization' };
    for (const token of prompt) {
      if (token < 0 || token >= this.vocabulary.size) return { code: 'invalid_request', param: 'prompt', message: `prompt token ${token} is not in the vocabulary` };
    }
    const limit = this.limits.lengthLimit;
    const wanted = request.maxTokens ?? 1;
    if (prompt.length + wanted > limit) {
      return {
        code: 'context_length_exceeded',
        param: 'prompt',
        message:
          request.maxTokens === undefined
            ? `This model's maximum context length is ${limit} tokens, but the prompt has ${prompt.length} tokens, leaving no room for output.`
            : `This model's maximum context length is ${limit} tokens, but ${prompt.length + wanted} were requested (${prompt.length} in the prompt, ${wanted} for max_tokens).`,
      };
    }
    const sampling: SamplingParams = { ...defaultSamplingParams, ...request.sampling };
    let grammar: CompiledGrammar | undefined;
    if (request.grammar) {
      try {
        grammar = this.grammarOf(request.grammar);
      } catch (error) {
        return { code: 'invalid_request', param: 'response_format', message: `the compiled output format cannot be used: ${(error as Error).message}` };
      }
    }
    const state = new RequestState(id, request, prompt.length, limit, sampling.logprobs, this.turnOpenersOf(request.turnOpener));
    for (let choice = 0; choice < n; choice++) {
      const rng = request.seed === undefined ? SeededRng.fromEntropy() : new SeededRng(request.seed, choice);
      state.sequences.push(
        new Sequence(
          state,
          choice,
          prompt,
          new TokenSampler(sampling, this.vocabulary.size, rng, this.scratch),
          new Utf8StreamDecoder(),
          new StopStringMatcher(request.stop ?? []),
          grammar ? new GrammarConstraint(grammar, this.tokenizerInfo()) : undefined,
        ),
      );
    }
    return state;
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

  /** The vocabulary as the grammar compiler sees it: a compiled folder's tables, else built on the first constrained request. */
  private tokenizerInfo(): TokenizerInfo {
    this.tokenizer ??= this.compiledTables() ?? grammarVocabulary(this.vocabulary, this.logitsWidth);
    return this.tokenizer;
  }

  /** The compiled tables when their shape is this model's (a last guard; their binding to the GGUF is checked before the load). */
  private compiledTables(): TokenizerInfo | undefined {
    if (!this.vocabularyTables) return undefined;
    try {
      const tables = TokenizerInfo.fromCacheBytes(this.vocabularyTables);
      return tables.numTokens === this.vocabulary.size && tables.vocabSize === this.logitsWidth ? tables : undefined;
    } catch {
      return undefined;
    }
  }

  private grammarOf(artifact: Uint8Array): CompiledGrammar {
    const key = createHash('sha256').update(artifact).digest('hex');
    let compiled = this.grammars.get(key);
    if (!compiled) {
      compiled = deserializeCompiledGrammar(artifact, this.tokenizerInfo());
      this.grammars.set(key, compiled);
      if (this.grammars.size > 64) this.grammars.delete(this.grammars.keys().next().value!);
    }
    return compiled;
  }
}

export function isAdmissionError(value: RequestState | EngineErrorInfo): value is EngineErrorInfo {
  return !(value instanceof RequestState);
}
