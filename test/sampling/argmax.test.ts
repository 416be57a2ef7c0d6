// plainArgmax keeps four running maxima and then looks up the first index of the largest: it
// must answer exactly as one pass with one maximum does, wherever the maximum, its ties, a NaN
// or the row's tail (past a multiple of four) fall.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { plainArgmax } from '../../runtime/sampling/argmax.js';
import { testRandom } from '../helpers/test-random.js';

const test = suite('plainArgmax');

/** The definition: lowest index of the largest value; 'nan' or 'none' for the two errors. */
function expected(row: Float32Array): number | 'nan' | 'none' {
  if (row.some((x) => Number.isNaN(x))) return 'nan';
  let best = -1;
  for (let i = 0; i < row.length; i++) if (row[i]! > (best < 0 ? -Infinity : row[best]!)) best = i;
  return best < 0 ? 'none' : best;
}

function answer(row: Float32Array): number | 'nan' | 'none' {
  try {
    return plainArgmax(row);
  } catch (error) {
    return /NaN/.test((error as Error).message) ? 'nan' : 'none';
  }
}

test('agrees with the definition on rows of every length mod 4, with ties, -Infinity and NaN anywhere', () => {
  const random = testRandom(29);
  // Few distinct values, so that ties of the maximum land in different lanes and in the tail.
  const values = [-Infinity, -1, 0, 0.5, 2, 2.5];
  for (let trial = 0; trial < 5000; trial++) {
    const length = 1 + Math.floor(random() * 19);
    const row = Float32Array.from({ length }, () => values[Math.floor(random() * values.length)]!);
    if (random() < 0.15) row[Math.floor(random() * length)] = NaN;
    if (random() < 0.05) row.fill(-Infinity);
    assert.is(answer(row), expected(row), `row ${Array.from(row).join(', ')}`);
  }
});

test('finds the largest in a vocabulary-sized row, and the lowest of two equal ones', () => {
  const random = testRandom(7);
  const row = Float32Array.from({ length: 50257 }, () => random() * 10 - 5);
  row[31001] = 9;
  assert.is(plainArgmax(row), 31001);
  row[40003] = 9;
  row[12] = 9;
  assert.is(plainArgmax(row), 12);
  row[50256] = NaN;
  assert.throws(() => plainArgmax(row), /NaN/);
});

test.run();
