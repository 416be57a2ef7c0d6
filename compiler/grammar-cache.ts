// The on-disk, content-addressed cache of compiled grammars, the one both writers share:
// `lmforge compile-grammar` stores grammars by their own hash (and vocabulary, for artifacts with
// token masks), named by format version, grammar hash and vocabulary fingerprint; the server's
// grammar service stores output formats by the hash of their spec (which covers the format
// version and vocabulary too). Every file is written atomically.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ARTIFACT_FORMAT_VERSION, artifactProblem, deserializeCompiledGrammar, serializeCompiledGrammar } from './artifact.js';
import type { CompiledGrammar } from './compiled-grammar.js';
import type { TokenizerInfo } from './tokenizer/tokenizer-info.js';
import { GrammarError } from './errors.js';

/** `$LMFORGE_HOME/grammars`, LMFORGE_HOME defaulting to `~/.cache/lmforge`. */
export function defaultGrammarCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.LMFORGE_HOME ?? join(homedir(), '.cache', 'lmforge'), 'grammars');
}

export class GrammarCache {
  readonly dir: string;

  constructor(dir: string = defaultGrammarCacheDir()) {
    this.dir = dir;
  }

  /** `v<format>-<grammar hash>[-<vocabulary fingerprint, 16 hex>].lmgrammar` */
  pathOf(hash: string, vocabularyFingerprint?: string): string {
    const vocab = vocabularyFingerprint ? `-${vocabularyFingerprint.slice(0, 16)}` : '';
    return join(this.dir, `v${ARTIFACT_FORMAT_VERSION}-${hash}${vocab}.lmgrammar`);
  }

  /** Stores the grammar (with its token masks, if any) unless such an artifact exists; returns the path. */
  write(compiled: CompiledGrammar): string {
    const path = this.pathOf(compiled.hash, compiled.tokenizer?.fingerprint);
    if (existsSync(path)) return path;
    mkdirSync(this.dir, { recursive: true });
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, serializeCompiledGrammar(compiled));
    renameSync(tmp, path); // readers never see half a file
    return path;
  }

  /** `spec-<key>.lmgrammar`: the grammar service's artifact for an output format. */
  specPathOf(key: string): string {
    return join(this.dir, `spec-${key}.lmgrammar`);
  }

  /** The artifact stored for this spec key, or undefined. */
  async readSpec(key: string): Promise<Uint8Array | undefined> {
    // A file cut short is a miss: compiled again and written over, not served to every request that asks for it.
    return readFile(this.specPathOf(key)).then(
      (data) => (artifactProblem(data) ? undefined : new Uint8Array(data)),
      () => undefined,
    );
  }

  /** Stores the artifact for this spec key (atomically, as write does). */
  async writeSpec(key: string, artifact: Uint8Array): Promise<void> {
    const path = this.specPathOf(key);
    await mkdir(this.dir, { recursive: true });
    const tmp = `${path}.${process.pid}.tmp`;
    await writeFile(tmp, artifact);
    await rename(tmp, path);
  }

  /** The cached grammar with this hash (with masks for `tokenizer`, when given), or null. */
  read(hash: string, tokenizer: TokenizerInfo | null = null): CompiledGrammar | null {
    const path = this.pathOf(hash, tokenizer?.fingerprint);
    if (!existsSync(path)) return null;
    const bytes = readFileSync(path);
    const problem = artifactProblem(bytes);
    if (problem) throw new GrammarError(`${path} is not a usable grammar artifact: ${problem}`);
    return deserializeCompiledGrammar(bytes, tokenizer);
  }
}
