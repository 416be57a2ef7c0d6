// typical_p's ranking without a comparator: ascendingOrder must give exactly the order of
// `sort((a, b) => keys[a] - keys[b] || a - b)`, over keys with many ties, zeros, subnormals,
// keys differing only in their lowest mantissa bits, and +Infinity; and typical_p keeps, on a
// vocabulary with tied masses, exactly the set the comparator sort kept.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ascendingOrder } from '../../runtime/sampling/radix-order.js';
import { keepTypical, totalMass } from '../../runtime/sampling/candidate-filters.js';
import { SamplingScratch } from '../../runtime/sampling/sampling-scratch.js';
import { SeededRng } from '../../runtime/sampling/seeded-rng.js';

const comparatorOrder = (keys: Float64Array, n: number) => Array.from({ length: n }, (_, j) => j).sort((a, b) => keys[a]! - keys[b]! || a - b);

test('the order of a comparator sort, ties by index, on every kind of non-negative double', () => {
  const rng = new SeededRng(11);
  const next = () => rng.nextUint32() / 4294967296;
  const kinds: ((j: number) => number)[] = [
    () => rng.nextUint32() % 5, // few distinct values: ties everywhere
    () => next() * 12,
    () => (next() < 0.2 ? 0 : next() < 0.5 ? Number.MIN_VALUE * (1 + (rng.nextUint32() % 3)) : 1 + (rng.nextUint32() % 4) * Number.EPSILON), // zeros, subnormals, last-bit differences
    () => (next() < 0.05 ? Infinity : 1e300 * next()),
    (j) => j % 7 === 0 ? 2 ** -1074 : 2 ** (Math.floor(next() * 2000) - 1000), // every exponent
  ];
  for (const [k, kind] of kinds.entries()) {
    for (const n of [0, 1, 2, 255, 256, 257, 1000, 49_152]) {
      const keys = Float64Array.from({ length: n }, (_, j) => kind(j));
      const order = ascendingOrder(keys, n, new Uint32Array(n), new Uint32Array(n));
      assert.equal(Array.from(order.subarray(0, n)), comparatorOrder(keys, n), `kind ${k}, n ${n}`);
    }
  }
});

test('typical_p keeps what the comparator-sorted ranking kept, with tied masses', () => {
  const size = 5000;
  const rng = new SeededRng(3);
  for (const p of [0.1, 0.5, 0.9, 0.999]) {
    const scratch = new SamplingScratch(size);
    // Masses from 20 distinct values (many tokens tie on their score) and some removed tokens.
    for (let i = 0; i < size; i++) scratch.mass[i] = rng.nextUint32() % 10 === 0 ? 0 : Math.exp(-(rng.nextUint32() % 20) / 3);
    const masses = Float64Array.from(scratch.mass);
    keepTypical(scratch, size, totalMass(scratch.mass, size), p);
    // The reference: the same definition with the comparator sort (as before radix-order.ts).
    const total = totalMass(masses, size);
    const ids = [...masses.keys()].filter((i) => masses[i]! > 0);
    let entropy = 0;
    for (const i of ids) entropy -= (masses[i]! / total) * Math.log(masses[i]! / total);
    const scores = Float64Array.from(ids, (i) => Math.abs(-Math.log(masses[i]! / total) - entropy));
    const ranked = comparatorOrder(scores, ids.length);
    let cumulative = 0;
    let kept = ranked.length;
    for (let r = 0; r < ranked.length; r++) {
      cumulative += masses[ids[ranked[r]!]!]! / total;
      if (cumulative >= p) {
        kept = r + 1;
        break;
      }
    }
    const wanted = new Set(ranked.slice(0, kept).map((j) => ids[j]!));
    const got = [...scratch.mass.keys()].filter((i) => scratch.mass[i]! > 0);
    assert.equal(got, [...wanted].sort((a, b) => a - b), `p ${p}`);
    assert.ok(got.length > 0 && got.length < ids.length, `p ${p} keeps some, not all: ${got.length} of ${ids.length}`);
  }
});

test.run();
