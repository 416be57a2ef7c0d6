// The KV manager and its radix tree against a model of llama.cpp's cache (no model): shared
// prefixes, splits, recycling, LRU eviction, and cell counts that match the cache's own.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { KvManager, mirroredKvOps, type KvManagerOptions } from '../../runtime/engine/worker/kv-manager.js';
import { FakeKvCache, range } from '../helpers/fake-kv-cache.js';

const test = suite('kv manager');

function setup(options: Partial<KvManagerOptions> = {}) {
  const cache = new FakeKvCache(options.copiesCells === true);
  const kv = new KvManager(cache, { cells: 1000, runningSlots: 4, recyclingSlots: 2, ...options });
  /** Allocates a slot, takes what the cache holds of `tokens`, computes the rest (all but nothing). */
  const run = (tokens: number[]): { slot: number; shared: number } => {
    const slot = kv.allocate();
    const shared = kv.share(slot, tokens, tokens.length - 1);
    compute(slot, tokens.slice(shared), shared);
    return { slot, shared };
  };
  const compute = (slot: number, tokens: number[], from = kv.lengthOf(slot)): void => {
    cache.compute(slot, from, tokens.length);
    kv.extend(slot, tokens);
  };
  return { cache, kv, run, compute };
}

test('a finished sequence leaves its cells; a prompt that starts the same shares them and computes the rest', () => {
  const { cache, kv, run } = setup();
  const a = run(range(100, 120));
  kv.release(a.slot, true);
  assert.is(kv.usedCells, 20);
  assert.is(kv.cachedOnlyCells, 20, 'all of them are only cached now');
  const b = run([...range(100, 112), 7, 8, 9]);
  assert.is(b.shared, 12);
  assert.equal(cache.positionsOf(b.slot), range(0, 15));
  for (const p of range(0, 12)) assert.ok(cache.shareCell(a.slot, b.slot, p), `position ${p} is one cell`);
  assert.is(kv.usedCells, 23, '20 cached + 3 new');
  assert.is(cache.cells.size, kv.usedCells, 'the count matches the cache');
  assert.is(kv.cachedOnlyCells, 8, 'the 8 cells after the split point are only cached');
});

test("a sequence that may share only with its request's own choices finds its first choice's prompt past a longer cached twin (cache_prompt false with n > 1 computed the prompt once a choice, and ran out of cells)", () => {
  const { cache, kv, run, compute } = setup();
  const prompt = range(100, 140);
  // An earlier request left the same prompt, and more, in the cache.
  const earlier = run([...prompt, 1, 2, 3]);
  kv.release(earlier.slot, true);
  // This request computes its own copy of the prompt (its first choice may not take the cache's) ...
  const first = kv.allocate();
  compute(first, prompt);
  // ... and its second choice takes the first's cells, not none.
  const second = kv.allocate();
  const ownChoices = (holder: number) => holder === first;
  assert.is(kv.share(second, prompt, prompt.length - 1, ownChoices), prompt.length - 1);
  for (const p of range(0, 39)) assert.ok(cache.shareCell(first, second, p), `position ${p} is the first choice's cell`);
  assert.not.ok(cache.shareCell(earlier.slot, second, 0), 'none of the earlier request\'s cells');
});

test('a match never takes the last token: its logits are needed', () => {
  const { kv, run } = setup();
  const a = run(range(0, 10));
  kv.release(a.slot, true);
  const b = run(range(0, 10));
  assert.is(b.shared, 9);
});

test('sharing follows a slot’s own chain and goes on from where it stands', () => {
  const { cache, kv, compute } = setup();
  const a = kv.allocate();
  compute(a, range(0, 50));
  const b = kv.allocate();
  assert.is(kv.share(b, range(0, 30), 30), 30);
  assert.is(kv.share(b, range(0, 60), 59), 50, 'later it takes what the holder has added since');
  assert.equal(cache.positionsOf(b), range(0, 50));
  compute(b, range(50, 55));
  compute(a, [1, 2, 3]);
  assert.is(kv.usedCells, 58);
  assert.is(cache.cells.size, 58);
});

