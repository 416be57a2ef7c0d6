// The engine loop: admit waiting requests, plan a step, decode it, sample every sequence
// that got logits, and report what happened. Continuous batching: requests join and leave
// between any two steps.
import type { LlamaContext } from '../backend/context.js';
import { DecodeError } from '../backend/context.js';
import { Batch } from '../backend/batch.js';
import type { Vocabulary } from '../backend/vocabulary.js';
import {
  SamplingScratch,
  SeededRng,
  StopStringMatcher,
  TokenSampler,
  Utf8StreamDecoder,
  defaultSamplingParams,
  type SamplingParams,
} from '../sampling/index.js';
import type { EngineConfig } from './engine-config.js';
import { createHash } from 'node:crypto';
import { deserializeCompiledGrammar, type CompiledGrammar, type TokenizerInfo } from '../../compiler/index.js';
import { grammarVocabulary } from './grammar-vocabulary.js';
import { GrammarConstraint } from '../sampling/grammar-constraint.js';
import { nowMicros } from './clock.js';
import type { EngineErrorInfo, EngineEvent, EngineStats, FinishReason, GenerateRequest, TokenLogprob, TraceEntry } from './protocol.js';
import { planStep, type StepEntry } from './scheduler.js';
import { RequestState, Sequence } from './sequence.js';

const NO_BYTES = new Uint8Array(0);

