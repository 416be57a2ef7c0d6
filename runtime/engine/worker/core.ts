// The engine loop: plan a step, run it on the model, sample every sequence that got logits,
// and report what happened. Continuous batching: requests join and leave between any two
// steps. Everything else is delegated: admission.ts (request -> state), scheduler.ts (what
// runs), kv-manager.ts (cells and the prefix cache), model-runner.ts (the decode),
// token-commit.ts (what a sampled token does).
import { LmforgeError } from '../../../compiler/lmforge-error.js';
import type { LlamaContext } from '../../backend/context.js';
import { DecodeError } from '../../backend/context.js';
import type { Vocabulary } from '../../backend/vocabulary.js';
import { type EngineConfig, lengthLimitOf } from '../engine-config.js';
import { nowMicros } from '../clock.js';
import type { EngineErrorInfo, EngineEvent, EngineStats, GenerateRequest, TraceEntry } from '../protocol.js';
import { Admission, isAdmissionError } from './admission.js';
import { KvManager, mirroredKvOps } from './kv-manager.js';
import { ModelRunner } from './model-runner.js';
import { Scheduler, type StepPlan } from './scheduler.js';
import { StepProfile } from '../step-profile.js';
import type { RequestState, Sequence } from './sequence.js';
import { reusablePrefixLength } from './sliding-window.js';
import { MIN_PROMPT_TOKENS, StepBudget } from './step-budget.js';
import { TokenCommitter } from './token-commit.js';
import { Speculation, type SettledEntry } from './speculative/speculation.js';
import type { DraftProposer } from './speculative/proposers/proposer.js';
import type { SpeculativeMode } from '../speculative-modes.js';
import { verifyDraft } from './speculative/verify.js';
import { DeviceSampling, type DeviceLinks, type TokenMaskFactory } from './device-sampling.js';
import type { SampledToken } from '../../sampling/token-sampler.js';
import { checkAllowed } from '../../sampling/sampling-error.js';
import { PromptScoring } from './prompt-scoring.js';

/** Why a request leaves the engine; only finished and cancelled ones leave their cells to the cache. */
type Outcome = 'finished' | 'cancelled' | 'failed';

export class EngineCore {
  private readonly byId = new Map<number, RequestState>();
  private readonly kv: KvManager;
  private readonly scheduler: Scheduler;
  private readonly budget: StepBudget;
  private readonly runner: ModelRunner;
  private readonly admission: Admission;
  private readonly committer: TokenCommitter;
  private readonly promptScoring: PromptScoring;
  private readonly speculation: Speculation | undefined;
  /** Chains of the sequences sampled in the graph; undefined on the host path. */
  private readonly deviceSampling: DeviceSampling | undefined;
  private events: EngineEvent[] = [];
  private traces: TraceEntry[] = [];
  private steps = 0;
  private wake: (() => void) | undefined;
  private stopped = false;
  private loop: Promise<void> | undefined;
  /** Phase timings of decode steps (bench:host); undefined unless asked for, so the loop pays nothing. */
  private readonly profile: StepProfile | undefined;

