// The engine as the server sees it: start it (a child process by default), submit requests,
// read their events. It also supervises that process: when it dies (a backend abort, a
// segfault, an out-of-memory kill), the requests it held end with engine_failed, and another
// starts after a back-off (restart-backoff.ts) while /health says engine_restarting.
//
//   const engine = await Engine.create({ modelPath, device: 'auto', mode: 'local', overrides: {} });
//   for await (const event of engine.generate({ prompt: 'Hello', maxTokens: 16 })) { ... }
//   await engine.dispose();
import { LmforgeError, type ErrorFields } from '../../../compiler/lmforge-error.js';
import { forkEngine } from './engine-child.js';
import { startEngineThread, type EngineEnd, type EngineTransport } from './engine-transport.js';
import { GrammarService, type GrammarCacheCounts } from '../../grammar-service/grammar-service.js';
import { probeFailureLine, type ProbeTarget } from '../probe-failure.js';
import { RestartBackoff } from './restart-backoff.js';
import { checkedEngineOptions, type EngineCreateOptions } from './check-engine-options.js';
import type { GrammarSpec } from '../../grammar-service/grammar-spec.js';
import type { EngineErrorInfo, EngineEvent, EngineInfo, EngineInitOptions, EngineStats, FromWorker, GenerateRequest, ToWorker, TraceEntry } from '../protocol.js';

export class EngineStartError extends LmforgeError {
  override name = 'EngineStartError';
  constructor(message: string, userFacing: boolean) {
    super(message, { userFacing });
  }
}

/** What each refusal of the engine is, as an HTTP status and OpenAI error. */
const ENGINE_ERROR_FIELDS: Record<EngineErrorInfo['code'], ErrorFields> = {
  context_length_exceeded: { status: 400, code: 'context_length_exceeded' },
  server_is_overloaded: { status: 503, code: 'server_is_overloaded' },
  invalid_request: { status: 400 },
  internal_error: { status: 500, code: 'internal_error' },
  // The engine's process died; the server restarts it: a retry later is answered.
  engine_failed: { status: 503, code: 'engine_failed' },
  // The server stopped before the request finished (its drain time ran out): another server answers a retry.
  shutting_down: { status: 503, code: 'server_shutting_down' },
};

/**
 * An error the engine reported for one request (the others keep running). Its message is for the
 * client, whatever the code: `param` is the engine's (`prompt` for the prompt itself), which
 * the endpoint renames (to-api-error.ts).
 */
export class EngineRequestError extends LmforgeError {
  override name = 'EngineRequestError';
  constructor(readonly info: EngineErrorInfo) {
    const fields = ENGINE_ERROR_FIELDS[info.code] ?? ENGINE_ERROR_FIELDS.internal_error;
    const param = info.code === 'context_length_exceeded' ? (info.param ?? 'prompt') : info.code === 'invalid_request' ? (info.param ?? null) : null;
    super(info.message, { ...fields, param, userFacing: true });
  }
}

/** SGLang's watchdog default: far beyond any step (a CPU's longest prompt chunk takes seconds), well short of for ever. */
const DEFAULT_WATCHDOG_MS = 300_000;
/** No progress for this long is reported as a stall: ten heartbeats, and more than a CPU's long prompt chunk takes. */
const STALL_REPORT_MS = 10_000;

/** Signals a process gets from outside, never from a fault of its own code. */
const OUTSIDE_SIGNALS: ReadonlySet<string> = new Set(['SIGKILL', 'SIGTERM', 'SIGINT', 'SIGHUP']);

interface Pending {
  push(event: EngineEvent): void;
  /** Lets a waiting generator look at its abort signal again. */
  wake(): void;
}

interface Waiter<T> {
  resolve(value: T): void;
  reject(error: Error): void;
}

/** serving: requests go to the engine; restarting: it died and another is starting; stopped: disposed. */
type EngineState = 'serving' | 'restarting' | 'stopped';

