// Eager compilation on worker threads: the states a matcher may ask about are split among a
// pool of workers, kept alive (unreferenced, so they hold no process open) with a warm JIT
// and the last vocabulary; each computes its share from the grammar's artifact, and the masks
// come back as artifacts. Worth it for big grammars (hundreds of ms on one thread); on 2 cores
// expect at most ~1.7x, and the first use pays the workers' start-up.
//
//   const compiled = new GrammarCompiler(info).compile(grammar);   // lazy
//   await completeMasksInWorkers(compiled, { threads: 2 });        // now every mask is there
//
// Runs in the calling thread instead when no worker entry is found (a bundle built without
// compiler/mask/mask-worker.ts as an entry point).
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { deserializeCompiledGrammar, serializeCompiledGrammar } from '../artifact.js';
import type { CompiledGrammar } from '../compiled-grammar.js';
import type { MaskJob, MaskResult } from './mask-worker.js';
import { threadChannel, type Channel } from '../workers/message-channel.js';
import { workerEntry, type WorkerEntry } from '../workers/worker-entry.js';

interface PoolWorker {
  worker: Worker;
  /** Jobs to the worker, results from it. */
  channel: Channel<MaskResult, MaskJob>;
  /** Fingerprint of the vocabulary it holds. */
  vocabulary: string | null;
  pending: Map<number, { resolve: (bytes: Uint8Array) => void; reject: (error: Error) => void }>;
}

/**
 * The workers and the job counter, owned by one object. The process shares one pool
 * (completeMasksInWorkers), so that its workers stay warm from one grammar to the next.
 */
export class MaskWorkerPool {
  private readonly workers: PoolWorker[] = [];
  private nextJob = 0;

  async complete(compiled: CompiledGrammar, options: { threads?: number } = {}): Promise<void> {
    const cache = compiled.masks;
    if (!cache) throw new Error('this grammar was compiled without a vocabulary');
    const states = cache.scanStates().filter((s) => !cache.has(s));
    const threads = Math.max(1, Math.min(options.threads ?? availableParallelism(), states.length));
    const entry = maskWorkerEntry();
    if (!entry || threads < 2) {
      compiled.completeMasks();
      return;
    }
    while (this.workers.length < threads) this.workers.push(this.startWorker(entry));
    const artifact = serializeCompiledGrammar(compiled, { withMasks: false });
    const fingerprint = cache.tokenizer.fingerprint;
    let vocabulary: Uint8Array | null = null;
    // Interleaved shares: neighbouring states of a rule cost alike.
    const shares = Array.from({ length: threads }, (_, k) => Int32Array.from(states.filter((_, i) => i % threads === k)));
    const results = await Promise.all(
      shares.map((share, k) => {
        const w = this.workers[k]!;
        const send = w.vocabulary === fingerprint ? null : (vocabulary ??= cache.tokenizer.toCacheBytes());
        w.vocabulary = fingerprint;
        return submit(w, { id: this.nextJob++, artifact, vocabulary: send, fingerprint, states: share });
      }),
    );
    results.forEach((bytes, k) => {
      const done = deserializeCompiledGrammar(bytes, cache.tokenizer);
      for (const s of shares[k]!) if (!cache.has(s)) cache.set(s, done.masks!.get(s));
    });
  }

  private startWorker(entry: WorkerEntry): PoolWorker {
    const worker = new Worker(entry.url, { workerData: entry.workerData ?? {} });
    const w: PoolWorker = { worker, channel: threadChannel(worker), vocabulary: null, pending: new Map() };
    w.worker.unref();
    w.channel.on((result) => {
      const waiting = w.pending.get(result.id);
      w.pending.delete(result.id);
      if (w.pending.size === 0) w.worker.unref();
      if ('artifact' in result) waiting?.resolve(result.artifact);
      else waiting?.reject(new Error(result.error));
    });
    const fail = (error: Error): void => {
      this.workers.splice(this.workers.indexOf(w), 1); // a fresh worker replaces it next time
      for (const waiting of w.pending.values()) waiting.reject(error);
      w.pending.clear();
    };
    w.worker.on('error', fail);
    w.worker.on('exit', (code) => fail(new Error(`a mask worker exited with code ${code}`)));
    return w;
  }
}

let shared: MaskWorkerPool | undefined;

export function completeMasksInWorkers(compiled: CompiledGrammar, options: { threads?: number } = {}): Promise<void> {
  return (shared ??= new MaskWorkerPool()).complete(compiled, options);
}

function submit(w: PoolWorker, job: MaskJob): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    w.pending.set(job.id, { resolve, reject });
    w.worker.ref(); // while a job is out
    w.channel.post(job);
  });
}

/** The worker's code (workers/worker-entry.ts), or null when neither its source nor its compiled .js is here. */
function maskWorkerEntry(): WorkerEntry | null {
  const entry = workerEntry('mask-worker', import.meta.url);
  return entry.workerData || existsSync(fileURLToPath(entry.url)) ? entry : null;
}
