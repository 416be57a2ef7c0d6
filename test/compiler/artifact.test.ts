import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ARTIFACT_FORMAT_VERSION, artifactProblem, deserializeCompiledGrammar, Grammar, GrammarCompiler, GrammarError, GrammarMatcher, serializeCompiledGrammar } from '../../compiler/index.js';

const test = suite('artifact');

test('round trip: the loaded grammar matches like the original', () => {
  const compiled = new GrammarCompiler().compile(Grammar.fromJSONSchema({ type: 'array', items: { type: 'integer', minimum: 3 }, maxItems: 200 }));
  const bytes = serializeCompiledGrammar(compiled);
  const loaded = deserializeCompiledGrammar(bytes);
  assert.is(loaded.hash, compiled.hash);
  assert.is(loaded.toString(), compiled.toString());
  for (const text of ['[3,4]', '[2]', `[${'5,'.repeat(199)}5]`, `[${'5,'.repeat(200)}5]`]) {
    const a = new GrammarMatcher(compiled);
    const b = new GrammarMatcher(loaded);
    assert.is(a.acceptString(text) && a.isCompleted(), b.acceptString(text) && b.isCompleted(), text.slice(0, 20));
  }
});

test('round trip of automaton leaves (multipleOf, key regions)', () => {
  const schema = { type: 'object', properties: { n: { type: 'integer', multipleOf: 7 } }, patternProperties: { '^x': { type: 'string' } }, additionalProperties: { type: 'boolean' } };
  const compiled = new GrammarCompiler().compile(Grammar.fromJSONSchema(schema));
  const loaded = deserializeCompiledGrammar(serializeCompiledGrammar(compiled));
  assert.is(loaded.toString(), compiled.toString());
  for (const [text, ok] of [['{"n": 21, "xa": "s", "b": true}', true], ['{"n": 22}', false], ['{"xa": true}', false]] as const) {
    const m = new GrammarMatcher(loaded);
    assert.is(m.acceptString(text) && m.isCompleted(), ok, text);
  }
});

test('a wrong magic or format version is refused', () => {
  const bytes = serializeCompiledGrammar(new GrammarCompiler().compile(Grammar.fromRegex('a')));
  const badMagic = bytes.slice();
  badMagic[0] = 0;
  assert.throws(() => deserializeCompiledGrammar(badMagic), (e: unknown) => e instanceof GrammarError && /wrong magic/.test(e.message));
  const badVersion = bytes.slice();
  new DataView(badVersion.buffer).setUint32(8, ARTIFACT_FORMAT_VERSION + 1, true);
  assert.throws(() => deserializeCompiledGrammar(badVersion), (e: unknown) => e instanceof GrammarError && /format version/.test(e.message));
});

test('an artifact cut short is a GrammarError saying so, wherever it is cut; the disk cache takes it as a miss', async () => {
  const compiled = new GrammarCompiler().compile(Grammar.fromJSONSchema({ type: 'array', items: { type: 'integer' }, maxItems: 20 }));
  const bytes = serializeCompiledGrammar(compiled);
  for (const keep of [20, 100, bytes.length >> 1, bytes.length - 10, bytes.length - 1]) {
    const cut = bytes.subarray(0, keep);
    assert.throws(() => deserializeCompiledGrammar(cut), (e: unknown) => e instanceof GrammarError && /not a usable grammar artifact: (it is cut short|its header)/.test(e.message), `cut at ${keep}`);
  }
  const { mkdtempSync, rmSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { GrammarCache } = await import('../../compiler/node.js');
  const dir = mkdtempSync(join(tmpdir(), 'lmforge-artifact-cut-'));
  try {
    const cache = new GrammarCache(dir);
    await cache.writeSpec('k', bytes);
    assert.equal(await cache.readSpec('k'), bytes);
    writeFileSync(cache.specPathOf('k'), bytes.subarray(0, bytes.length - 10));
    assert.is(await cache.readSpec('k'), undefined, 'compiled again, not served cut short');
    // A byte changed in the tables, the length as it was: found by the recorded SHA-256.
    const damaged = bytes.slice();
    damaged[damaged.length - 100]! ^= 0x5a;
    assert.match(artifactProblem(damaged)!, /its tables are damaged \(their SHA-256 is not the one recorded\)/);
    assert.is(artifactProblem(bytes), undefined);
    writeFileSync(cache.specPathOf('k'), damaged);
    assert.is(await cache.readSpec('k'), undefined, 'compiled again, not served damaged');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
