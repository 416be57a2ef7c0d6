// Quickselect's partition step over (key, id) pairs kept in two parallel arrays, on the order
// "larger key first, lower id on ties". That order is total, so what a selection keeps is one
// well-defined set whatever pivots it picks; the pivots come from a fixed xorshift stream, which
// only keeps a flat or adversarial input from degrading the partition. top_k (candidate-filters.ts)
// and top_p's boundary bucket (nucleus.ts) select with it.

/** True when (keyA, idA) ranks strictly before (keyB, idB). */
export function ranksBefore(keyA: number, idA: number, keyB: number, idB: number): boolean {
  return keyA > keyB || (keyA === keyB && idA < idB);
}

/** The pivot stream's state at the start of every selection. */
export const FIRST_PIVOT_STATE = 0x2545f491;

/** The pivot stream's next state (xorshift32). */
export function nextPivotState(state: number): number {
  state ^= state << 13;
  state ^= state >>> 17;
  state ^= state << 5;
  return state;
}

/** A pivot index in [lo, hi) from a state of the stream. */
export function pivotIndex(state: number, lo: number, hi: number): number {
  return lo + ((state >>> 0) % (hi - lo));
}

/**
 * Partitions the pairs [lo, hi) around the one at `pivot` (Lomuto): those ranking before it move
 * to [lo, m) in the order they stood, the pivot to m, the rest after it. Returns m.
 */
export function partitionAround(keys: Float64Array, ids: Int32Array, lo: number, hi: number, pivot: number): number {
  swap(keys, ids, pivot, hi - 1);
  const pivotKey = keys[hi - 1]!;
  const pivotId = ids[hi - 1]!;
  let m = lo;
  for (let j = lo; j < hi - 1; j++) {
    if (ranksBefore(keys[j]!, ids[j]!, pivotKey, pivotId)) swap(keys, ids, j, m++);
  }
  swap(keys, ids, m, hi - 1);
  return m;
}

function swap(keys: Float64Array, ids: Int32Array, i: number, j: number): void {
  const key = keys[i]!;
  keys[i] = keys[j]!;
  keys[j] = key;
  const id = ids[i]!;
  ids[i] = ids[j]!;
  ids[j] = id;
}
