// The sliding-window reuse rule, checked against a brute-force oracle: a prefix [0, m) is
// reusable when the holder still has every position its first new token attends to.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { reusablePrefixLength } from '../../runtime/engine/worker/sliding-window.js';

const test = suite('sliding window');

/** Oracle: positions the token at m sees in an SWA layer, all present in [minPosition, ∞). */
function oracle(matched: number, minPosition: number, window: number): number {
  const reusable = (m: number): boolean => {
    if (m === 0) return true;
    if (minPosition < 0) return false;
    for (let p = m - 1; p >= 0; p--) {
      // m - 1 is needed even when not attended, so the copy is never empty.
      const needed = window === 0 || m - p < window || p === m - 1;
      if (needed && p < minPosition) return false;
    }
    return true;
  };
  for (let m = matched; m > 0; m--) if (reusable(m)) return m;
  return 0;
}

test('a model without a sliding window reuses any length its holder has from 0', () => {
  assert.is(reusablePrefixLength(1000, 0, 0), 1000);
  assert.is(reusablePrefixLength(1, 0, 0), 1);
  assert.is(reusablePrefixLength(0, 0, 0), 0);
});

test('below the window the holder must still have position 0', () => {
  assert.is(reusablePrefixLength(20, 0, 32), 20);
  assert.is(reusablePrefixLength(20, 1, 32), 0);
});

test('the edge: the first new token at m needs positions m - W + 1 .. m - 1', () => {
  // Holder kept [144, P): m = 175 needs 144.. (reusable), m = 174 needs 143.. (gone).
  assert.is(reusablePrefixLength(175, 144, 32), 175);
  assert.is(reusablePrefixLength(174, 144, 32), 0);
  assert.is(reusablePrefixLength(300, 144, 32), 300);
  assert.is(reusablePrefixLength(100, 144, 32), 0);
});

test('a window of 1 attends to no earlier position, but the copy still needs m - 1', () => {
  assert.is(reusablePrefixLength(50, 49, 1), 50);
  assert.is(reusablePrefixLength(50, 50, 1), 0);
});

test('a holder with no cells gives nothing', () => {
  assert.is(reusablePrefixLength(10, -1, 32), 0);
  assert.is(reusablePrefixLength(10, -1, 0), 0);
});

test('agrees with the brute-force oracle everywhere on a grid', () => {
  for (const window of [0, 1, 2, 5, 32]) {
    for (let minPosition = -1; minPosition <= 40; minPosition++) {
      for (let matched = 0; matched <= 80; matched++) {
        assert.is(reusablePrefixLength(matched, minPosition, window), oracle(matched, minPosition, window), `matched ${matched}, min ${minPosition}, window ${window}`);
      }
    }
  }
});

test.run();
