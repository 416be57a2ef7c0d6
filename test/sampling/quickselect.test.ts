// The partition step top_k and top_p's boundary bucket select with: for every pivot position,
// over keys with many ties, what ranks before the pivot (larger key, lower id on ties) ends up
// before it in the order it stood, and the rest after it, every pair kept whole.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FIRST_PIVOT_STATE, nextPivotState, partitionAround, pivotIndex } from '../../runtime/sampling/quickselect.js';
import { SeededRng } from '../../runtime/sampling/seeded-rng.js';

const before = (a: [number, number], b: [number, number]) => a[0] > b[0] || (a[0] === b[0] && a[1] < b[1]);

test('partitionAround: the pairs ranking before the pivot come first, in the order they stood; the pivot at the index it returns', () => {
  const rng = new SeededRng(7);
  for (const size of [1, 2, 3, 10, 57]) {
    for (let pivot = 0; pivot < size; pivot++) {
      for (const lo of [0, Math.floor(size / 3)]) {
        if (pivot < lo) continue;
        // Few distinct keys, so ties decide many places; ids shuffled.
        const ids = Int32Array.from({ length: size }, (_, i) => i);
        for (let i = size - 1; i > 0; i--) {
          const j = rng.nextUint32() % (i + 1);
          [ids[i], ids[j]] = [ids[j]!, ids[i]!];
        }
        const keys = Float64Array.from({ length: size }, () => rng.nextUint32() % 4);
        const pairs = Array.from({ length: size }, (_, i): [number, number] => [keys[i]!, ids[i]!]);
        const pivotPair = pairs[pivot]!;
        const m = partitionAround(keys, ids, lo, size, pivot);
        const after = Array.from({ length: size }, (_, i): [number, number] => [keys[i]!, ids[i]!]);
        assert.equal(after.slice(0, lo), pairs.slice(0, lo), 'nothing before lo moves');
        assert.equal(after[m], pivotPair, 'the pivot stands at the index returned');
        // The pivot was first swapped with the last pair; the scan then keeps its order.
        const scanned = pairs.slice(lo);
        [scanned[pivot - lo], scanned[scanned.length - 1]] = [scanned[scanned.length - 1]!, scanned[pivot - lo]!];
        assert.equal(after.slice(lo, m), scanned.slice(0, -1).filter((p) => before(p, pivotPair)), 'those ranking before, in order');
        assert.ok(after.slice(m + 1).every((p) => !before(p, pivotPair)), 'none after the pivot ranks before it');
        assert.equal([...after].sort((a, b) => a[1] - b[1]), [...pairs].sort((a, b) => a[1] - b[1]), 'every pair kept whole');
      }
    }
  }
});

test('the pivot stream: each index inside its range, every one reached', () => {
  let state = FIRST_PIVOT_STATE;
  const seen = new Set<number>();
  for (let i = 0; i < 1000; i++) {
    state = nextPivotState(state);
    const index = pivotIndex(state, 5, 17);
    assert.ok(index >= 5 && index < 17, `index ${index}`);
    seen.add(index);
  }
  assert.is(seen.size, 12, 'every index of the range is reached');
});

test.run();
