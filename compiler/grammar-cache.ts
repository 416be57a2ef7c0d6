// The on-disk, content-addressed cache of compiled grammars, the one both writers share:
// `lmforge compile-grammar` stores grammars by their own hash (and vocabulary, for artifacts with
// token masks), named by format version, grammar hash and vocabulary fingerprint; the server's
// grammar service stores output formats by the hash of their spec (which covers the format
// version and vocabulary too). Every file is written atomically. The folder is bounded in bytes
// (grammar-cache-bound.ts): a read that hits marks the file used, and past the bound the least
// recently used files go.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { mkdir, readFile, rename, rm, utimes, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ARTIFACT_FORMAT_VERSION, artifactProblem, deserializeCompiledGrammar, serializeCompiledGrammar } from './artifact.js';
import type { CompiledGrammar } from './compiled-grammar.js';
import type { TokenizerInfo } from './tokenizer/tokenizer-info.js';
import { GrammarError } from './errors.js';
import { DEFAULT_GRAMMAR_CACHE_MAX_BYTES, GrammarCacheBound } from './grammar-cache-bound.js';

export { DEFAULT_GRAMMAR_CACHE_MAX_BYTES } from './grammar-cache-bound.js';

export interface GrammarCacheOptions {
  /**
   * Most bytes of artifacts the folder holds (default DEFAULT_GRAMMAR_CACHE_MAX_BYTES, 1 GiB):
   * past it, each write removes the least recently used files, in the background, down to 80%.
   * Infinity: never removes anything (a build's output folder).
   */
  maxBytes?: number;
}

/** `$LMFORGE_HOME/grammars`, LMFORGE_HOME defaulting to `~/.cache/lmforge`. */
export function defaultGrammarCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.LMFORGE_HOME ?? join(homedir(), '.cache', 'lmforge'), 'grammars');
}

export class GrammarCache {
  readonly dir: string;
  private readonly bound: GrammarCacheBound | undefined;

  constructor(dir: string = defaultGrammarCacheDir(), options: GrammarCacheOptions = {}) {
    this.dir = dir;
    const maxBytes = options.maxBytes ?? DEFAULT_GRAMMAR_CACHE_MAX_BYTES;
    this.bound = maxBytes === Infinity ? undefined : new GrammarCacheBound(dir, maxBytes);
  }

  /** Settles once the folder is pruned after the writes so far. */
  settled(): Promise<void> {
    return this.bound?.settled() ?? Promise.resolve();
  }

  /** `v<format>-<grammar hash>[-<vocabulary fingerprint, 16 hex>].lmgrammar` */
  pathOf(hash: string, vocabularyFingerprint?: string): string {
    const vocab = vocabularyFingerprint ? `-${vocabularyFingerprint.slice(0, 16)}` : '';
    return join(this.dir, `v${ARTIFACT_FORMAT_VERSION}-${hash}${vocab}.lmgrammar`);
  }

  /**
   * Stores the grammar (with its token masks, if any) unless a usable artifact exists (one cut
   * short or damaged is written over, as the server's spec files are); returns the path.
   */
  write(compiled: CompiledGrammar): string {
    const path = this.pathOf(compiled.hash, compiled.tokenizer?.fingerprint);
    if (existsSync(path) && !artifactProblem(readFileSync(path))) {
      markUsedSync(path);
      return path;
    }
    mkdirSync(this.dir, { recursive: true });
    const tmp = `${path}.${process.pid}.tmp`;
    const artifact = serializeCompiledGrammar(compiled);
    try {
      writeFileSync(tmp, artifact);
      renameSync(tmp, path); // readers never see half a file
    } catch (error) {
      rmSync(tmp, { force: true }); // a failed write leaves no temporary file outside the bound
      throw error;
    }
    this.bound?.written(artifact.byteLength);
    return path;
  }

  /** `spec-<key>.lmgrammar`: the grammar service's artifact for an output format. */
  specPathOf(key: string): string {
    return join(this.dir, `spec-${key}.lmgrammar`);
  }

  /** The artifact stored for this spec key, or undefined. */
  async readSpec(key: string): Promise<Uint8Array | undefined> {
    const path = this.specPathOf(key);
    const data = await readFile(path).catch(() => undefined);
    // A file cut short is a miss: compiled again and written over, not served to every request that asks for it.
    if (!data || artifactProblem(data)) return undefined;
    await markUsed(path);
    return new Uint8Array(data);
  }

  /**
   * Stores the artifact for this spec key (atomically, as write does), then prunes the folder in
   * the background when it may be over its bound. An artifact larger than the whole bound is
   * not stored.
   */
  async writeSpec(key: string, artifact: Uint8Array): Promise<void> {
    if (this.bound && artifact.byteLength > this.bound.maxBytes) return;
    const path = this.specPathOf(key);
    await mkdir(this.dir, { recursive: true });
    const tmp = `${path}.${process.pid}.tmp`;
    try {
      await writeFile(tmp, artifact);
      await rename(tmp, path);
    } catch (error) {
      await rm(tmp, { force: true }).catch(() => undefined); // a disk full or a folder in the way leaves no temporary file outside the bound
      throw error;
    }
    this.bound?.written(artifact.byteLength);
  }

  /** Marks the spec's file used now (a hit in a memory cache in front of this one), so that the bound keeps it. */
  markSpecUsed(key: string): Promise<void> {
    return markUsed(this.specPathOf(key));
  }

  /** The cached grammar with this hash (with masks for `tokenizer`, when given), or null. */
  read(hash: string, tokenizer: TokenizerInfo | null = null): CompiledGrammar | null {
    const path = this.pathOf(hash, tokenizer?.fingerprint);
    if (!existsSync(path)) return null;
    const bytes = readFileSync(path);
    const problem = artifactProblem(bytes);
    if (problem) throw new GrammarError(`${path} is not a usable grammar artifact: ${problem}`);
    const compiled = deserializeCompiledGrammar(bytes, tokenizer);
    markUsedSync(path);
    return compiled;
  }
}

/** Sets the file's mtime to now, the order in which the bound removes files; a file gone meanwhile is no error. */
function markUsed(path: string): Promise<void> {
  const now = new Date();
  return utimes(path, now, now).catch(() => undefined);
}

function markUsedSync(path: string): void {
  try {
    const now = new Date();
    utimesSync(path, now, now);
  } catch {
    // removed by another process, or a read-only folder: the file's place in the order stays
  }
}
