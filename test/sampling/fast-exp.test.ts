import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { expNonPositive } from '../../runtime/sampling/fast-exp.js';
import { testRandom } from '../helpers/test-random.js';

test('expNonPositive agrees with Math.exp to a few ulp over the normal range', () => {
  const rand = testRandom(3);
  let worst = 0;
  for (let i = 0; i < 200_000; i++) {
    // Dense near 0 (where logits live) and across the whole normal range.
    const d = i % 2 === 0 ? -rand() * 40 : -rand() * 708;
    const rel = Math.abs(expNonPositive(d) - Math.exp(d)) / Math.exp(d);
    worst = Math.max(worst, rel);
  }
  assert.ok(worst < 1e-15, `worst relative error ${worst}`);
});

test('expNonPositive edge values', () => {
  assert.is(expNonPositive(0), 1);
  assert.is(expNonPositive(-0), 1);
  assert.is(expNonPositive(-1e-300), 1);
  assert.is(expNonPositive(-Infinity), 0);
  assert.is(expNonPositive(-800), 0);
  assert.ok(Number.isNaN(expNonPositive(NaN)));
  // Subnormal results stay close in absolute terms and never go negative.
  for (const d of [-709, -720, -740, -745]) {
    assert.ok(expNonPositive(d) >= 0 && Math.abs(expNonPositive(d) - Math.exp(d)) < 1e-310);
  }
});

test('expNonPositive is monotone on a fine grid', () => {
  let prev = expNonPositive(0);
  for (let d = -1e-4; d > -30; d -= 0.000377) {
    const e = expNonPositive(d);
    assert.ok(e <= prev, `not monotone at ${d}`);
    prev = e;
  }
});

test.run();
