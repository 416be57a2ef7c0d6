import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { selectNucleus, sortByRank } from '../../runtime/sampling/nucleus.js';
import { nucleusOracle, randomLogits, testRandom } from './oracle.js';

/** Candidate arrays built the way TokenSampler builds them. */
function candidates(logits: Float32Array, temperature: number) {
  let max = -Infinity;
  for (const x of logits) max = Math.max(max, x);
  const mass = new Float64Array(logits.length);
  const ids = new Int32Array(logits.length);
  let n = 0;
  let total = 0;
  for (let i = 0; i < logits.length; i++) {
    const e = Math.exp((logits[i]! - max) / temperature);
    if (e > 0) {
      mass[n] = e;
      ids[n] = i;
      n++;
      total += e;
    }
  }
  return { mass, ids, n, total };
}

test('selectNucleus equals the full-sort oracle across vocab sizes and top_p', () => {
  let checked = 0;
  let skipped = 0;
  for (const size of [7, 100, 1000, 50_000, 151_936]) {
    // The full-sort oracle is slow on the largest vocabulary: fewer combinations there.
    const topPs = size > 100_000 ? [0.1, 0.9, 0.99] : [0.01, 0.1, 0.3, 0.5, 0.8, 0.9, 0.95, 0.99];
    const temperatures = size > 10_000 ? [1] : [0.5, 1, 1.7];
    for (const topP of topPs) {
      for (const temperature of temperatures) {
        const logits = randomLogits(size, size * 31 + Math.round(topP * 1000) + temperature * 7);
        const oracle = nucleusOracle(logits, temperature, topP);
        if (oracle.ambiguous) {
          skipped++;
          continue;
        }
        const { mass, ids, n, total } = candidates(logits, temperature);
        const k = selectNucleus(mass, ids, n, topP * total);
        const got = new Set(Array.from(ids.subarray(0, k)));
        assert.is(k, oracle.ids.size, `size ${size} top_p ${topP} T ${temperature}`);
        for (const id of oracle.ids) assert.ok(got.has(id), `token ${id} missing (size ${size}, top_p ${topP})`);
        checked++;
      }
    }
  }
  assert.ok(skipped <= 2, `too many ambiguous cases: ${skipped}`);
  assert.ok(checked >= 80, `only ${checked} cases checked`);
});

test('selectNucleus: flat distribution keeps exactly the lowest ids', () => {
  const n = 1000;
  const mass = new Float64Array(n).fill(1);
  const ids = Int32Array.from({ length: n }, (_, i) => n - 1 - i); // reversed, to be reordered
  const k = selectNucleus(mass, ids, n, 0.25 * n);
  assert.is(k, 250);
  const got = Array.from(ids.subarray(0, k)).sort((a, b) => a - b);
  assert.equal(got, Array.from({ length: 250 }, (_, i) => i));
});

test('selectNucleus edge cases: empty, single, target beyond total, zero target', () => {
  assert.is(selectNucleus(new Float64Array(0), new Int32Array(0), 0, 1), 0);
  assert.is(selectNucleus(Float64Array.of(0.3), Int32Array.of(5), 1, 0.1), 1);
  const mass = Float64Array.of(0.1, 0.2, 0.3, 0.4);
  const ids = Int32Array.of(0, 1, 2, 3);
  assert.is(selectNucleus(mass, ids, 4, 2), 4);
  const mass2 = Float64Array.of(0.1, 0.2, 0.4, 0.3);
  const ids2 = Int32Array.of(0, 1, 2, 3);
  const k = selectNucleus(mass2, ids2, 4, 0);
  assert.is(k, 1);
  assert.is(ids2[0], 2);
});

test('sortByRank matches Array.prototype.sort by (mass desc, id asc)', () => {
  const rand = testRandom(7);
  for (const n of [0, 1, 2, 15, 17, 100, 5000]) {
    const mass = new Float64Array(n);
    const ids = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      mass[i] = Math.floor(rand() * 20) / 20; // many ties
      ids[i] = i;
    }
    const expected = Array.from(ids).sort((a, b) => mass[b]! - mass[a]! || a - b);
    // Shuffle before sorting so the input order carries no information.
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [mass[i], mass[j]] = [mass[j]!, mass[i]!];
      [ids[i], ids[j]] = [ids[j]!, ids[i]!];
    }
    const byId = new Map<number, number>();
    for (let i = 0; i < n; i++) byId.set(ids[i]!, mass[i]!);
    sortByRank(mass, ids, 0, n);
    assert.equal(Array.from(ids), expected);
    for (let i = 0; i < n; i++) assert.is(mass[i], byId.get(ids[i]!));
  }
});

test.run();