export class Engine {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private statsWaiters: Waiter<EngineStats>[] = [];
  private readonly detokenizeWaiters = new Map<number, Waiter<string>>();
  private readonly tokenizeWaiters = new Map<number, Waiter<number[]>>();
  private state: EngineState = 'serving';
  /** Resolves when the current engine's thread or process has ended. */
  private ended!: Promise<void>;
  private readonly backoff = new RestartBackoff();
  private restartTimer: NodeJS.Timeout | undefined;
  /** The restart under way, and what ends the engine it is starting (dispose does, not to leave it behind). */
  private restartRun: Promise<void> | undefined;
  private restartAbort: AbortController | undefined;
  private restartCount = 0;
  /** Why the engine last failed, for the requests refused while it restarts. */
  private lastFailure = '';
  /** Receives the engine's trace entries when it was started with `tracing: true`. */
  onTrace: ((entries: TraceEntry[]) => void) | undefined;
  /** Where the supervisor's lines go (an engine failure, a restart). */
  onLog: (line: string) => void = (line) => console.error(`lmforge: ${line}`);

  private readonly grammars: GrammarService;
  /** What this tick sends, in order (send). */
  private outbox: ToWorker[] = [];
  /** When the engine last showed progress: a step, an event, or being idle (its heartbeat). */
  private lastProgress = Date.now();
  private lastSteps = -1;
  private readonly watchdog: NodeJS.Timeout;
  /** Why the watchdog ended the engine, for the log and the requests it held. */
  private watchdogCause: string | undefined;

  private constructor(
    private transport: EngineTransport,
    readonly info: EngineInfo,
    private readonly options: EngineInitOptions,
  ) {
    this.grammars = new GrammarService({ tokenTexts: info.tokenTexts, vocabulary: info.grammarVocabulary, timeoutMs: options.grammarTimeoutMs ?? 10_000, cacheDir: options.grammarCacheDir, cacheMaxBytes: options.grammarCacheMaxBytes });
    for (const { spec, artifact } of options.compiledGrammars ?? []) this.grammars.preload(spec, artifact);
    // Requests need not wait for this: a compile takes the first worker that is ready.
    void this.grammars.warmUp();
    this.attach(transport);
    this.backoff.serving();
    this.watchdog = setInterval(() => this.checkProgress(), 1000);
    this.watchdog.unref();
  }

  /**
   * Whether the engine has held requests without finishing a step (or said nothing at all) for
   * STALL_REPORT_MS, or half the watchdog's limit if that is shorter: /health reports it, and
   * the watchdog ends a stall that lasts.
   */
  get stalled(): boolean {
    const limit = this.watchdogLimit;
    return this.stalledForMs() > Math.min(STALL_REPORT_MS, limit > 0 ? limit / 2 : STALL_REPORT_MS);
  }

  /** How long the engine has held requests without progress; 0 while it holds none (idle, it owes no steps). */
  private stalledForMs(): number {
    return this.state === 'serving' && this.pending.size > 0 ? Date.now() - this.lastProgress : 0;
  }

  private get watchdogLimit(): number {
    return this.options.watchdogMs ?? DEFAULT_WATCHDOG_MS;
  }

  /** Ends an engine stuck past the watchdog's limit: its requests fail and another starts, as after a crash. */
  private checkProgress(): void {
    const limit = this.watchdogLimit;
    if (limit <= 0 || this.watchdogCause !== undefined) return;
    const stalled = this.stalledForMs();
    if (stalled < limit) return;
    this.watchdogCause = `it finished no step for ${Math.round(stalled / 1000)} s while holding requests (a native call hung?), so the watchdog ended it (--watchdog-timeout ${limit / 1000})`;
    this.transport.terminate();
  }

  static async create(given: EngineCreateOptions): Promise<Engine> {
    const options = checkedEngineOptions(given, (message) => new EngineStartError(message, true));
    const { transport, info } = await startEngine(options);
    return new Engine(transport, info, options);
  }