export class EngineCore {
  private readonly waiting: RequestState[] = [];
  private readonly running: RequestState[] = [];
  private readonly byId = new Map<number, RequestState>();
  private readonly freeSlots: number[];
  private readonly batch: Batch;
  private readonly scratch: SamplingScratch;
  private events: EngineEvent[] = [];
  private traces: TraceEntry[] = [];
  private admissions = 0;
  private steps = 0;
  private preemptions = 0;
  private wake: (() => void) | undefined;
  private tokenizer: TokenizerInfo | undefined;
  /** Turn-opening control tokens by the template text they come from (one template per server). */
  private readonly turnOpeners = new Map<string, ReadonlySet<number>>();
  /** Deserialized grammars by artifact hash, so their lazily built masks serve later requests too. */
  private readonly grammars = new Map<string, CompiledGrammar>();
  private stopped = false;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly context: LlamaContext,
    private readonly vocabulary: Vocabulary,
    readonly config: EngineConfig,
    private readonly emit: (events: EngineEvent[]) => void,
    private readonly options: {
      /** Record trace entries (queueing, prefill chunks, decode steps, first token). */
      tracing?: boolean;
      /** Prepare grammar masks while the decode runs (a GPU, or a CPU core to spare). */
      overlapMasks?: boolean;
    } = {},
  ) {
    this.freeSlots = Array.from({ length: config.maxNumSequence }, (_, i) => config.maxNumSequence - 1 - i);
    this.batch = new Batch(context.batchSize);
    this.scratch = new SamplingScratch(context.vocabSize);
  }

  /** Longest a sequence may grow: the context window, within the shared KV budget. */
  get lengthLimit(): number {
    return Math.min(this.config.contextWindowSize, this.config.maxTotalSeqLength);
  }

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
    this.batch.dispose();
  }

  submit(id: number, request: GenerateRequest): void {
    const error = this.accept(id, request);
    if (error) this.events.push({ type: 'error', id, error });
    this.flushEvents();
    this.wake?.();
  }

  cancel(id: number): void {
    const state = this.byId.get(id);
    if (!state) return;
    state.cancelled = true;
    const queued = this.waiting.indexOf(state);
    if (queued >= 0) {
      this.waiting.splice(queued, 1);
      this.byId.delete(id);
    }
    // A running request is released by the loop, between steps, where no decode is using its cells.
    this.wake?.();
  }

  stats(): EngineStats {
    return {
      running: this.running.length,
      waiting: this.waiting.length,
      kvCellsUsed: this.cellsUsed(),
      freeSlots: this.freeSlots.length,
      steps: this.steps,
      preemptions: this.preemptions,
    };
  }

  private accept(id: number, request: GenerateRequest): EngineErrorInfo | undefined {
    const n = request.n ?? 1;
    if (!Number.isInteger(n) || n < 1 || n > this.config.maxNumSequence) {
      return { code: 'invalid_request', param: 'n', message: `n=${n} is not possible: this server decodes at most ${this.config.maxNumSequence} sequences together (max_num_sequence)` };
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
    if (prompt.length === 0) return { code: 'invalid_request', param: 'messages', message: 'the prompt is empty after tokenization' };
    for (const token of prompt) {
      if (token < 0 || token >= this.vocabulary.size) return { code: 'invalid_request', param: 'prompt', message: `prompt token ${token} is not in the vocabulary` };
    }
    const limit = this.lengthLimit;
    const wanted = request.maxTokens ?? 1;
    if (prompt.length + wanted > limit) {
      return {
        code: 'context_length_exceeded',
        param: 'messages',
        message:
          request.maxTokens === undefined
            ? `This model's maximum context length is ${limit} tokens, but the prompt has ${prompt.length} tokens, leaving no room for output.`
            : `This model's maximum context length is ${limit} tokens, but ${prompt.length + wanted} were requested (${prompt.length} in the prompt, ${wanted} for max_tokens).`,
      };
    }
    if (this.waiting.length >= this.config.maxQueuedRequests) {
      return { code: 'server_is_overloaded', message: `the server is overloaded: ${this.waiting.length} requests are already waiting; retry later` };
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
    state.submittedAt = nowMicros();
    this.byId.set(id, state);
    this.waiting.push(state);
    this.events.push({ type: 'started', id, promptTokens: prompt.length });
    return undefined;
  }

  /** The control tokens (end-of-generation ones aside) in the text a template opens a turn with. */
  private turnOpenersOf(text: string | undefined): ReadonlySet<number> {
    if (!text) return new Set();
    let tokens = this.turnOpeners.get(text);
    if (!tokens) {
      const ids = this.vocabulary.tokenize(text, { parseSpecial: true });
      tokens = new Set(Array.from(ids).filter((id) => this.vocabulary.isControl(id) && !this.vocabulary.isEndOfGeneration(id)));
      this.turnOpeners.set(text, tokens);
      if (this.turnOpeners.size > 16) this.turnOpeners.delete(this.turnOpeners.keys().next().value!);
    }
    return tokens;
  }

  /** The vocabulary as the grammar compiler sees it, built on the first constrained request. */
  private tokenizerInfo(): TokenizerInfo {
    this.tokenizer ??= grammarVocabulary(this.vocabulary, this.context.vocabSize);
    return this.tokenizer;
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

  /** Brings every stale grammar mask up to date; runs while a decode is in flight. */
  private refreshMasks(): void {
    for (const state of [...this.running]) {
      if (state.failed || state.cancelled) continue;
      try {
        for (const sequence of state.sequences) if (sequence.finish === undefined) sequence.grammar?.refresh();
      } catch (error) {
        this.failRequest(state, error);
      }
    }
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      this.releaseCancelled();
      this.admit();
      this.sharePrompts();
      const plan = this.planWithinBudget();
      if (plan.entries.length === 0) {
        // Idle: nothing runs, so only a submit, a cancel or stop() can change anything.
        this.flushEvents();
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
        continue;
      }
      this.batch.clear();
      const rows: number[] = [];
      for (const entry of plan.entries) {
        const { sequence } = entry;
        for (let i = 0; i < entry.count; i++) {
          const index = entry.start + i;
          const last = i === entry.count - 1;
          const row = this.batch.add(sequence.tokens[index]!, index, sequence.slot, entry.logits && last);
          if (last) rows.push(row);
        }
      }
      const stepStart = nowMicros();
      try {
        const decoding = this.context.decode(this.batch);
        // While llama.cpp decodes, the next grammar masks are prepared here, when that costs the
        // decode nothing: on a GPU, or with a CPU core llama.cpp leaves free. With every core
        // decoding, JavaScript work in parallel slowed constrained decoding by ~5% (bench:constrained,
        // width 16: 0.94-0.95 overlapped against 0.98 after the decode), so then it waits.
        if (this.options.overlapMasks) this.refreshMasks();
        await decoding;
        if (!this.options.overlapMasks) this.refreshMasks();
      } catch (error) {
        this.recoverFromDecodeFailure(error);
        continue;
      }
      this.steps++;
      if (this.options.tracing) this.traceStep(plan.entries, stepStart, nowMicros() - stepStart);
      const outputs = this.batch.outputs;
      plan.entries.forEach((entry, k) => {
        const { sequence } = entry;
        sequence.computed += entry.count;
        if (!entry.logits || sequence.request.cancelled || sequence.request.failed) return;
        const logits = this.context.logits(rows[k]!, outputs);
        const wasPrompt = sequence.generated === 0 && sequence.computed === sequence.promptLength;
        try {
          this.advance(sequence, logits);
          // The other choices of a fresh request share the prompt's cells and its last logits.
          if (sequence.choice === 0 && wasPrompt) {
            for (const follower of sequence.request.sequences) {
              if (follower === sequence || follower.computed > 0 || follower.generated > 0 || follower.slot < 0) continue;
              this.context.copySequence(sequence.slot, follower.slot, 0, sequence.promptLength);
              follower.computed = sequence.promptLength;
              follower.sharedCells = sequence.promptLength;
              this.advance(follower, logits);
            }
          }
        } catch (error) {
          // A failure while sampling (NaN logits, a mask that allows nothing) ends this request only.
          this.failRequest(sequence.request, error);
        }
      });
      this.collectOutput();
      this.flushEvents();
    }
  }

  /** Moves waiting requests into free slots, oldest first, while slots and KV cells allow. */
  private admit(): void {
    while (this.waiting.length > 0) {
      const next = this.waiting[0]!;
      const live = next.sequences.filter((s) => s.finish === undefined);
      const cells = this.projectedCells(next);
      if (live.length > this.freeSlots.length) break;
      if (this.running.length > 0 && this.cellsCommitted() + cells > this.config.maxTotalSeqLength) break;
      this.waiting.shift();
      for (const sequence of live) sequence.slot = this.freeSlots.pop()!;
      next.admittedAt = this.admissions++;
      this.running.push(next);
      this.trace(next, 'queued', next.submittedAt, nowMicros() - next.submittedAt, { waiting: this.waiting.length });
    }
  }

  /** Cells a request will hold once its known tokens are computed (choices share the prompt). */
  private projectedCells(state: RequestState): number {
    let cells = 0;
    for (const sequence of state.sequences) {
      if (sequence.finish !== undefined) continue;
      cells += sequence.tokens.length + 1 - (sequence.choice > 0 ? state.promptLength : 0);
    }
    return cells;
  }

  private cellsCommitted(): number {
    let cells = 0;
    for (const state of this.running) cells += this.projectedCells(state);
    return cells;
  }

  private cellsUsed(): number {
    let cells = 0;
    for (const state of this.running) for (const sequence of state.sequences) if (sequence.slot >= 0) cells += sequence.ownCells;
    return cells;
  }

  /** A resumed choice whose leader already holds the prompt takes it by copy instead of recomputing. */
  private sharePrompts(): void {
    for (const state of this.running) {
      const leader = state.sequences[0]!;
      if (leader.slot < 0 || leader.computed < state.promptLength) continue;
      for (const follower of state.sequences) {
        if (follower === leader || follower.slot < 0 || follower.computed > 0 || follower.generated === 0) continue;
        this.context.copySequence(leader.slot, follower.slot, 0, state.promptLength);
        follower.computed = state.promptLength;
        follower.sharedCells = state.promptLength;
      }
    }
  }

  /** Plans a step; when the KV budget cannot hold it, the youngest request is preempted (recomputed later). */
  private planWithinBudget() {
    const limits = { prefillChunkSize: this.config.prefillChunkSize, batchCapacity: this.batch.capacity };
    for (;;) {
      const plan = planStep(this.runningSequences(), limits);
      if (this.cellsUsed() + plan.tokens <= this.config.maxTotalSeqLength) return plan;
      if (!this.preemptYoungest()) return plan;
    }
  }

  private runningSequences(): Sequence[] {
    const sequences: Sequence[] = [];
    for (const state of this.running) for (const sequence of state.sequences) sequences.push(sequence);
    return sequences;
  }

  /** Frees the youngest running request's cells and puts it back at the head of the queue. */
  private preemptYoungest(): boolean {
    if (this.running.length < 2) return false;
    const victim = this.running.reduce((a, b) => (b.admittedAt > a.admittedAt ? b : a));
    this.running.splice(this.running.indexOf(victim), 1);
    for (const sequence of victim.sequences) {
      if (sequence.slot >= 0) this.releaseSlot(sequence);
      sequence.computed = 0;
      sequence.sharedCells = 0;
    }
    this.waiting.unshift(victim);
    this.preemptions++;
    return true;
  }

  private recoverFromDecodeFailure(error: unknown): void {
    if (error instanceof DecodeError && error.code === 1 && this.preemptYoungest()) return;
    // Nothing left to make room with, or a genuine failure: end what was running, keep serving.
    const message = error instanceof Error ? error.message : String(error);
    for (const state of this.running.splice(0)) {
      for (const sequence of state.sequences) if (sequence.slot >= 0) this.releaseSlot(sequence);
      this.byId.delete(state.id);
      this.events.push({ type: 'error', id: state.id, error: { code: 'internal_error', message: `decode failed: ${message}` } });
    }
    this.flushEvents();
  }

  /** Samples the next token of a sequence from its logits and applies every stop rule. */
  private advance(sequence: Sequence, logits: Float32Array): void {
    const { request } = sequence.request;
    const grammar = sequence.grammar;
    if (grammar) {
      grammar.refresh(); // a no-op unless the mask could not be prepared during the decode
      if (grammar.onlyEndAllowed()) {
        this.finish(sequence, 'stop'); // the grammar is complete: its end finishes the choice
        return;
      }
    }
    const sampled = sequence.sampler.sample(logits, grammar?.mask);
    const token = sampled.token;
    sequence.generated++;
    // With a grammar, an end-of-generation token is only allowed where the grammar can end.
    if (this.vocabulary.isEndOfGeneration(token) && (!request.ignoreEos || grammar)) {
      this.finish(sequence, 'stop');
      return;
    }
    // A control token the grammar did not ask for is markup, not content; one that opens a turn
    // means the model has finished its own (SmolLM2 writes <|im_start|> after an answer).
    const strayControl = !grammar && this.vocabulary.isControl(token);
    if (strayControl && !request.ignoreEos && sequence.request.turnOpeners.has(token)) {
      this.finish(sequence, 'stop');
      return;
    }
    grammar?.accept(token);
    sequence.tokens.push(token);
    sequence.sampler.accept(token);
    const piece = this.vocabulary.piece(token);
    sequence.pendingTokens.push(token);
    if (sequence.pendingLogprobs) sequence.pendingLogprobs.push(this.describeLogprobs(sampled, piece));
    const text = strayControl && request.skipSpecialTokens !== false ? NO_BYTES : piece;
    const pushed = sequence.stopMatcher.push(sequence.decoder.push(text));
    sequence.pendingText += pushed.emit;
    if (pushed.stopped) {
      sequence.finish = 'stop';
      return;
    }
    if (grammar && grammar.matcher.isCompleted()) {
      // Where the grammar may end, see now whether it must: that saves a decode step.
      grammar.refresh();
      if (grammar.onlyEndAllowed()) {
        this.finish(sequence, 'stop');
        return;
      }
    }
    if (request.maxTokens !== undefined && sequence.generated >= request.maxTokens) this.finish(sequence, 'length');
    else if (sequence.tokens.length >= sequence.request.lengthLimit) this.finish(sequence, 'length');
  }

  /** Ends a sequence for a reason other than a stop string: withheld text is released (or was a stop). */
  private finish(sequence: Sequence, reason: FinishReason): void {
    const pushed = sequence.stopMatcher.push(sequence.decoder.flush());
    sequence.pendingText += pushed.emit;
    if (pushed.stopped) {
      sequence.finish = 'stop';
      return;
    }
    sequence.pendingText += sequence.stopMatcher.flush();
    sequence.finish = reason;
  }

  private describeLogprobs(sampled: ReturnType<TokenSampler['sample']>, piece: Uint8Array): TokenLogprob {
    return {
      token: sampled.token,
      logprob: sampled.logprob ?? 0,
      bytes: Array.from(piece),
      top: (sampled.topLogprobs ?? []).map((entry) => ({
        token: entry.token,
        logprob: entry.logprob,
        bytes: Array.from(this.vocabulary.piece(entry.token)),
      })),
    };
  }

  /** Turns what each sequence gathered this step into events; retires finished requests. */
  private collectOutput(): void {
    for (let i = this.running.length - 1; i >= 0; i--) {
      const state = this.running[i]!;
      for (const sequence of state.sequences) {
        if (sequence.pendingTokens.length > 0 || sequence.pendingText !== '') {
          this.events.push({
            type: 'delta',
            id: state.id,
            choice: sequence.choice,
            text: sequence.pendingText,
            tokens: sequence.pendingTokens,
            ...(sequence.pendingLogprobs ? { logprobs: sequence.pendingLogprobs } : {}),
          });
          sequence.pendingText = '';
          sequence.pendingTokens = [];
          if (sequence.pendingLogprobs) sequence.pendingLogprobs = [];
        }
        if (sequence.finish !== undefined && sequence.slot >= 0) {
          this.releaseSlot(sequence);
          this.events.push({ type: 'finished', id: state.id, choice: sequence.choice, reason: sequence.finish, completionTokens: sequence.generated });
          this.trace(state, 'finished', nowMicros(), undefined, { choice: sequence.choice, reason: sequence.finish, tokens: sequence.generated });
        }
      }
      if (state.done) {
        this.running.splice(i, 1);
        this.byId.delete(state.id);
      }
    }
  }

  private failRequest(state: RequestState, error: unknown): void {
    state.failed = true;
    for (const sequence of state.sequences) if (sequence.slot >= 0) this.releaseSlot(sequence);
    this.running.splice(this.running.indexOf(state), 1);
    this.byId.delete(state.id);
    const message = error instanceof Error ? error.message : String(error);
    this.events.push({ type: 'error', id: state.id, error: { code: 'internal_error', message: `generation failed: ${message}` } });
  }

  private releaseCancelled(): void {
    for (let i = this.running.length - 1; i >= 0; i--) {
      const state = this.running[i]!;
      if (!state.cancelled) continue;
      for (const sequence of state.sequences) if (sequence.slot >= 0) this.releaseSlot(sequence);
      this.trace(state, 'cancelled', nowMicros());
      this.running.splice(i, 1);
      this.byId.delete(state.id);
    }
  }

  private releaseSlot(sequence: Sequence): void {
    this.context.removeTokens(sequence.slot);
    this.freeSlots.push(sequence.slot);
    sequence.slot = -1;
  }

  private trace(state: RequestState, name: string, ts: number, dur?: number, args?: Record<string, number | string>): void {
    const traceId = state.request.traceId;
    if (!this.options.tracing || traceId === undefined) return;
    this.traces.push({ traceId, name, ts, ...(dur !== undefined ? { dur } : {}), ...(args ? { args } : {}) });
  }

  /** One span per request and step: a prefill chunk or a decode step, with the batch it shared. */
  private traceStep(entries: readonly StepEntry[], ts: number, dur: number): void {
    const batchTokens = this.batch.length;
    for (const entry of entries) {
      const { sequence } = entry;
      const prefill = entry.start < sequence.promptLength || entry.count > 1;
      this.trace(sequence.request, prefill ? 'prefill chunk' : 'decode step', ts, dur, {
        choice: sequence.choice,
        tokens: entry.count,
        from: entry.start,
        batch_tokens: batchTokens,
        step: this.steps,
      });
      if (entry.logits && sequence.generated === 1 && sequence.choice === 0) this.trace(sequence.request, 'first token', ts + dur);
    }
  }

  private flushEvents(): void {
    if (this.traces.length > 0) {
      this.events.push({ type: 'trace', id: 0, entries: this.traces });
      this.traces = [];
    }
    if (this.events.length === 0) return;
    const events = this.events;
    this.events = [];
    this.emit(events);
  }
}
