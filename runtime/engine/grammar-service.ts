// Compiles output formats in a worker with a deadline, behind a content-addressed cache in
// memory and then on disk (keyed by the spec's hash; artifacts carry no token masks, so they
// serve any model). A timeout ends the worker (the only way to stop a runaway compile) and
// starts a new one.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { ARTIFACT_FORMAT_VERSION } from '../../compiler/index.js';
import type { GrammarJob, GrammarResult } from './grammar-worker.js';
import type { GrammarSpec } from './grammar-spec.js';
import { workerEntry } from './worker-entry.js';
import { GrammarCompileError } from './grammar-compile-error.js';

export { GrammarCompileError };

const MEMORY_CACHE_ENTRIES = 256;

async function writeAtomically(file: string, data: Uint8Array): Promise<void> {
  await mkdir(join(file, '..'), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, data);
  await rename(tmp, file);
}

export class GrammarService {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (artifact: Uint8Array) => void; reject: (error: Error) => void }>();
  /** Artifacts by the hash of their spec, oldest first (a Map keeps insertion order). */
  private readonly cache = new Map<string, Uint8Array>();

  constructor(
    private readonly tokenTexts: string[],
    private readonly timeoutMs: number,
    /** Folder of the on-disk cache, or undefined for memory only. */
    private readonly cacheDir: string | undefined,
  ) {}

  /**
   * Starts the worker now and compiles JSON mode once, outside the cache: loading the
   * compiler and getting its code optimised costs the first request several hundred ms.
   */
  warmUp(): void {
    this.run({ kind: 'json_object' }).catch(() => undefined);
  }

  /** The compiled artifact for a spec: from the cache, or compiled within the deadline. */
  async compile(spec: GrammarSpec): Promise<Uint8Array> {
    // The artifact format is part of the key: a newer compiler never reads an older layout.
    const key = createHash('sha256').update(JSON.stringify({ format: ARTIFACT_FORMAT_VERSION, spec })).digest('hex');
    const hit = this.cache.get(key);
    if (hit) {
      this.cache.delete(key);
      this.cache.set(key, hit);
      return hit;
    }
    const file = this.cacheDir ? join(this.cacheDir, `spec-${key}.lmgrammar`) : undefined;
    const stored = file ? await readFile(file).then((data) => new Uint8Array(data), () => undefined) : undefined;
    const artifact = stored ?? (await this.run(spec));
    if (file && !stored) await writeAtomically(file, artifact).catch(() => undefined); // a cache that cannot write is still a cache in memory
    this.cache.set(key, artifact);
    if (this.cache.size > MEMORY_CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
    return artifact;
  }

  private run(spec: GrammarSpec): Promise<Uint8Array> {
    const worker = this.ensureWorker();
    const id = this.nextId++;
    return new Promise<Uint8Array>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        // Every job on this worker is lost with it: fail them too, then start afresh.
        void this.restart(new GrammarCompileError(`compiling the output format took longer than ${this.timeoutMs / 1000} s`, undefined, true));
        reject(new GrammarCompileError(`compiling the output format took longer than ${this.timeoutMs / 1000} s; simplify it`, undefined, true));
      }, this.timeoutMs);
      this.pending.set(id, {
        resolve: (artifact) => {
          clearTimeout(timer);
          resolve(artifact);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      worker.postMessage({ id, spec } satisfies GrammarJob);
    });
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const entry = workerEntry('grammar-worker', import.meta.url);
    const worker = new Worker(entry.url, { workerData: { ...entry.workerData, tokenTexts: this.tokenTexts } });
    worker.unref();
    worker.on('message', (result: GrammarResult) => {
      const job = this.pending.get(result.id);
      if (!job) return;
      this.pending.delete(result.id);
      if (result.ok) job.resolve(result.artifact);
      else job.reject(new GrammarCompileError(result.message, result.pointer));
    });
    worker.on('error', (error) => void this.restart(new GrammarCompileError(`the grammar compiler failed: ${error.message}`, undefined)));
    this.worker = worker;
    return worker;
  }

  private async restart(reason: Error): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    for (const job of this.pending.values()) job.reject(reason);
    this.pending.clear();
    await worker?.terminate();
  }

  async dispose(): Promise<void> {
    await this.restart(new GrammarCompileError('the server is shutting down', undefined));
  }
}
