// A few grammar compile workers, one compile each at a time, so a slow format holds up only
// the worker it runs on. Compiles wait, in arrival order, only while every worker is busy.
//
//   const pool = new GrammarPool({ tokenTexts, timeoutMs: 10_000 });
//   const artifact = await pool.compile({ kind: 'regex', pattern: '[a-z]+' });
//   await pool.dispose();
//
// Deadlines: a compile's deadline counts from when a ready worker takes it, never from when it
// was queued, so time spent behind someone else's compile is never blamed on it. Past its
// deadline the worker is terminated (the only way to stop a runaway compile) and replaced, and
// only that compile fails, as timed out. Waiting is bounded apart: a compile that gets no worker
// within `maxQueueWaitMs` is refused as overload, which says "retry", not "simplify".
// Memory: a worker keeps the heap its largest compile took, so one whose heap a compile grew
// past `recycleHeapBytes` is replaced by a fresh one after it.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { GrammarCompileError } from './grammar-compile-error.js';
import type { GrammarSpec } from './grammar-spec.js';
import type { GrammarJob, GrammarWorkerMessage } from './grammar-worker.js';
import { threadChannel, type Channel } from '../../compiler/workers/message-channel.js';
import { workerEntry } from '../../compiler/workers/worker-entry.js';

export interface GrammarPoolOptions {
  /** Token texts by id, for structural tags that name tokens by their text. */
  tokenTexts: string[];
  /**
   * The model's vocabulary as grammar masks see it (TokenizerInfo.toCacheBytes): with it each
   * artifact also carries the first token mask, computed within the same deadline.
   */
  vocabulary?: Uint8Array | undefined;
  /** Deadline for one compile, counted from when a worker starts it. */
  timeoutMs: number;
  /** How many compiles run at once (default: the cores, at least 2, at most 4). */
  workers?: number;
  /**
   * How long a compile may wait for a free worker before it is refused (default a minute, or six
   * deadlines when that is longer: enough for a queue several slow formats deep to drain, and for
   * the workers to start).
   */
  maxQueueWaitMs?: number;
  /**
   * A worker whose heap has grown past this after a compile is replaced by a fresh one (default
   * RECYCLE_HEAP_BYTES): a worker keeps what one huge format made it take, long after.
   */
  recycleHeapBytes?: number;
  /** The worker's script (default grammar-worker.ts); tests pass a stand-in speaking its messages. */
  entry?: { url: URL; workerData?: object };
}

/**
 * Compiles are CPU-bound, so workers beyond the cores only share them. Two is the least that lets
 * a slow compile run beside the others (on one core the OS still time-slices them); four bounds
 * the memory (each worker holds its own compiler and token texts) and leaves cores to decoding.
 */
/**
 * A warm worker's heap is ~37 MiB (a small schema leaves it so, a 1,000-entry enum at ~54); a
 * 3,000-entry enum grows it to ~90 MiB and a 10,000-entry one past 150, which it keeps (and the
 * process's resident memory with it) until the worker ends.
 */
export const RECYCLE_HEAP_BYTES = 64 * 2 ** 20;

export function defaultGrammarWorkers(): number {
  return Math.max(2, Math.min(4, availableParallelism()));
}

interface Job {
  id: number;
  spec: GrammarSpec;
  resolve(artifact: Uint8Array): void;
  reject(error: Error): void;
  /** Refuses the job if no worker takes it in time. */
  waitTimer: NodeJS.Timeout | undefined;
}

interface Slot {
  worker: Worker;
  /** Jobs to the worker, results from it. */
  channel: Channel<GrammarWorkerMessage, GrammarJob>;
  /** Said ready: its compiler is loaded and warm. */
  ready: boolean;
  job: Job | undefined;
  deadline: NodeJS.Timeout | undefined;
  /** Settles when the worker is ready or gone, for warmUp(). */
  started: Promise<void>;
  markStarted(): void;
}

export class GrammarPool {
  /** Compiles handed to a worker so far (tests read it to see deduplication). */
  compilesStarted = 0;
  /** Workers started so far, replacements included. */
  workersStarted = 0;
  /** Workers replaced because a compile left their heap grown past recycleHeapBytes. */
  recycled = 0;
  readonly size: number;
  private readonly maxQueueWaitMs: number;
  private readonly slots = new Set<Slot>();
  private readonly queue: Job[] = [];
  private nextId = 1;
  private disposed = false;

  constructor(private readonly options: GrammarPoolOptions) {
    this.size = Math.max(1, Math.floor(options.workers ?? defaultGrammarWorkers()));
    this.maxQueueWaitMs = options.maxQueueWaitMs ?? Math.min(Math.max(60_000, 6 * options.timeoutMs), 2 ** 31 - 1); // a longer timer would fire at once
  }

  /** Starts every worker now; settles when each is ready (or failed to start). Never rejects. */
  async warmUp(): Promise<void> {
    while (!this.disposed && this.slots.size < this.size) this.spawn();
    await Promise.all([...this.slots].map((slot) => slot.started));
  }

  /** Compiles on the next free worker; throws GrammarCompileError. */
  compile(spec: GrammarSpec): Promise<Uint8Array> {
    if (this.disposed) return Promise.reject(new GrammarCompileError('the server is shutting down', undefined));
    return new Promise<Uint8Array>((resolve, reject) => {
      const job: Job = { id: this.nextId++, spec, resolve, reject, waitTimer: undefined };
      job.waitTimer = setTimeout(() => {
        this.queue.splice(this.queue.indexOf(job), 1);
        const seconds = this.maxQueueWaitMs / 1000;
        reject(new GrammarCompileError(`every grammar compiler stayed busy with other formats for ${seconds} s; retry later`, undefined, false, true));
      }, this.maxQueueWaitMs);
      this.queue.push(job);
      this.pump();
    });
  }

