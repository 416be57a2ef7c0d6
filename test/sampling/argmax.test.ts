// plainArgmax runs in wasm SIMD (simd-argmax.ts: four f32x4 maxima over 16-float blocks, then
// the first 4-float block holding the maximum) and scalarArgmax, its JavaScript fallback, keeps
// four running maxima and then looks up the first index of the largest: each must answer exactly
// as one pass with one maximum does, wherever the maximum, its ties, a NaN or the row's tail
// (past a multiple of 4, 16 or 64) fall.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { plainArgmax, scalarArgmax } from '../../runtime/sampling/argmax.js';
import { simdArgmaxAvailable } from '../../runtime/sampling/simd-argmax.js';
import { testRandom } from '../helpers/test-random.js';

const test = suite('plainArgmax');

/** The definition: lowest index of the largest value; 'nan' or 'none' for the two errors. */
function expected(row: Float32Array): number | 'nan' | 'none' {
  if (row.some((x) => Number.isNaN(x))) return 'nan';
  let best = -1;
  for (let i = 0; i < row.length; i++) if (row[i]! > (best < 0 ? -Infinity : row[best]!)) best = i;
  return best < 0 ? 'none' : best;
}

function answer(argmax: (row: Float32Array) => number, row: Float32Array): number | 'nan' | 'none' {
  try {
    return argmax(row);
  } catch (error) {
    return /NaN/.test((error as Error).message) ? 'nan' : 'none';
  }
}

test('the SIMD path runs here (Node has wasm SIMD on every platform the project supports)', () => {
  assert.ok(simdArgmaxAvailable);
});

for (const [name, argmax] of [['plainArgmax (SIMD)', plainArgmax], ['scalarArgmax', scalarArgmax]] as const) {
  test(`${name} agrees with the definition on rows of every length mod 64, with ties, ±0, -Infinity and NaN anywhere`, () => {
    const random = testRandom(29);
    // Few distinct values, so that ties of the maximum land in different lanes, blocks and the tail.
    const values = [-Infinity, -1, -0, 0, 0.5, 2, 2.5];
    for (let trial = 0; trial < 5000; trial++) {
      const length = 1 + Math.floor(random() * 150);
      const row = Float32Array.from({ length }, () => values[Math.floor(random() * values.length)]!);
      if (random() < 0.15) row[Math.floor(random() * length)] = NaN;
      if (random() < 0.05) row.fill(-Infinity);
      if (random() < 0.1) row.fill(-1).fill(random() < 0.5 ? 0 : -0, Math.floor(random() * length));
      assert.is(answer(argmax, row), expected(row), `row ${Array.from(row).join(', ')}`);
    }
  });

  test(`${name} finds the largest in vocabulary-sized rows, and the lowest of equal ones`, () => {
    const random = testRandom(7);
    // 50,257 (GPT-2) and 262,144 (Gemma 3): rows wider than the module's memory at first.
    for (const size of [50257, 262144]) {
      const row = Float32Array.from({ length: size }, () => random() * 10 - 5);
      row[31001] = 9;
      assert.is(argmax(row), 31001);
      row[40003] = 9;
      row[12] = 9;
      assert.is(argmax(row), 12);
      row[size - 1] = 10;
      assert.is(argmax(row), size - 1);
      row[size - 1] = NaN;
      assert.throws(() => argmax(row), /NaN/);
      row.fill(-Infinity);
      assert.throws(() => argmax(row), /no token is possible/);
    }
  });
}

test('a short row after a long one sees only its own values (the module memory keeps the long row)', () => {
  const long = new Float32Array(50257).fill(-1);
  long[40000] = 7;
  assert.is(plainArgmax(long), 40000);
  const short = Float32Array.from([0, 3, 1]);
  assert.is(plainArgmax(short), 1);
});

test.run();
