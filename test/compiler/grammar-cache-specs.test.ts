// The one on-disk grammar cache holds the server's output-format artifacts too, beside
// compile-grammar's, under names that cannot collide.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Grammar, GrammarCompiler, serializeCompiledGrammar } from '../../compiler/index.js';
import { GrammarCache } from '../../compiler/grammar-cache.js';

const test = suite('grammar cache: spec artifacts');

test('an artifact stored under a spec key reads back whole, beside a grammar stored by its hash', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmforge-grammar-cache-'));
  try {
    const cache = new GrammarCache(join(dir, 'grammars'));
    const key = 'ab'.repeat(32);
    assert.is(await cache.readSpec(key), undefined);
    const compiled = new GrammarCompiler().compile(Grammar.fromEBNF('root ::= "yes" | "no"'));
    const artifact = serializeCompiledGrammar(compiled);
    await cache.writeSpec(key, artifact);
    assert.equal(await cache.readSpec(key), artifact);
    const path = cache.write(compiled);
    assert.equal(readdirSync(cache.dir).sort(), [path.slice(cache.dir.length + 1), `spec-${key}.lmgrammar`].sort(), 'no temporary file is left');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
