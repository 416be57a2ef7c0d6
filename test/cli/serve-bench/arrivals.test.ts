import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { poissonGaps } from '../../../cli/serve-bench/arrivals.js';
import { mean } from '../../../cli/serve-bench/percentile.js';

test('Poisson gaps have mean 1/rate and the spread of an exponential', () => {
  const rate = 4;
  const gaps = poissonGaps(rate, 20_000, 7);
  const m = mean(gaps);
  // The standard error of the mean is 0.25/sqrt(20000) ≈ 0.0018: 3% is over 4 of them.
  assert.ok(Math.abs(m - 1 / rate) < 0.03 / rate, `mean gap ${m}`);
  const sd = Math.sqrt(mean(gaps.map((g) => (g - m) ** 2)));
  assert.ok(Math.abs(sd / m - 1) < 0.05, `coefficient of variation ${sd / m}, an exponential has 1`);
  assert.ok(gaps.every((g) => g >= 0 && Number.isFinite(g)));
});

test('the same seed gives the same schedule, another seed another', () => {
  assert.equal(poissonGaps(2, 50, 1), poissonGaps(2, 50, 1));
  assert.not.equal(poissonGaps(2, 50, 1), poissonGaps(2, 50, 2));
});

test('a rate that is not positive is refused', () => {
  assert.throws(() => poissonGaps(0, 3, 0), /positive/);
  assert.throws(() => poissonGaps(Number.NaN, 3, 0), /positive/);
});

test.run();