test('two sequences that compute the same tokens hold two copies, counted twice', () => {
  const { cache, kv, compute } = setup();
  const a = kv.allocate();
  compute(a, range(0, 10));
  const b = kv.allocate();
  kv.share(b, range(0, 10), 10);
  compute(a, [42]);
  compute(b, [42]);
  assert.is(kv.usedCells, 12);
  assert.is(cache.cells.size, 12);
  kv.release(a, false);
  assert.is(kv.usedCells, 11);
  assert.is(cache.cells.size, 11);
  const c = kv.allocate();
  assert.is(kv.share(c, [...range(0, 10), 42, 1], 11), 11, 'the remaining copy serves the match');
});

test('releasing without keeping frees exactly the cells nobody else holds', () => {
  const { cache, kv, run } = setup({ recyclingSlots: 0 });
  const a = run(range(0, 40));
  const b = run([...range(0, 30), 5, 6]);
  assert.is(b.shared, 30);
  kv.release(a.slot, false);
  kv.release(b.slot, false);
  assert.is(kv.usedCells, 0);
  assert.is(cache.cells.size, 0);
});

test('running holders share too: a prefix is served while its holder still runs', () => {
  const { cache, kv, run } = setup({ recyclingSlots: 0 });
  const a = run(range(0, 40));
  const b = run([...range(0, 30), 5, 6]);
  assert.is(b.shared, 30);
  assert.is(cache.cells.size, 42);
  kv.release(a.slot, false);
  assert.is(cache.cells.size, 32, "a's own 10 cells are gone; the shared 30 stay with b");
  assert.is(kv.usedCells, 32);
});

test('a stream per sequence: a shared prefix is copied, and every slot\'s copy counts', () => {
  const { cache, kv, run } = setup({ copiesCells: true });
  const a = run(range(100, 120));
  kv.release(a.slot, true);
  assert.equal([kv.usedCells, kv.cachedOnlyCells], [20, 20]);
  const b = run([...range(100, 112), 7, 8, 9]);
  assert.is(b.shared, 12);
  assert.equal(cache.positionsOf(b.slot), range(0, 15));
  assert.not.ok(cache.shareCell(a.slot, b.slot, 0), 'b has cells of its own');
  assert.is(kv.usedCells, 35, "a's 20 and b's 15, 12 of them copied");
  assert.is(cache.cells.size, kv.usedCells, 'the count matches the cache');
  assert.is(kv.cachedOnlyCells, 20, "a's stream is only cached: all of it is free for the taking");
  kv.release(b.slot, false);
  assert.equal([kv.usedCells, cache.cells.size], [20, 20], "b's copy goes with b; a's cells stay");
  const c = run([...range(100, 118), 1]);
  assert.is(c.shared, 18, 'the cache still serves the prefix after the copy left');
  assert.is(cache.cells.size, kv.usedCells);
});

test('the recycling quota: the oldest cached sequence makes way', () => {
  const { cache, kv, run } = setup({ recyclingSlots: 2 });
  const a = run(range(0, 10));
  kv.release(a.slot, true);
  const b = run(range(100, 110));
  kv.release(b.slot, true);
  const c = run(range(200, 210));
  kv.release(c.slot, true);
  assert.is(kv.recycledSlots, 2);
  assert.is(kv.usedCells, 20);
  assert.is(cache.cells.size, 20);
  const d = kv.allocate();
  assert.is(kv.share(d, range(0, 10), 9), 0, 'the oldest is gone');
  assert.is(kv.share(d, range(100, 110), 9), 9);
});

test('makeRoom evicts least recently used leaves first and never a running sequence’s cells', () => {
  const { cache, kv, run } = setup({ cells: 100, recyclingSlots: 3 });
  const a = run(range(0, 30)); // system prompt + question a
  kv.release(a.slot, true);
  const b = run([...range(0, 20), ...range(500, 510)]); // same system prompt, question b
  kv.release(b.slot, true);
  const c = run(range(1000, 1030)); // unrelated, still running
  assert.is(kv.usedCells, 70);
  // The oldest leaf is a's own question (positions 20..29).
  assert.ok(kv.makeRoom(40));
  assert.is(kv.freeCells, 40);
  const probe = kv.allocate();
  assert.is(kv.share(probe, range(0, 30), 29), 20, "a's leaf went first; the shared system prompt stayed");
  kv.release(probe, false);
  assert.not.ok(kv.makeRoom(71), 'only the running sequence is left: no room can be made');
  assert.equal(cache.positionsOf(c.slot), range(0, 30), "the running sequence's cells are intact");
  assert.is(kv.recycledSlots, 0, 'the evicted sequences gave their slots back');
  assert.is(cache.cells.size, kv.usedCells);
});

