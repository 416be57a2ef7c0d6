// The on-disk, content-addressed cache of compiled grammars: one file per grammar, named by
// format version and grammar hash, written atomically. Shared by compile-grammar and, later,
// the server's compile path.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ARTIFACT_FORMAT_VERSION, deserializeCompiledGrammar, serializeCompiledGrammar } from './artifact.js';
import type { CompiledGrammar } from './compiled-grammar.js';

/** `$LMFORGE_HOME/grammars`, LMFORGE_HOME defaulting to `~/.cache/lmforge`. */
export function defaultGrammarCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.LMFORGE_HOME ?? join(homedir(), '.cache', 'lmforge'), 'grammars');
}

export class GrammarCache {
  readonly dir: string;

  constructor(dir: string = defaultGrammarCacheDir()) {
    this.dir = dir;
  }

  pathOf(hash: string): string {
    return join(this.dir, `v${ARTIFACT_FORMAT_VERSION}-${hash}.lmgrammar`);
  }

  /** Stores the grammar unless an artifact with its hash exists; returns the file path. */
  write(compiled: CompiledGrammar): string {
    const path = this.pathOf(compiled.hash);
    if (existsSync(path)) return path;
    mkdirSync(this.dir, { recursive: true });
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, serializeCompiledGrammar(compiled));
    renameSync(tmp, path); // readers never see half a file
    return path;
  }

  /** The cached grammar with this hash, or null. */
  read(hash: string): CompiledGrammar | null {
    const path = this.pathOf(hash);
    return existsSync(path) ? deserializeCompiledGrammar(readFileSync(path)) : null;
  }
}
