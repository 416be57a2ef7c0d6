// Exact top_p selection without sorting the vocabulary. Candidates live in two parallel arrays
// (`mass`, `ids`) ranked by a strict total order: more mass first, lower id on ties. Because the
// order is total, the nucleus is one well-defined set whatever pivots are chosen, and equal
// probabilities (a flat distribution) cannot degrade the partition.
//
// selectNucleus is quickselect on probability mass: partition around a pivot, keep the side that
// still has to supply mass, and stop once the prefix holds the target. Expected O(n); afterwards
// only the selected prefix is sorted.

/** True when candidate a ranks strictly before candidate b. */
function ranksBefore(massA: number, idA: number, massB: number, idB: number): boolean {
  return massA > massB || (massA === massB && idA < idB);
}

function swap(mass: Float64Array, ids: Int32Array, i: number, j: number): void {
  const m = mass[i]!;
  mass[i] = mass[j]!;
  mass[j] = m;
  const id = ids[i]!;
  ids[i] = ids[j]!;
  ids[j] = id;
}

/**
 * Moves the nucleus of the first `n` candidates to the front and returns its size: the smallest
 * k such that the k best candidates hold at least `target` mass (all n if they never do, at least
 * 1 when n > 0). The front k are left unsorted.
 */
export function selectNucleus(mass: Float64Array, ids: Int32Array, n: number, target: number): number {
  let lo = 0;
  let hi = n;
  let rest = target;
  // A fixed xorshift for pivots: any pivot gives the same set, this one just avoids bad inputs.
  let pivotSeed = 0x2545f491;
  while (hi - lo > 1) {
    pivotSeed ^= pivotSeed << 13;
    pivotSeed ^= pivotSeed >>> 17;
    pivotSeed ^= pivotSeed << 5;
    const p = lo + ((pivotSeed >>> 0) % (hi - lo));
    swap(mass, ids, p, hi - 1);
    const pivotMass = mass[hi - 1]!;
    const pivotId = ids[hi - 1]!;
    // Lomuto partition: everything ranked before the pivot moves to [lo, m).
    let m = lo;
    let before = 0;
    for (let j = lo; j < hi - 1; j++) {
      const mj = mass[j]!;
      if (ranksBefore(mj, ids[j]!, pivotMass, pivotId)) {
        swap(mass, ids, j, m);
        before += mj;
        m++;
      }
    }
    swap(mass, ids, m, hi - 1);
    if (before >= rest) {
      hi = m; // the nucleus ends strictly inside the better side
      continue;
    }
    if (before + pivotMass >= rest) return m + 1;
    rest -= before + pivotMass;
    lo = m + 1;
  }
  // One candidate left that is still needed, or none (only when n == 0).
  return Math.max(hi, Math.min(n, 1));
}

function insertionSort(mass: Float64Array, ids: Int32Array, lo: number, hi: number): void {
  for (let i = lo + 1; i < hi; i++) {
    const m = mass[i]!;
    const id = ids[i]!;
    let j = i - 1;
    while (j >= lo && ranksBefore(m, id, mass[j]!, ids[j]!)) {
      mass[j + 1] = mass[j]!;
      ids[j + 1] = ids[j]!;
      j--;
    }
    mass[j + 1] = m;
    ids[j + 1] = id;
  }
}

/** Sorts candidates [lo, hi) into rank order in place (quicksort, insertion sort for short runs). */
export function sortByRank(mass: Float64Array, ids: Int32Array, lo: number, hi: number): void {
  while (hi - lo > 16) {
    // Median of three as pivot, parked at hi - 1.
    const mid = (lo + hi) >>> 1;
    if (ranksBefore(mass[mid]!, ids[mid]!, mass[lo]!, ids[lo]!)) swap(mass, ids, mid, lo);
    if (ranksBefore(mass[hi - 1]!, ids[hi - 1]!, mass[lo]!, ids[lo]!)) swap(mass, ids, hi - 1, lo);
    if (ranksBefore(mass[mid]!, ids[mid]!, mass[hi - 1]!, ids[hi - 1]!)) swap(mass, ids, mid, hi - 1);
    const pivotMass = mass[hi - 1]!;
    const pivotId = ids[hi - 1]!;
    let m = lo;
    for (let j = lo; j < hi - 1; j++) {
      if (ranksBefore(mass[j]!, ids[j]!, pivotMass, pivotId)) {
        swap(mass, ids, j, m);
        m++;
      }
    }
    swap(mass, ids, m, hi - 1);
    // Recurse into the smaller side, loop on the larger: stack depth stays O(log n).
    if (m - lo < hi - m - 1) {
      sortByRank(mass, ids, lo, m);
      lo = m + 1;
    } else {
      sortByRank(mass, ids, m + 1, hi);
      hi = m;
    }
  }
  insertionSort(mass, ids, lo, hi);
}
