// Compiled output formats for the server: a content-addressed cache in memory (bounded in
// entries and bytes) and then on disk, in front of the compile workers (grammar-pool.ts). Keyed
// by the spec's hash, and by the vocabulary's when the workers have it: the artifacts then carry
// the first token mask, which is that vocabulary's.
//
// The same spec asked by several requests at once compiles once: later askers join the compile
// in flight and get its artifact or its error. A joiner shares that compile's deadline (counted
// from when a worker took it, perhaps before the joiner asked), so it may wait less than a full
// deadline; a timeout still means the spec itself is too slow, which is what it reports.
import { createHash } from 'node:crypto';
import { ARTIFACT_FORMAT_VERSION } from '../../compiler/index.js';
import { GrammarCache } from '../../compiler/grammar-cache.js';
import { GrammarPool, type GrammarPoolOptions } from './grammar-pool.js';
import type { GrammarSpec } from './grammar-spec.js';

export { GrammarCompileError } from './grammar-compile-error.js';

export interface GrammarServiceOptions extends GrammarPoolOptions {
  /** Folder of the on-disk cache (default: memory only). */
  cacheDir?: string | undefined;
  /** Most bytes of artifacts the on-disk cache holds (default DEFAULT_GRAMMAR_CACHE_MAX_BYTES); 0: memory only, the folder is neither read nor written. */
  cacheMaxBytes?: number | undefined;
  /** Most bytes of artifacts kept in memory (default GRAMMAR_ARTIFACT_CACHE_BYTES). */
  memoryCacheBytes?: number;
  /** How often a format answered from memory marks its disk file used (default a minute). */
  markUsedIntervalMs?: number;
}

const MEMORY_CACHE_ENTRIES = 256;
const MARK_USED_INTERVAL_MS = 60_000;
/**
 * A typical tool or schema artifact is tens of KiB, a 20,000-entry enum ~10 MiB: this keeps
 * hundreds of the former and a few of the latter. An artifact larger than the whole bound is
 * served but not kept.
 */
export const GRAMMAR_ARTIFACT_CACHE_BYTES = 64 * 2 ** 20;

export interface GrammarCacheCounts {
  hits: number;
  joined: number;
  compiled: number;
}

/** The artifact format is part of the key: a newer compiler never reads an older layout. */

export class GrammarService {
  private readonly pool: GrammarPool;
  /** The on-disk cache, shared with compile-grammar's. */
  private readonly disk: GrammarCache | undefined;
  /** Hash of the vocabulary the artifacts' masks are for (none without masks). */
  private readonly vocabularyHash: string | undefined;
  /** Artifacts by the hash of their spec, oldest first (a Map keeps insertion order). */
  private readonly cache = new Map<string, Uint8Array>();
  private readonly memoryCacheBytes: number;
  private readonly markUsedIntervalMs: number;
  private cachedBytes = 0;
  /** When each kept artifact's disk file was last marked used (memory hits mark it at most once a minute). */
  private readonly markedUsedAt = new Map<string, number>();
  /** Loads under way, by the same hash, for requests that ask while one runs. */
  private readonly inFlight = new Map<string, Promise<Uint8Array>>();
  /** How lookups were answered so far, for the server's metrics. */
  private readonly counts: GrammarCacheCounts = { hits: 0, joined: 0, compiled: 0 };

  constructor(options: GrammarServiceOptions) {
    this.pool = new GrammarPool(options);
    const onDisk = options.cacheDir !== undefined && options.cacheMaxBytes !== 0;
    this.disk = onDisk ? new GrammarCache(options.cacheDir, options.cacheMaxBytes !== undefined ? { maxBytes: options.cacheMaxBytes } : {}) : undefined;
    this.memoryCacheBytes = options.memoryCacheBytes ?? GRAMMAR_ARTIFACT_CACHE_BYTES;
    this.markUsedIntervalMs = options.markUsedIntervalMs ?? MARK_USED_INTERVAL_MS;
    this.vocabularyHash = options.vocabulary && createHash('sha256').update(options.vocabulary).digest('hex');
  }

