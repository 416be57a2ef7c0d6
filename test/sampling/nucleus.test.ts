import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HIGH_WORD, NUCLEUS_PREFILTER, bucketOfHighWord, keepNucleus, keepNucleusAmong, selectNucleus } from '../../runtime/sampling/nucleus.js';
import { SamplingScratch } from '../../runtime/sampling/sampling-scratch.js';
import { nucleusOracle, randomLogits } from './oracle.js';

/** Candidates as compact arrays (for selectNucleus): masses as TokenSampler computes them. */
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

/** The kept set keepNucleus flagged, in id order. */
function keptIds(scratch: SamplingScratch, size: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < size; i++) if ((scratch.keptBits[i >>> 5]! >>> (i & 31)) & 1) out.push(i);
  return out;
}

function forEachCase(fn: (logits: Float32Array, topP: number, temperature: number) => void): void {
  let checked = 0;
  let skipped = 0;
  for (const size of [7, 100, 1000, 50_000, 151_936]) {
    // The full-sort oracle is slow on the largest vocabulary: fewer combinations there.
    const topPs = size > 100_000 ? [0.1, 0.9, 0.99] : [0.01, 0.1, 0.3, 0.5, 0.8, 0.9, 0.95, 0.99];
    const temperatures = size > 10_000 ? [1] : [0.5, 1, 1.7];
    for (const topP of topPs) {
      for (const temperature of temperatures) {
        const logits = randomLogits(size, size * 31 + Math.round(topP * 1000) + temperature * 7);
        if (nucleusOracle(logits, temperature, topP).ambiguous) {
          skipped++;
          continue;
        }
        fn(logits, topP, temperature);
        checked++;
      }
    }
  }
  assert.ok(skipped <= 2, `too many ambiguous cases: ${skipped}`);
  assert.ok(checked >= 80, `only ${checked} cases checked`);
}

test('selectNucleus equals the full-sort oracle across vocab sizes and top_p', () => {
  forEachCase((logits, topP, temperature) => {
    const oracle = nucleusOracle(logits, temperature, topP).ids;
    const { mass, ids, n, total } = candidates(logits, temperature);
    const k = selectNucleus(mass, ids, n, topP * total);
    const got = new Set(Array.from(ids.subarray(0, k)));
    assert.is(k, oracle.size, `size ${logits.length} top_p ${topP} T ${temperature}`);
    for (const id of oracle) assert.ok(got.has(id), `token ${id} missing (size ${logits.length}, top_p ${topP})`);
  });
});

/** One scratch per vocabulary size, shared by the cases of a test. */
function scratchesBySize(): (size: number) => SamplingScratch {
  const scratches = new Map<number, SamplingScratch>();
  return (size) => {
    let scratch = scratches.get(size);
    if (!scratch) scratches.set(size, (scratch = new SamplingScratch(size)));
    return scratch;
  };
}

const maxOf = (logits: Float32Array): number => logits.reduce((a, b) => Math.max(a, b), -Infinity);

/** The kept bits and the count a keep function returned are the oracle's nucleus. */
function assertOracleKept(scratch: SamplingScratch, kept: number, logits: Float32Array, topP: number, temperature: number): void {
  const oracle = [...nucleusOracle(logits, temperature, topP).ids].sort((a, b) => a - b);
  assert.equal(keptIds(scratch, logits.length), oracle, `size ${logits.length} top_p ${topP} T ${temperature}`);
  assert.is(kept, oracle.length);
}

test('keepNucleus (buckets + quickselect) equals the oracle and clears its histogram', () => {
  const scratchFor = scratchesBySize();
  forEachCase((logits, topP, temperature) => {
    const size = logits.length;
    const scratch = scratchFor(size);
    const max = maxOf(logits);
    let total = 0;
    for (let i = 0; i < size; i++) total += scratch.mass[i] = Math.exp((logits[i]! - max) / temperature);
    assertOracleKept(scratch, keepNucleus(scratch, size, topP * total), logits, topP, temperature);
    assert.ok(scratch.bucketMass.every((m) => m === 0));
  });
});

test('keepNucleusAmong over the tokens of mass ≥ NUCLEUS_PREFILTER equals the oracle whenever they hold the target', () => {
  const scratchFor = scratchesBySize();
  let among = 0;
  forEachCase((logits, topP, temperature) => {
    const size = logits.length;
    const scratch = scratchFor(size);
    const max = maxOf(logits);
    let total = 0;
    let n = 0;
    let candidateMass = 0;
    for (let i = 0; i < size; i++) {
      const e = Math.exp((logits[i]! - max) / temperature);
      total += e;
      if (e < NUCLEUS_PREFILTER) continue;
      scratch.tiedMass[n] = e;
      scratch.tiedIds[n++] = i;
      candidateMass += e;
    }
    if (candidateMass < topP * total) return;
    among++;
    assertOracleKept(scratch, keepNucleusAmong(scratch, size, n, topP * total), logits, topP, temperature);
  });
  assert.ok(among >= 60, `only ${among} cases had the nucleus among the candidates`);
});

test('keepNucleus never keeps impossible (zero-mass) tokens, even when rounding asks for all', () => {
  const size = 70;
  const scratch = new SamplingScratch(size);
  scratch.mass.fill(0);
  for (const i of [3, 40, 69]) scratch.mass[i] = 0.25;
  assert.is(keepNucleus(scratch, size, 0.75 + 1e-9), 3);
  assert.equal(keptIds(scratch, size), [3, 40, 69]);
  assert.is(keepNucleus(scratch, size, 0.3), 2);
  assert.equal(keptIds(scratch, size), [3, 40]); // equal mass: lower ids first
});

test('mass buckets are monotone: more mass never lands in a later bucket', () => {
  const bits = new Float64Array(1);
  const words = new Uint32Array(bits.buffer);
  const bucket = (x: number) => {
    bits[0] = x;
    return bucketOfHighWord(words[HIGH_WORD]!);
  };
  let prev = 0;
  for (let x = 1; x > 1e-30; x *= 0.987) {
    const b = bucket(x);
    assert.ok(b >= prev && b >= 0, `bucket of ${x}`);
    prev = b;
  }
  assert.is(bucket(1), 0);
  assert.is.not(bucket(0.5), bucket(0.3));
  assert.is(bucket(1e-300), bucket(1e-200)); // both in the catch-all bucket
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

test.run();