  constructor(
    private readonly context: LlamaContext,
    vocabulary: Vocabulary,
    readonly config: EngineConfig,
    private readonly emit: (events: EngineEvent[]) => void,
    private readonly options: {
      /** Record trace entries (queueing, prefill chunks, decode steps, first token). */
      tracing?: boolean;
      /** A compiled folder's vocabulary tables for constrained decoding (see Admission). */
      vocabularyTables?: Uint8Array;
      /** The scheduler's promptStepFloor: prompts complete one at a time on a CPU. */
      promptStepFloor?: number;
      /** Split steps as ggml's CPU attention prefers (model-runner.ts). */
      splitSteps?: boolean;
      /** Prepare grammar masks while the decode runs (a GPU, or a CPU core to spare). */
      overlapMasks?: boolean;
      /** Speculative decoding: where drafts come from, spec_draft_length (0: adaptive), and small_draft's draft model or medusa's heads. */
      speculation?: { mode: SpeculativeMode; draftLength: number; proposer?: DraftProposer };
      /** Time each decode step's phases (step-profile.ts), reported in stats(). */
      profileSteps?: boolean;
      /**
       * Where tokens are chosen: in the model's graph for every request that can (device-sampling.ts),
       * or from logits rows here (host, the default). Device sampling needs one output per
       * sequence and step, so it cannot be combined with speculation.
       */
      sampling?: 'device' | 'host';
      /** Makes token mask links, so that masked requests (a grammar, allowed_token_ids, min_tokens, bad_words) sample on the device too (sampling 'device'). */
      tokenMasks?: TokenMaskFactory;
      /** lmforge's own sampler links: outputs, the logprobs tap, truncations (needed for sampling 'device'). */
      deviceLinks?: DeviceLinks;
    } = {},
  ) {
    this.profile = options.profileSteps ? new StepProfile() : undefined;
    this.kv = new KvManager(mirroredKvOps(context, options.speculation?.proposer?.mirror), {
      cells: config.maxTotalSeqLength,
      runningSlots: config.maxNumSequence,
      recyclingSlots: config.prefixCacheRecyclingSeqs,
      copiesCells: config.kvLayout === 'per-sequence',
      // A sliding-window model needs the window before a shared prefix's end still in the holder's cells.
      reusable: (matched, holder) => reusablePrefixLength(matched, context.minPosition(holder), config.slidingWindowSize),
    });
    if (context.sequences < this.kv.slotCount) {
      throw new Error(`the context has ${context.sequences} sequence ids; the engine needs ${this.kv.slotCount}`);
    }
    const speculation = options.speculation;
    this.runner = new ModelRunner(context, { wantHiddenStates: speculation?.proposer?.wantsHiddenStates ?? false, splitSteps: options.splitSteps ?? false });
    this.budget = new StepBudget({ chunk: config.prefillChunkSize, minTokens: MIN_PROMPT_TOKENS[config.kvLayout] });
    if (speculation && speculation.mode !== 'disable' && config.maxDraftTokens > 0) {
      this.speculation = new Speculation({
        draftLength: speculation.draftLength,
        tokenize: (text) => vocabulary.tokenize(text, { parseSpecial: false }),
        piece: (token) => vocabulary.piece(token),
        ...(speculation.proposer ? { proposer: speculation.proposer } : {}),
      });
    }
    this.scheduler = new Scheduler(
      this.kv,
      {
        maxTotalSeqLength: config.maxTotalSeqLength,
        batchCapacity: this.runner.capacity,
        shareAcrossRequests: config.prefixCacheRecyclingSeqs > 0,
        maxDraftTokens: config.maxDraftTokens,
        scoredRowsPerStep: config.scoredRowsPerStep,
        ...(options.promptStepFloor !== undefined ? { promptStepFloor: options.promptStepFloor } : {}),
      },
      this.budget,
      (state) => this.trace(state, 'queued', state.submittedAt, nowMicros() - state.submittedAt, { waiting: this.scheduler.waiting.length }),
      this.speculation && ((sequence, most, width) => this.speculation!.propose(sequence, most, width)),
      options.sampling === 'device' ? (sequence, slot) => this.deviceSampling!.rankSlot(sequence, slot) : undefined,
    );
    this.admission = new Admission(vocabulary, context.vocabSize, { maxNumSequence: config.maxNumSequence, lengthLimit: this.lengthLimit, ...(config.kvLayout === 'shared' ? { sharedCells: config.maxTotalSeqLength } : {}) }, { vocabularyTables: options.vocabularyTables, draftsPredictions: this.speculation !== undefined });
    this.committer = new TokenCommitter(vocabulary);
    this.promptScoring = new PromptScoring(vocabulary, context.vocabSize);
    if (options.sampling === 'device') {
      if (this.speculation) throw new Error('sampling on the device verifies no drafts: turn speculation off or sample on the host');
      if (!options.deviceLinks) throw new Error('sampling on the device needs lmforge\'s sampler links');
      this.deviceSampling = new DeviceSampling(context.model.api, context, options.deviceLinks, this.kv.slotCount, options.tokenMasks);
    }
  }