  /**
   * Submits a request and yields its events until every choice has finished. Aborting the
   * signal (or leaving the loop early) cancels it and frees its KV cells. An engine error for
   * this request is thrown as EngineRequestError.
   */
  async *generate(request: GenerateRequest, signal?: AbortSignal): AsyncGenerator<EngineEvent> {
    if (!this.alive) throw new EngineRequestError(this.notServing());
    const id = this.nextId++;
    const queue: EngineEvent[] = [];
    let notify: (() => void) | undefined;
    // Time without progress counts from here when nothing was held: an idle engine owes no steps.
    if (this.pending.size === 0) this.lastProgress = Date.now();
    this.pending.set(id, {
      push(event) {
        queue.push(event);
        notify?.();
      },
      wake: () => notify?.(),
    });
    const onAbort = () => this.cancel(id);
    signal?.addEventListener('abort', onAbort, { once: true });
    let finishedChoices = 0;
    const choices = request.n ?? 1;
    let complete = false;
    // Until the engine has admitted it (`started`) or refused it, even a request for no
    // choices (n: 0) has an answer to wait for.
    let started = false;
    try {
      this.send({ type: 'submit', id, request });
      while (!started || finishedChoices < choices) {
        if (signal?.aborted) return;
        const event = queue.shift();
        if (!event) {
          await new Promise<void>((resolve) => (notify = resolve));
          notify = undefined;
          continue;
        }
        if (event.type === 'error') {
          complete = true;
          throw new EngineRequestError(event.error);
        }
        if (event.type === 'started') started = true;
        if (event.type === 'finished') finishedChoices++;
        yield event;
      }
      complete = true;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.pending.delete(id);
      if (!complete) this.cancel(id);
    }
  }

  /**
   * Compiles an output format for this model, off this thread and the engine's, within the
   * deadline; the result goes in GenerateRequest.grammar. Throws GrammarCompileError.
   */
  compileGrammar(spec: GrammarSpec): Promise<Uint8Array> {
    return this.grammars.compile(spec);
  }

  /** How output-format lookups were answered so far (cache hits, joined compiles, compiles). */
  get grammarCacheCounts(): GrammarCacheCounts {
    return this.grammars.cacheCounts;
  }

  /** Bytes of compiled output formats kept in memory (on this thread, before they reach the engine's). */
  get grammarArtifactCacheBytes(): number {
    return this.grammars.cacheBytes;
  }

  /** True while the engine serves: false once disposed, and while it restarts after a failure. */
  get alive(): boolean {
    return this.state === 'serving';
  }

  /** True from an engine failure until the engine that replaces it is ready. */
  get restarting(): boolean {
    return this.state === 'restarting';
  }

  /** Engines started again after a failure (attempts that failed included). */
  get restarts(): number {
    return this.restartCount;
  }

  /** The engine's child process id (undefined with isolation 'thread', or while it restarts). */
  get pid(): number | undefined {
    return this.alive ? this.transport.pid : undefined;
  }

  cancel(id: number): void {
    if (this.alive) this.send({ type: 'cancel', id });
    this.pending.get(id)?.wake();
  }

  stats(): Promise<EngineStats> {
    if (!this.alive) return Promise.reject(new EngineRequestError(this.notServing()));
    return new Promise((resolve, reject) => {
      this.statsWaiters.push({ resolve, reject });
      this.send({ type: 'stats' });
    });
  }

