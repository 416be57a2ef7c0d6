// The engine as the server sees it: start a worker, submit requests, read their events.
//
//   const engine = await Engine.create({ modelPath, device: 'auto', mode: 'local', overrides: {} });
//   for await (const event of engine.generate({ prompt: 'Hello', maxTokens: 16 })) { ... }
//   await engine.dispose();
import { Worker } from 'node:worker_threads';
import { LmforgeError, type ErrorFields } from '../../../compiler/lmforge-error.js';
import { workerEntry } from '../../../compiler/workers/worker-entry.js';
import { GrammarService, type GrammarCacheCounts } from '../../grammar-service/grammar-service.js';
import type { GrammarSpec } from '../../grammar-service/grammar-spec.js';
import type { EngineErrorInfo, EngineEvent, EngineInfo, EngineInitOptions, EngineStats, FromWorker, GenerateRequest, TraceEntry } from '../protocol.js';

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

interface Pending {
  push(event: EngineEvent): void;
  /** Lets a waiting generator look at its abort signal again. */
  wake(): void;
}

export class Engine {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private statsWaiters: ((stats: EngineStats) => void)[] = [];
  private readonly detokenizeWaiters = new Map<number, (text: string) => void>();
  private closed: Promise<void>;
  private disposed = false;
  private exited = false;
  /** Receives the engine's trace entries when it was started with `tracing: true`. */
  onTrace: ((entries: TraceEntry[]) => void) | undefined;

  private readonly grammars: GrammarService;

  private constructor(private readonly worker: Worker, readonly info: EngineInfo, options: EngineInitOptions) {
    this.grammars = new GrammarService({ tokenTexts: info.tokenTexts, vocabulary: info.grammarVocabulary, timeoutMs: options.grammarTimeoutMs ?? 10_000, cacheDir: options.grammarCacheDir });
    for (const { spec, artifact } of options.compiledGrammars ?? []) this.grammars.preload(spec, artifact);
    // Requests need not wait for this: a compile takes the first worker that is ready.
    void this.grammars.warmUp();
    this.closed = new Promise((resolve) => worker.once('exit', () => resolve()));
    worker.on('message', (message: FromWorker) => this.onMessage(message));
    worker.on('error', (error) => this.failAll({ code: 'internal_error', message: `engine worker crashed: ${error.message}` }));
    worker.on('exit', () => {
      this.exited = true;
      this.failAll({ code: 'internal_error', message: 'the engine stopped' });
    });
  }

  static async create(options: EngineInitOptions): Promise<Engine> {
    const entry = workerEntry('../worker/engine-worker', import.meta.url);
    const worker = new Worker(entry.url, { workerData: entry.workerData });
    worker.postMessage({ type: 'init', options });
    const info = await new Promise<EngineInfo>((resolve, reject) => {
      const onMessage = (message: FromWorker) => {
        if (message.type === 'ready') resolve(message.info);
        else if (message.type === 'init-failed') reject(new EngineStartError(message.message, message.userFacing));
        else return;
        worker.off('message', onMessage);
      };
      worker.on('message', onMessage);
      worker.once('error', reject);
    }).catch(async (error) => {
      await worker.terminate();
      throw error;
    });
    return new Engine(worker, info, options);
  }

  /**
   * Submits a request and yields its events until every choice has finished. Aborting the
   * signal (or leaving the loop early) cancels it and frees its KV cells. An engine error for
   * this request is thrown as EngineRequestError.
   */
  async *generate(request: GenerateRequest, signal?: AbortSignal): AsyncGenerator<EngineEvent> {
    if (!this.alive) throw new EngineRequestError({ code: 'internal_error', message: 'the engine is shut down' });
    const id = this.nextId++;
    const queue: EngineEvent[] = [];
    let notify: (() => void) | undefined;
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
    try {
      this.worker.postMessage({ type: 'submit', id, request });
      while (finishedChoices < choices) {
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

  /** False once the engine was disposed or its worker ended. */
  get alive(): boolean {
    return !this.disposed && !this.exited;
  }

  cancel(id: number): void {
    if (!this.disposed) this.worker.postMessage({ type: 'cancel', id });
    this.pending.get(id)?.wake();
  }

  stats(): Promise<EngineStats> {
    return new Promise((resolve) => {
      this.statsWaiters.push(resolve);
      this.worker.postMessage({ type: 'stats' });
    });
  }

  /** The text of token ids as a prompt writes them (control tokens included): whole, not token by token, so no character is split. */
  detokenize(tokens: readonly number[]): Promise<string> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.detokenizeWaiters.set(id, resolve);
      this.worker.postMessage({ type: 'detokenize', id, tokens });
    });
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.grammars.dispose();
    this.worker.postMessage({ type: 'shutdown' });
    const timeout = setTimeout(() => void this.worker.terminate(), 10_000);
    await this.closed;
    clearTimeout(timeout);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose();
  }

  private onMessage(message: FromWorker): void {
    if (message.type === 'events') {
      for (const event of message.events) {
        if (event.type === 'trace') this.onTrace?.(event.entries);
        else this.pending.get(event.id)?.push(event);
      }
    } else if (message.type === 'stats') {
      for (const resolve of this.statsWaiters.splice(0)) resolve(message.stats);
    } else if (message.type === 'detokenized') {
      this.detokenizeWaiters.get(message.id)?.(message.text);
      this.detokenizeWaiters.delete(message.id);
    } else if (message.type === 'closed') {
      void this.worker.terminate();
    }
  }

  private failAll(error: EngineErrorInfo): void {
    for (const [id, pending] of this.pending) pending.push({ type: 'error', id, error });
  }
}