test('sharing can be limited to some holders (the choices of one request)', () => {
  const { kv, compute } = setup();
  const a = kv.allocate();
  compute(a, range(0, 20));
  const b = kv.allocate();
  kv.share(b, range(0, 10), 10);
  compute(b, range(10, 30).map((t) => t + 1000));
  const c = kv.allocate();
  assert.is(kv.share(c, range(0, 20), 19, (holder) => holder === b), 10, 'only what b holds');
  const d = kv.allocate();
  assert.is(kv.share(d, range(0, 20), 19, () => false), 0);
});

test('a reuse rule (sliding windows) caps what is shared', () => {
  const { kv, run } = setup({ reusable: (matched) => Math.max(0, matched - 8) });
  const a = run(range(0, 40));
  kv.release(a.slot, true);
  assert.is(run(range(0, 40)).shared, 31);
});

test('slots: running sequences are bounded by runningSlots; cached ones never take their places', () => {
  const { kv, run } = setup({ runningSlots: 2, recyclingSlots: 2 });
  const a = run(range(0, 5));
  const b = run(range(10, 15));
  assert.not.ok(kv.canAllocate(1));
  kv.release(a.slot, true);
  kv.release(b.slot, true);
  assert.ok(kv.canAllocate(2));
  assert.is(kv.slotCount, 4);
  const c = run(range(0, 5));
  const d = run(range(20, 25));
  assert.ok(c.slot !== a.slot && d.slot !== b.slot && c.slot !== b.slot && d.slot !== a.slot, 'the cached slots stay cached');
});

test('a mirrored cache (an EAGLE-3 draft\'s) gets every copy and remove the target gets: sharing, dropped drafts, eviction', () => {
  const target = new FakeKvCache();
  const draft = new FakeKvCache();
  const kv = new KvManager(mirroredKvOps(target, draft), { cells: 1000, runningSlots: 2, recyclingSlots: 1 });
  const compute = (slot: number, tokens: number[]): void => {
    target.compute(slot, kv.lengthOf(slot), tokens.length);
    draft.compute(slot, kv.lengthOf(slot), tokens.length);
    kv.extend(slot, tokens);
  };
  const a = kv.allocate();
  compute(a, range(0, 10));
  // Two draft positions computed on both, then rejected.
  target.compute(a, 10, 2);
  draft.compute(a, 10, 2);
  kv.dropUnrecorded(a);
  kv.release(a, true);
  const b = kv.allocate();
  assert.is(kv.share(b, range(0, 12), 11), 10);
  compute(b, [50]);
  kv.release(b, false);
  assert.equal(draft.calls, target.calls);
  assert.equal(draft.positionsOf(b), target.positionsOf(b));
  assert.equal(draft.positionsOf(a), target.positionsOf(a));
  assert.ok(kv.makeRoom(1000), 'evicts the cached prefix');
  assert.equal(draft.calls, target.calls);
  assert.is(draft.cells.size, target.cells.size);
});

test('allocate takes the free slot ranked highest, the most recently freed among equals', () => {
  const { kv } = setup({ recyclingSlots: 0 });
  const slots = [kv.allocate(), kv.allocate(), kv.allocate(), kv.allocate()];
  assert.equal(slots, [0, 1, 2, 3], 'unranked: the lowest ids first, as they were stacked');
  for (const slot of [2, 0, 3, 1]) kv.release(slot, false);
  assert.is(kv.allocate(), 1, 'unranked: the last freed');
  assert.is(kv.allocate((slot) => (slot === 2 ? 1 : 0)), 2, 'the one ranked above the others, though freed first');
  assert.is(kv.allocate(() => 5), 3, 'all alike: the last freed of those left');
  assert.is(kv.allocate((slot) => -slot), 0, 'the only one left');
  assert.throws(() => kv.allocate(() => 1), /no free sequence slot/);
});

test.run();