  /** The text of token ids as a prompt writes them (control tokens included): whole, not token by token, so no character is split. */
  detokenize(tokens: readonly number[]): Promise<string> {
    if (!this.alive) return Promise.reject(new EngineRequestError(this.notServing()));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.detokenizeWaiters.set(id, { resolve, reject });
      this.send({ type: 'detokenize', id, tokens });
    });
  }

  tokenize(text: string, addSpecial: boolean): Promise<number[]> {
    if (!this.alive) return Promise.reject(new EngineRequestError(this.notServing()));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.tokenizeWaiters.set(id, { resolve, reject });
      this.send({ type: 'tokenize', id, text, addSpecial });
    });
  }

  /**
   * Ends every request it holds with `message` (a 503 `server_shutting_down`), as a server whose
   * drain time ran out does, so each client is told rather than cut off.
   */
  endRequests(message: string): void {
    for (const [id, pending] of this.pending) pending.push({ type: 'error', id, error: { code: 'shutting_down', message } });
  }

  async dispose(): Promise<void> {
    if (this.state === 'stopped') return;
    const wasServing = this.state === 'serving';
    this.state = 'stopped';
    clearInterval(this.watchdog);
    clearTimeout(this.restartTimer);
    await this.grammars.dispose();
    if (!wasServing) {
      // An engine still loading after a failure would outlive this process: it ends now.
      this.restartAbort?.abort();
      await this.restartRun;
      return;
    }
    this.send({ type: 'shutdown' });
    const timeout = setTimeout(() => this.transport.terminate(), 10_000);
    await this.ended;
    clearTimeout(timeout);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose();
  }

  /**
   * Sends at the end of this tick, with whatever else this tick sends, as one message. Requests
   * sent together then reach the engine together and share its first step: sent one by one,
   * the first could wake the idle engine and start a step before the others had arrived (a
   * child's IPC delivers writes as they come). Costs no time: the tick is ending anyway.
   */
  private send(message: ToWorker): void {
    if (this.outbox.push(message) === 1) process.nextTick(() => this.flush());
  }

  private flush(): void {
    const messages = this.outbox;
    if (messages.length === 0) return;
    this.outbox = [];
    this.transport.send(messages.length === 1 ? messages[0]! : { type: 'together', messages });
  }

  private attach(transport: EngineTransport): void {
    this.transport = transport;
    // Whatever was on its way to an engine that has ended is moot (its requests failed with it).
    this.outbox = [];
    this.lastProgress = Date.now();
    this.lastSteps = -1;
    this.watchdogCause = undefined;
    transport.onMessage((message) => this.onMessage(message));
    this.ended = new Promise((resolve) =>
      transport.onEnd((end) => {
        resolve();
        this.onEnd(end);
      }),
    );
  }

  private onMessage(message: FromWorker): void {
    if (message.type === 'alive') {
      if (!message.busy || message.steps !== this.lastSteps) this.lastProgress = Date.now();
      this.lastSteps = message.steps;
    } else if (message.type === 'events') {
      this.lastProgress = Date.now();
      for (const event of message.events) {
        if (event.type === 'trace') this.onTrace?.(event.entries);
        else this.pending.get(event.id)?.push(event);
      }
    } else if (message.type === 'stats') {
      for (const waiter of this.statsWaiters.splice(0)) waiter.resolve(message.stats);
    } else if (message.type === 'detokenized') {
      this.detokenizeWaiters.get(message.id)?.resolve(message.text);
      this.detokenizeWaiters.delete(message.id);
    } else if (message.type === 'tokenized') {
      const waiter = this.tokenizeWaiters.get(message.id);
      this.tokenizeWaiters.delete(message.id);
      if ('error' in message) waiter?.reject(new EngineRequestError(message.error));
      else waiter?.resolve(message.tokens);
    } else if (message.type === 'closed') {
      this.transport.terminate();
    }
  }

  /** The engine's thread or process ended: asked to (dispose), or it failed and another starts. */
  private onEnd(end: EngineEnd): void {
    if (this.state === 'stopped') {
      this.failAll({ code: 'internal_error', message: 'the engine stopped' });
      return;
    }
    const cause = this.watchdogCause ?? end.cause;
    this.failAll({ code: 'engine_failed', message: `the engine failed (${cause}); this request was lost: retry it` });
    this.state = 'restarting';
    this.lastFailure = cause;
    this.onLog(`engine failed: ${cause}${end.lastLines.length > 0 ? `; its last output:\n  ${end.lastLines.join('\n  ')}` : ''}`);
    this.scheduleRestart();
  }

  private scheduleRestart(): void {
    const delay = this.backoff.failed();
    this.onLog(`engine: starting it again in ${delay / 1000} s; /health answers 503 until it is ready`);
    this.restartTimer = setTimeout(() => (this.restartRun = this.restart()), delay);
  }

  private async restart(): Promise<void> {
    this.restartCount++;
    this.restartAbort = new AbortController();
    try {
      const { transport } = await startEngine(this.options, this.restartAbort.signal);
      if (this.state === 'stopped') {
        transport.terminate();
        return;
      }
      this.attach(transport);
      this.state = 'serving';
      this.backoff.serving();
      this.onLog(`engine: ready again${transport.pid ? ` (pid ${transport.pid})` : ''} after restart ${this.restartCount}`);
    } catch (error) {
      if (this.state === 'stopped') return;
      this.onLog(`engine: the restart failed: ${(error as Error).message}`);
      this.scheduleRestart();
    }
  }

  private notServing(): EngineErrorInfo {
    if (this.state === 'restarting') return { code: 'engine_failed', message: `the engine is restarting after a failure (${this.lastFailure}); retry shortly` };
    // The caller's mistake (a request after dispose), or a server closing: not a fault of the engine.
    return { code: 'shutting_down', message: 'the engine is shut down (disposed)' };
  }

  /** Ends every request and answer the engine held: they are lost with it. */
  private failAll(error: EngineErrorInfo): void {
    for (const [id, pending] of this.pending) pending.push({ type: 'error', id, error });
    const failed = new EngineRequestError(error);
    for (const waiter of this.statsWaiters.splice(0)) waiter.reject(failed);
    for (const waiters of [this.detokenizeWaiters, this.tokenizeWaiters]) {
      for (const waiter of waiters.values()) waiter.reject(failed);
      waiters.clear();
    }
  }
}

