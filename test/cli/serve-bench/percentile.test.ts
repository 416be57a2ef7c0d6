import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { distribution, mean, median, percentile } from '../../../cli/serve-bench/percentile.js';

const close = (actual: number, expected: number) => assert.ok(Math.abs(actual - expected) < 1e-9, `${actual} != ${expected}`);

test('percentiles interpolate between ranks as numpy does', () => {
  const oneToTen = [7, 3, 10, 1, 5, 2, 9, 4, 8, 6]; // unsorted on purpose
  close(percentile(oneToTen, 0), 1);
  close(percentile(oneToTen, 50), 5.5);
  close(percentile(oneToTen, 90), 9.1);
  close(percentile(oneToTen, 99), 9.91);
  close(percentile(oneToTen, 100), 10);
  close(percentile([2, 4, 4, 5], 25), 3.5);
  close(median([3, 1, 2]), 2);
  assert.equal(oneToTen, [7, 3, 10, 1, 5, 2, 9, 4, 8, 6], 'the input is not sorted in place');
});

test('one value is every percentile; no values give NaN', () => {
  close(percentile([42], 1), 42);
  close(percentile([42], 99), 42);
  assert.ok(Number.isNaN(percentile([], 50)));
  assert.ok(Number.isNaN(mean([])));
});

test('a percentile outside [0, 100] is an error', () => {
  assert.throws(() => percentile([1], 101), /within \[0, 100\]/);
  assert.throws(() => percentile([1], -1), /within \[0, 100\]/);
});

test('distribution gives mean, p50, p90, p99', () => {
  const values = Array.from({ length: 101 }, (_, i) => i); // 0..100: percentile p is p
  const d = distribution(values);
  close(d.mean, 50);
  close(d.p50, 50);
  close(d.p90, 90);
  close(d.p99, 99);
});

test.run();