  /** Hands queued jobs to idle workers, and starts workers while jobs outnumber them. */
  private pump(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (slot.ready && !slot.job) this.start(slot, this.queue.shift()!);
    }
    let starting = [...this.slots].filter((slot) => !slot.ready).length;
    while (!this.disposed && this.slots.size < this.size && starting < this.queue.length) {
      this.spawn();
      starting++;
    }
  }

  private start(slot: Slot, job: Job): void {
    clearTimeout(job.waitTimer);
    slot.job = job;
    this.compilesStarted++;
    slot.deadline = setTimeout(() => this.cutOff(slot), this.options.timeoutMs);
    try {
      slot.channel.post({ id: job.id, spec: job.spec });
    } catch (error) {
      // A spec that cannot cross threads never reached the worker, which stays usable.
      this.finish(slot, job.id)?.reject(new GrammarCompileError(`the output format cannot be compiled: ${(error as Error).message}`, undefined));
    }
  }

  /** Frees the slot from its job (if it is still that one) and lets the queue move. */
  private finish(slot: Slot, id: number): Job | undefined {
    const job = slot.job;
    if (!job || job.id !== id) return undefined;
    clearTimeout(slot.deadline);
    slot.job = undefined;
    queueMicrotask(() => this.pump());
    return job;
  }

  private spawn(): void {
    const entry = this.options.entry ?? workerEntry('grammar-worker', import.meta.url);
    const worker = new Worker(entry.url, { workerData: { ...entry.workerData, tokenTexts: this.options.tokenTexts, vocabulary: this.options.vocabulary } });
    worker.unref();
    let markStarted!: () => void;
    const started = new Promise<void>((resolve) => (markStarted = resolve));
    const channel = threadChannel<GrammarWorkerMessage, GrammarJob>(worker);
    const slot: Slot = { worker, channel, ready: false, job: undefined, deadline: undefined, started, markStarted };
    this.slots.add(slot);
    this.workersStarted++;
    channel.on((message) => this.onMessage(slot, message));
    worker.on('error', (error) => this.onCrash(slot, error.message));
    worker.on('exit', (code) => this.onCrash(slot, `it exited with code ${code}`));
  }

  private onMessage(slot: Slot, message: GrammarWorkerMessage): void {
    if (!this.slots.has(slot)) return; // a cut-off worker's last words
    if (message.type === 'ready') {
      slot.ready = true;
      slot.markStarted();
      this.pump();
    } else if (message.type === 'compiled') {
      this.finish(slot, message.id)?.resolve(message.artifact);
      this.recycleIfGrown(slot, message.heapBytes);
    } else {
      this.finish(slot, message.id)?.reject(new GrammarCompileError(message.message, message.pointer));
      this.recycleIfGrown(slot, message.heapBytes);
    }
  }

  private recycleIfGrown(slot: Slot, heapBytes: number): void {
    if (!(heapBytes > (this.options.recycleHeapBytes ?? RECYCLE_HEAP_BYTES)) || !this.slots.has(slot)) return;
    this.recycled++;
    void this.retire(slot);
    this.replace();
  }

  private cutOff(slot: Slot): void {
    const job = slot.job;
    void this.retire(slot);
    job?.reject(new GrammarCompileError(`compiling the output format took longer than ${this.options.timeoutMs / 1000} s; simplify it`, undefined, true));
    this.replace();
  }

  private onCrash(slot: Slot, why: string): void {
    if (!this.slots.has(slot)) return; // already retired (the exit after an error, or a cut-off)
    const job = slot.job;
    const wasReady = slot.ready;
    void this.retire(slot);
    job?.reject(new GrammarCompileError(`the grammar compiler failed on this format (${why})`, undefined));
    if (wasReady) {
      this.replace();
      return;
    }
    // A worker that cannot even start would fail the same way again, so none is started in its
    // place: the other workers take the queue, and once none is left the waiting compiles fail
    // (the next compile tries afresh).
    if (this.slots.size > 0) return;
    for (const waiting of this.queue.splice(0)) {
      clearTimeout(waiting.waitTimer);
      waiting.reject(new GrammarCompileError(`the grammar compiler could not start (${why})`, undefined));
    }
  }

  /** Takes the worker out of the pool and ends it; its late messages and exit are ignored. */
  private retire(slot: Slot): Promise<unknown> {
    this.slots.delete(slot);
    clearTimeout(slot.deadline);
    slot.job = undefined;
    slot.markStarted();
    return slot.worker.terminate();
  }

  /** A worker lost in service is replaced at once, so the pool stays warm. */
  private replace(): void {
    if (this.disposed) return;
    if (this.slots.size < this.size) this.spawn();
    this.pump();
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    const stopping = new GrammarCompileError('the server is shutting down', undefined);
    for (const job of this.queue.splice(0)) {
      clearTimeout(job.waitTimer);
      job.reject(stopping);
    }
    const ending = [...this.slots].map((slot) => {
      slot.job?.reject(stopping);
      return this.retire(slot);
    });
    await Promise.all(ending);
  }
}