  /** Longest a sequence may grow (engine-config.ts lengthLimitOf). */
  get lengthLimit(): number {
    return lengthLimitOf(this.config);
  }

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
    this.deviceSampling?.dispose();
    this.runner.dispose();
  }

  submit(id: number, request: GenerateRequest): void {
    const state = this.admitted(id, request);
    if (isAdmissionError(state)) {
      this.events.push({ type: 'error', id, error: state });
    } else if (this.scheduler.waitingBeyondFreeSlots(state) > this.config.maxQueuedRequests) {
      const waiting = this.scheduler.waitingBeyondFreeSlots();
      const message = `the server is overloaded: ${waiting} ${waiting === 1 ? 'request is' : 'requests are'} already waiting; retry later`;
      this.events.push({ type: 'error', id, error: { code: 'server_is_overloaded', message } });
    } else {
      state.submittedAt = nowMicros();
      this.byId.set(id, state);
      this.scheduler.enqueue(state);
      this.events.push({ type: 'started', id, promptTokens: state.promptLength });
      if (request.promptLogprobs === true) {
        state.promptLogprobs = this.promptScoring.start(state.sequences[0]!.tokens);
        // A one-token prompt has nothing to score.
        if (!state.promptUnscored) this.sendPromptLogprobs(state);
      }
    }
    this.flushEvents();
    this.wake?.();
  }

  /** The request's state, or why it cannot run: whatever a request carries fails that request alone, never the loop. */
  private admitted(id: number, request: GenerateRequest): RequestState | EngineErrorInfo {
    try {
      return this.admission.admit(id, request);
    } catch (error) {
      return { code: 'invalid_request', message: `the request cannot run: ${(error as Error).message}` };
    }
  }

  cancel(id: number): void {
    const state = this.byId.get(id);
    if (!state) return;
    state.cancelled = true;
    // A queued request holds nothing and leaves at once; a running one is retired by the loop,
    // between steps, where no decode is using its cells.
    if (this.scheduler.waiting.includes(state)) this.retire(state, 'cancelled');
    this.wake?.();
  }

  /**
   * Text as a prompt is tokenized, the tokens or why not: a text longer than the context is
   * refused, as vLLM's /tokenize does, and only as much of it is tokenized as tells so
   * (Admission.tokenizeWithin: tokenizing megabytes would hold every running request's next step).
   */
  tokenize(text: string, addSpecial: boolean): Int32Array | EngineErrorInfo {
    const tokens = this.admission.tokenizeWithin(text, addSpecial);
    if (!(tokens instanceof Int32Array) || tokens.length <= this.lengthLimit) return tokens;
    return { code: 'context_length_exceeded', param: 'prompt', message: `This model's maximum context length is ${this.lengthLimit} tokens, but the text has ${tokens.length} tokens.` };
  }

  /** The vocabulary as grammar masks see it, serialized, for the compile workers to build first masks with. */
  grammarVocabularyBytes(): Uint8Array {
    return this.admission.tokenizerInfo().toCacheBytes();
  }

  stats(): EngineStats {
    const cached = this.kv.cachedOnlyCells;
    return {
      running: this.scheduler.running.length,
      waiting: this.scheduler.waiting.length,
      kvCellsUsed: this.kv.usedCells - cached,
      kvCellsCached: cached,
      cachedSequences: this.kv.recycledSlots,
      freeSlots: this.config.maxNumSequence - this.kv.runningSlotsInUse,
      steps: this.steps,
      preemptions: this.scheduler.preemptions,
      recomputedTokens: this.scheduler.recomputedTokens,
      draftTokens: this.speculation?.proposed ?? 0,
      acceptedDraftTokens: this.speculation?.accepted ?? 0,
      grammarCacheBytes: this.admission.cachedGrammarBytes,
      vocabularyCacheBytes: this.admission.vocabularyCacheBytes,
      draftPositions: { proposed: [...(this.speculation?.positions.proposed ?? [])], accepted: [...(this.speculation?.positions.accepted ?? [])] },
      ...(this.profile ? { stepProfile: this.profile.snapshot(), allSteps: this.profile.allSteps() } : {}),
      ...(this.deviceSampling ? { samplerReplans: this.deviceSampling.replans } : {}),
    };
  }

  /** Steps so far, and whether any request is held: a count that stays while busy means a stuck step. */
  progress(): { steps: number; busy: boolean } {
    return { steps: this.steps, busy: this.scheduler.running.length + this.scheduler.waiting.length > 0 };
  }

  private async run(): Promise<void> {
    const profile = this.profile;
    while (!this.stopped) {
      profile?.begin();
      for (const state of [...this.scheduler.running]) if (state.cancelled) this.retire(state, 'cancelled');
      if (this.speculation) {
        try {
          await this.speculation.beforeStep(() => this.decodingSequences());
        } catch (error) {
          this.recoverFromDecodeFailure(error);
          continue;
        }
      }
      // Drafting is judged by the whole step: proposing (n-gram lookups, forced text), the
      // decode, and verifying (a grammar mask per drafted position) all grow with the drafts.
      // Sampling on the device, a grammar's mask goes up with the decode that samples with it:
      // masks are brought up to date before the step (a failure then ends its request before
      // it is planned), not while it decodes.
      const masksFirst = this.deviceSampling !== undefined && this.anyGrammar();
      if (masksFirst) this.refreshMasks();
      const planStart = nowMicros();
      const plan = this.scheduler.schedule();
      profile?.lap('plan');
      if (plan.entries.length === 0) {
        // Idle: nothing runs, so only a submit, a cancel or stop() can change anything.
        this.flushEvents();
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
        // The first request's message woke the loop. Requests sent in the same tick came in
        // the same message (Engine.send); those sent just after, in messages of their own,
        // are taken too before the first step, so that they can share it: a GPU packs their
        // prompts, a CPU short ones (scheduler.ts promptStepFloor).
        await new Promise<void>((resolve) => setImmediate(resolve));
        continue;
      }
      const stepStart = nowMicros();
      let onDevice: boolean[] | undefined;
      try {
        onDevice = this.deviceSampling?.prepare(plan.entries);
        // While llama.cpp decodes, the next grammar masks are prepared here, when that costs the
        // decode nothing: on a GPU, or with a CPU core llama.cpp leaves free. With every core
        // decoding, JavaScript work in parallel slowed constrained decoding by ~5% (bench:constrained,
        // width 16: 0.94-0.95 overlapped against 0.98 after the decode), so then it waits.
        // Without a grammar there is nothing to overlap: the runner then decodes on this thread.
        // Sampling on the device, masks are done before the step, and a step with a mask link
        // stays on this thread: llama_decode calls the link's JavaScript hooks, which from a libuv
        // thread would each wait for this one.
        const overlap = this.options.overlapMasks && !this.deviceSampling && this.anyGrammar();
        await this.runner.run(plan.entries, overlap ? () => this.refreshMasks() : undefined, onDevice, profile);
        // Masks done before the step need nothing more until the step's tokens are committed.
        if (!this.options.overlapMasks && !masksFirst) this.refreshMasks();
        profile?.lap('sample');
      } catch (error) {
        this.recoverFromDecodeFailure(error);
        continue;
      }
      const micros = nowMicros() - stepStart;
      // Draft positions cost what prompt positions do: they count with them.
      this.budget.observe(plan.decoding, plan.tokens - plan.decoding, micros);
      this.scheduler.update(plan);
      this.steps++;
      if (this.options.tracing) this.traceStep(plan, stepStart, micros);
      profile?.lap('plan');
      const acceptedDrafts = plan.entries.map(() => 0);
      const settled: SettledEntry[] = [];
      plan.entries.forEach((entry, index) => {
        const { sequence } = entry;
        let accepted = 0;
        if (entry.promptRows > 0 && !sequence.request.cancelled && !sequence.request.failed) {
          try {
            if (this.promptScoring.score(entry, (k) => this.runner.promptLogits(index, k))) this.sendPromptLogprobs(sequence.request);
          } catch (error) {
            this.fail(sequence.request, error);
          }
        }
        if (entry.logits > entry.promptRows && !sequence.request.cancelled && !sequence.request.failed) {
          try {
            // max_tokens 0: the prompt alone was wanted (computed, and scored when asked).
            if (sequence.request.request.maxTokens === 0) this.committer.finish(sequence, 'length');
            else if (onDevice?.[index]) this.commitSampled(sequence, this.runner.sampled(index, sequence.sampler.params.logprobs));
            else if (entry.draft.length === 0) this.sampleAndCommit(sequence, this.runner.logits(index));
            else accepted = this.verify(entry.sequence, entry.draft, index);
            settled.push({ index, sequence, drafted: entry.draft.length, accepted, finished: sequence.finish !== undefined });
          } catch (error) {
            // A failure while sampling (NaN logits, a mask that allows nothing) ends this request only.
            this.fail(sequence.request, error);
          }
        }
        this.scheduler.settleDraft(entry, accepted);
        acceptedDrafts[index] = accepted;
      });
      if (this.speculation) {
        try {
          const hiddenState = (index: number, accepted: number) => this.runner.hiddenState(index, accepted);
          await this.speculation.afterStep({ plan, accepted: acceptedDrafts, settled, hiddenState, plannedAt: planStart });
        } catch (error) {
          this.recoverFromDecodeFailure(error);
          continue;
        }
      }
      profile?.lap('commit');
      this.collectOutput();
      profile?.lap('collect');
      this.flushEvents();
      profile?.lap('emit');
      profile?.end(plan.tokens === plan.decoding && plan.drafted === 0, plan.decoding, this.kv.usedCells);
    }
  }

  private sampleAndCommit(sequence: Sequence, logits: Float32Array): void {
    if (this.committer.endIfGrammarComplete(sequence)) return;
    const profile = this.profile;
    if (!profile) {
      this.committer.commit(sequence, sequence.sampler.sample(logits, sequence.allowedMask()));
      return;
    }
    // Sampling is timed apart from the commit that the enclosing lap charges.
    const start = performance.now();
    const sampled = sequence.sampler.sample(logits, sequence.allowedMask());
    const sampling = performance.now() - start;
    profile.add('sample', sampling);
    profile.subtract('commit', sampling);
    this.committer.commit(sequence, sampled);
  }

  /** Commits the token the graph chose, and tells the sequence's chain (its penalties). */
  private commitSampled(sequence: Sequence, sampled: SampledToken): void {
    // As on the host: a grammar that allows only its end ends the output; the drawn token (an end token) is dropped.
    this.deviceSampling!.verify(sequence);
    if (this.committer.endIfGrammarComplete(sequence)) return;
    // Its mask, as the chain's mask link had it: never fail open on a token outside it.
    checkAllowed(sequence.allowedMask(), sampled.token, sequence.sampler.vocabSize);
    this.committer.commit(sequence, sampled);
    this.deviceSampling!.accept(sequence, sampled.token);
  }

  /** Sequences whose next step computes the one token they sampled last. */
  private decodingSequences(): Sequence[] {
    const sequences: Sequence[] = [];
    for (const state of this.scheduler.running) {
      if (state.cancelled || state.failed) continue;
      for (const sequence of state.sequences) if (sequence.finish === undefined && sequence.slot >= 0 && sequence.pending === 1) sequences.push(sequence);
    }
    return sequences;
  }

  /** Commits what the target chose at each drafted position; returns the draft tokens accepted. */
  private verify(sequence: Sequence, draft: number[], index: number): number {
    const accepted = verifyDraft(sequence, draft, (k) => this.runner.logits(index, k), (s, logits) => this.sampleAndCommit(s, logits));
    this.trace(sequence.request, 'speculation', nowMicros(), undefined, { choice: sequence.choice, proposed: draft.length, accepted, step: this.steps });
    return accepted;
  }

  private anyGrammar(): boolean {
    return this.scheduler.running.some((state) => state.sequences.some((sequence) => sequence.grammar !== undefined));
  }

  /** Brings every stale grammar mask up to date; runs while a decode is in flight. */
  private refreshMasks(): void {
    for (const state of [...this.scheduler.running]) {
      if (state.failed || state.cancelled) continue;
      try {
        for (const sequence of state.sequences) if (sequence.finish === undefined) sequence.grammar?.refresh();
      } catch (error) {
        this.fail(state, error);
      }
    }
  }

  private recoverFromDecodeFailure(error: unknown): void {
    if (error instanceof DecodeError && error.code === 1 && this.scheduler.preemptYoungest()) return;
    // Nothing left to make room with, or a genuine failure: end what was running, keep serving.
    const message = error instanceof Error ? error.message : String(error);
    for (const state of [...this.scheduler.running]) {
      this.retire(state, 'failed');
      this.events.push({ type: 'error', id: state.id, error: { code: 'internal_error', message: `decode failed: ${message}` } });
    }
    this.flushEvents();
  }

  /** Turns what each sequence gathered this step into events; retires finished requests. */
  private collectOutput(): void {
    for (const state of [...this.scheduler.running]) {
      for (const sequence of state.sequences) {
        if (sequence.pendingTokens.length > 0 || sequence.pendingText !== '') {
          this.events.push({
            type: 'delta',
            id: state.id,
            choice: sequence.choice,
            text: sequence.pendingText,
            tokens: sequence.pendingTokens,
            ...(sequence.pendingLogprobs ? { logprobs: sequence.pendingLogprobs } : {}),
            ...(state.cachedTokens !== undefined && !state.cachedTokensSent ? { cachedTokens: state.cachedTokens } : {}),
          });
          if (state.cachedTokens !== undefined) state.cachedTokensSent = true;
          sequence.pendingText = '';
          sequence.pendingTokens = [];
          if (sequence.pendingLogprobs) sequence.pendingLogprobs = [];
        }
        if (sequence.finish !== undefined && sequence.slot >= 0) {
          this.scheduler.release(sequence, true);
          this.events.push({
            type: 'finished',
            id: state.id,
            choice: sequence.choice,
            reason: sequence.finish,
            completionTokens: sequence.generated,
            cachedTokens: state.cachedTokens ?? 0,
            ...(sequence.endLogprob ? { endLogprob: sequence.endLogprob } : {}),
            ...(state.predicted ? { prediction: { accepted: sequence.predictionAccepted, rejected: sequence.predictionRejected } } : {}),
          });
          this.trace(state, 'finished', nowMicros(), undefined, { choice: sequence.choice, reason: sequence.finish, tokens: sequence.generated });
        }
      }
      if (state.done) this.retire(state, 'finished');
    }
  }

  /** The request's scored prompt, once whole: before any choice's first output (collectOutput runs after). */
  private sendPromptLogprobs(state: RequestState): void {
    this.events.push({ type: 'prompt_logprobs', id: state.id, choice: 0, tokens: state.promptLogprobs! });
  }

  private fail(state: RequestState, error: unknown): void {
    state.failed = true;
    this.retire(state, 'failed');
    const message = error instanceof Error ? error.message : String(error);
    // A failure the request caused (a format it cannot meet) is told as its own, not as the server's.
    const code = error instanceof LmforgeError && error.status === 400 ? 'invalid_request' : 'internal_error';
    this.events.push({ type: 'error', id: state.id, error: { code, message: `generation failed: ${message}` } });
  }

  /** The one place a request leaves the engine. */
  private retire(state: RequestState, outcome: Outcome): void {
    this.scheduler.retire(state, outcome === 'finished' || outcome === 'cancelled');
    this.byId.delete(state.id);
    if (outcome === 'cancelled') this.trace(state, 'cancelled', nowMicros());
  }

  private trace(state: RequestState, name: string, ts: number, dur?: number, args?: Record<string, number | string>): void {
    const traceId = state.request.traceId;
    if (!this.options.tracing || traceId === undefined) return;
    this.traces.push({ traceId, name, ts, ...(dur !== undefined ? { dur } : {}), ...(args ? { args } : {}) });
  }

  /** One span per request and step: a prefill chunk or a decode step, with the batch it shared. */
  private traceStep(plan: StepPlan, ts: number, dur: number): void {
    const batchTokens = this.runner.batchTokens;
    for (const entry of plan.entries) {
      const { sequence } = entry;
      const prefill = entry.start < sequence.promptLength || entry.count > 1;
      this.trace(sequence.request, prefill ? 'prefill chunk' : 'decode step', ts, dur, {
        choice: sequence.choice,
        tokens: entry.count,
        from: entry.start,
        batch_tokens: batchTokens,
        step: this.steps,
      });
      if (entry.logits > entry.promptRows && sequence.generated === 1 && sequence.choice === 0) this.trace(sequence.request, 'first token', ts + dur);
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