  /** Bytes of the artifacts the memory cache holds now, for the server's metrics. */
  get cacheBytes(): number {
    return this.cachedBytes;
  }

  /** Starts every compile worker now; settles when they are ready. Never rejects. */
  warmUp(): Promise<void> {
    return this.pool.warmUp();
  }

  /** Compiles handed to a worker so far (cache hits and joined compiles start none). */
  get compilesStarted(): number {
    return this.pool.compilesStarted;
  }

  /** Workers started so far, replacements for cut-off or crashed ones included. */
  get workersStarted(): number {
    return this.pool.workersStarted;
  }

  /** Lookups answered from the cache (memory or disk), by joining a compile in flight, or by a compile. */
  get cacheCounts(): GrammarCacheCounts {
    return { ...this.counts };
  }

  /**
   * The cache key of a spec. The artifact format and the vocabulary are part of it: a newer
   * compiler never reads an older layout, and an artifact's first mask belongs to one vocabulary.
   */
  private keyOf(spec: GrammarSpec): string {
    return createHash('sha256').update(JSON.stringify({ format: ARTIFACT_FORMAT_VERSION, vocabulary: this.vocabularyHash, spec })).digest('hex');
  }

  /** Serves `artifact` for `spec` without compiling (a compiled model folder's, checked against this lmforge and vocabulary). */
  preload(spec: GrammarSpec, artifact: Uint8Array): void {
    this.cache.set(this.keyOf(spec), artifact);
  }

  /** The compiled artifact for a spec: from the cache, or compiled within the deadline. */
  compile(spec: GrammarSpec): Promise<Uint8Array> {
    const key = this.keyOf(spec);
    const hit = this.cache.get(key);
    if (hit) {
      this.cache.delete(key);
      this.cache.set(key, hit);
      this.counts.hits++;
      this.markUsedOnDisk(key);
      return Promise.resolve(hit);
    }
    const running = this.inFlight.get(key);
    if (running) {
      this.counts.joined++;
      return running;
    }
    const loading = this.load(key, spec).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, loading);
    return loading;
  }

  private async load(key: string, spec: GrammarSpec): Promise<Uint8Array> {
    const stored = await this.disk?.readSpec(key);
    if (stored) this.counts.hits++;
    else this.counts.compiled++;
    const artifact = stored ?? (await this.pool.compile(spec));
    if (this.disk && !stored) await this.disk.writeSpec(key, artifact).catch(() => undefined); // a cache that cannot write is still a cache in memory
    this.remember(key, artifact);
    return artifact;
  }

  /**
   * The disk's bound removes the files least recently used, but a format in steady use is read
   * from memory, never from disk: its file is marked used on its hits too (at most once a
   * minute, a syscall off the request's path), or the most used formats would go first.
   */
  private markUsedOnDisk(key: string): void {
    if (!this.disk) return;
    const now = Date.now();
    if (now - (this.markedUsedAt.get(key) ?? 0) < this.markUsedIntervalMs) return;
    this.markedUsedAt.set(key, now);
    void this.disk.markSpecUsed(key);
  }

  /** Keeps the artifact, dropping the least recently used ones beyond the entry and byte bounds. */
  private remember(key: string, artifact: Uint8Array): void {
    if (artifact.byteLength > this.memoryCacheBytes) return;
    this.cache.set(key, artifact);
    this.markedUsedAt.set(key, Date.now()); // just read or written: its mtime is now
    this.cachedBytes += artifact.byteLength;
    while (this.cache.size > MEMORY_CACHE_ENTRIES || this.cachedBytes > this.memoryCacheBytes) {
      const [oldest, bytes] = this.cache.entries().next().value!;
      this.cache.delete(oldest);
      this.markedUsedAt.delete(oldest);
      this.cachedBytes -= bytes.byteLength;
    }
  }

  async dispose(): Promise<void> {
    await this.pool.dispose();
    await this.disk?.settled(); // a pruning pass in flight ends before the server says it has stopped
  }
}
