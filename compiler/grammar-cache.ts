// The on-disk, content-addressed cache of compiled grammars: one file per grammar (and
// vocabulary, for artifacts with token masks), named by format version, grammar hash and
// vocabulary fingerprint, written atomically. Shared by compile-grammar and the server.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ARTIFACT_FORMAT_VERSION, deserializeCompiledGrammar, serializeCompiledGrammar } from './artifact.js';
import type { CompiledGrammar } from './compiled-grammar.js';
import type { TokenizerInfo } from './tokenizer/tokenizer-info.js';

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

  /** The cached grammar with this hash (with masks for `tokenizer`, when given), or null. */
  read(hash: string, tokenizer: TokenizerInfo | null = null): CompiledGrammar | null {
    const path = this.pathOf(hash, tokenizer?.fingerprint);
    return existsSync(path) ? deserializeCompiledGrammar(readFileSync(path), tokenizer) : null;
  }
}
