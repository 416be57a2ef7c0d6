// The on-disk grammar cache stays within its byte bound: past it the least recently used files
// go (a read that hits counts as a use), a writer's young temporary file stays, and two
// processes pruning the same folder at once both end well.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Grammar, GrammarCompiler, serializeCompiledGrammar } from '../../compiler/index.js';
import { GrammarCache } from '../../compiler/grammar-cache.js';

const test = suite('grammar cache: byte bound');
let dir = '';

test.before.each(() => {
  dir = mkdtempSync(join(tmpdir(), 'lmforge-grammar-bound-'));
});
test.after.each(() => rmSync(dir, { recursive: true, force: true }));

const compiled = new GrammarCompiler().compile(Grammar.fromEBNF('root ::= "yes" | "no"'));
const artifact = serializeCompiledGrammar(compiled);
/** Every spec artifact here has this size. */
const S = artifact.byteLength;
const key = (c: string) => c.repeat(64);
const specName = (c: string) => `spec-${key(c)}.lmgrammar`;

/** A file in the folder, last used `ageSeconds` ago. */
function place(name: string, ageSeconds: number, bytes: Uint8Array = artifact): void {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  const at = Date.now() / 1000 - ageSeconds;
  utimesSync(path, at, at);
}

const artifacts = () => readdirSync(dir).filter((name) => name.endsWith('.lmgrammar')).sort();
const totalBytes = () => artifacts().reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);

test('past the bound the least recently used files go, and a read that hits is a use', async () => {
  place(specName('a'), 300);
  place(specName('b'), 200);
  place(specName('c'), 100);
  // Four files are over it, three are under 80% of it: one must go.
  const cache = new GrammarCache(dir, { maxBytes: Math.floor(3.9 * S) });
  assert.equal(await cache.readSpec(key('a')), artifact, 'the oldest file is read');
  await cache.writeSpec(key('d'), artifact);
  await cache.settled();
  assert.equal(artifacts(), [specName('a'), specName('c'), specName('d')].sort(), 'b, the least recently used, went; a was read since');
});

test("compile-grammar's artifacts follow the same order: reading one by its hash is a use", async () => {
  const cache = new GrammarCache(dir, { maxBytes: Math.floor(3.9 * S) });
  const path = cache.write(compiled);
  await cache.settled();
  const at = Date.now() / 1000 - 400;
  utimesSync(path, at, at);
  place(specName('b'), 200);
  place(specName('c'), 100);
  assert.ok(cache.read(compiled.hash), 'the artifact reads back');
  assert.ok(Date.now() - statSync(path).mtimeMs < 60_000, 'reading it marked it used now');
  // Writing an artifact that is already there is a use too, and adds nothing.
  assert.is(cache.write(compiled), path);
  await cache.writeSpec(key('d'), artifact);
  await cache.settled();
  assert.ok(artifacts().includes(path.slice(dir.length + 1)), 'the artifact read last survives');
  assert.not.ok(artifacts().includes(specName('b')), 'the oldest unread file went');
});

test('many writes at once leave the folder within the bound', async () => {
  const bound = 10 * S;
  const cache = new GrammarCache(dir, { maxBytes: bound });
  const keys = [...'abcdefghijklmnopqrstuvwxyz0123456789'];
  // All at once, as a busy server's: the writes made while a pass runs put the folder over again when it ends.
  await Promise.all(keys.map((c) => cache.writeSpec(key(c), artifact)));
  await cache.settled();
  assert.ok(totalBytes() <= bound, `${totalBytes()} bytes in the folder, over the bound of ${bound}`);
  assert.ok(artifacts().length >= 5, `pruned to 80% of the bound, not emptied: ${artifacts().length} files`);
});

test("temporary files: a writer's young one stays, one left for hours by a writer that died goes; other files are not the cache's", async () => {
  place(specName('a'), 100);
  place(`${specName('y')}.4242.tmp`, 10);
  place(`${specName('s')}.4243.tmp`, 2 * 60 * 60);
  place('notes.txt', 2 * 60 * 60);
  const cache = new GrammarCache(dir, { maxBytes: 100 * S });
  await cache.writeSpec(key('b'), artifact);
  await cache.settled();
  assert.equal(readdirSync(dir).sort(), [`${specName('y')}.4242.tmp`, 'notes.txt', specName('a'), specName('b')].sort());
});

test('two caches pruning one folder at once: a file the other removed first counts as removed, nothing throws', async () => {
  // 40 old files and a new one from each: both passes remove the oldest, whichever gets to each first.
  for (let i = 0; i < 40; i++) place(`spec-${String(i).padStart(64, '0')}.lmgrammar`, 1000 - i);
  const bound = Math.floor(40.5 * S);
  const [one, two] = [new GrammarCache(dir, { maxBytes: bound }), new GrammarCache(dir, { maxBytes: bound })];
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    await Promise.all([one.writeSpec(key('n'), artifact), two.writeSpec(key('m'), artifact)]);
    await Promise.all([one.settled(), two.settled()]);
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
  assert.equal(unhandled, []);
  // 80% of 40.5 files is 32.4: of the 42, the 10 oldest go (9 where neither pass saw the other's new file), and no
  // more: a pass that took a file the other removed first for one it could not remove went on to remove more.
  const kept = artifacts();
  assert.ok(kept.length === 32 || kept.length === 33, `${kept.length} files kept`);
  assert.ok(kept.includes(specName('n')) && kept.includes(specName('m')), 'the new files are kept');
  assert.ok(kept.includes(`spec-${String(10).padStart(64, '0')}.lmgrammar`), 'the oldest are the ones gone');
  assert.not.ok(kept.includes(`spec-${String(8).padStart(64, '0')}.lmgrammar`), 'the oldest are the ones gone');
});

test('a damaged artifact is written over by compile-grammar as by the server; a failed write leaves no temporary file', async () => {
  const cache = new GrammarCache(dir);
  const path = cache.write(compiled);
  writeFileSync(path, artifact.subarray(0, 100)); // cut short
  assert.is(cache.write(compiled), path);
  assert.is(statSync(path).size, S, 'written whole again');
  assert.ok(cache.read(compiled.hash));
  // A folder where the spec file should go: the rename fails, and its temporary file goes with it.
  mkdirSync(join(dir, specName('e')));
  await cache.writeSpec(key('e'), artifact).then(
    () => assert.unreachable('the write cannot succeed'),
    () => undefined,
  );
  assert.equal(readdirSync(dir).filter((name) => name.endsWith('.tmp')), []);
});

test('an artifact larger than the whole bound is not stored; a bound of Infinity never removes anything', async () => {
  const small = new GrammarCache(dir, { maxBytes: S - 1 });
  await small.writeSpec(key('a'), artifact);
  assert.equal(artifacts(), []);
  for (let i = 0; i < 5; i++) place(`spec-${String(i).padStart(64, '0')}.lmgrammar`, 100 - i);
  const unbounded = new GrammarCache(dir, { maxBytes: Infinity });
  await unbounded.writeSpec(key('b'), artifact);
  await unbounded.settled();
  assert.is(artifacts().length, 6);
});

test.run();