/** Starts an engine's thread or process and waits until it is ready (or says why it cannot be); `signal` ends it while it starts. */
function startEngine(options: EngineInitOptions, signal?: AbortSignal): Promise<{ transport: EngineTransport; info: EngineInfo }> {
  const transport = options.isolation === 'thread' ? startEngineThread() : forkEngine();
  signal?.addEventListener('abort', () => transport.terminate(), { once: true });
  transport.send({ type: 'init', options });
  return new Promise((resolve, reject) => {
    let settled = false;
    let probing: ProbeTarget | undefined;
    transport.onMessage((message) => {
      if (settled) return;
      if (message.type === 'probing') probing = message.target;
      else if (message.type === 'ready') {
        settled = true;
        resolve({ transport, info: message.info });
      } else if (message.type === 'init-failed') {
        settled = true;
        transport.terminate();
        reject(new EngineStartError(message.message, message.userFacing));
      }
    });
    transport.onEnd((end) => {
      if (settled) return;
      settled = true;
      const said = end.lastLines.findLast((line) => /error|abort|assert|fail|fault|memory/i.test(line)) ?? end.lastLines.at(-1);
      const cause = `${end.cause}${said ? ` after the backend wrote "${said}"` : ''}`;
      // Dying in the probe is the backend failing on this device: the line says what to do. A
      // kill from outside (the out-of-memory killer, a user) says nothing of the device.
      const killed = end.signal !== undefined && OUTSIDE_SIGNALS.has(end.signal);
      reject(
        new EngineStartError(
          probing && !killed ? probeFailureLine(probing, cause) : `the engine ended while starting: ${cause}${killed ? ' (from outside this server: the out-of-memory killer, or a user)' : ''}`,
          probing !== undefined,
        ),
      );
    });
  });
}
