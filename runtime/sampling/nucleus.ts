// Exact top_p selection without sorting the vocabulary, in two stages.
//
// 1. Buckets. A histogram of token mass keyed by the mass's own bit pattern (exponent plus
//    4 mantissa bits: 16 buckets per octave). The bit pattern of a positive double is monotone in
//    its value, so walking the histogram from the top finds the one bucket where the cumulative
//    mass crosses top_p: every candidate in a higher bucket is in the nucleus, every one in a
//    lower bucket is out. The bits are read through a Uint32Array view of the mass array itself;
//    reinterpreting each value through a one-element scratch view stalls store forwarding and
//    was 3-4× slower.
// 2. Quickselect inside that boundary bucket (usually a handful of tokens) on the order "more
//    mass first, lower id on ties". That order is total, so the nucleus is one well-defined set
//    whatever pivots are chosen, and a flat distribution cannot degrade the partition.
//
// Expected O(n) overall, and nothing is sorted: the kept set comes back as a bitset over token
// ids, which the sampler walks in id order.
//
// Most draws need neither pass over the vocabulary: the sampler's exp pass sets aside the tokens
// of mass ≥ NUCLEUS_PREFILTER (of the top token's 1), and when those hold the target the nucleus
// is among them (each outranks every token left out), so `keepNucleusAmong` selects it from
// that list alone. Only a distribution flat enough to need lighter tokens takes the buckets.
import { FIRST_PIVOT_STATE, nextPivotState, partitionAround, pivotIndex } from './quickselect.js';
import { NUCLEUS_BUCKETS, type SamplingScratch } from './sampling-scratch.js';

const LAST_BUCKET = NUCLEUS_BUCKETS - 1;
const ONE_KEY = 0x3ff0; // (high word of 1.0) >>> 16

/** Index of a double's high 32-bit word within its pair in a Uint32Array view. */
export const HIGH_WORD = new Uint8Array(new Float64Array([1]).buffer)[7] === 0x3f ? 1 : 0;

/** Histogram bucket of a mass in (0, 1] from its high word: 0 for 1, growing as mass shrinks. */
export function bucketOfHighWord(highWord: number): number {
  const bucket = ONE_KEY - (highWord >>> 16);
  return bucket < LAST_BUCKET ? bucket : LAST_BUCKET;
}

/**
 * Quickselect on mass. Moves the nucleus of the first `n` candidates to the front and returns
 * its size: the smallest k such that the k best candidates hold at least `target` mass (all n if
 * they never do, at least 1 when n > 0). The front k are left unsorted.
 */
export function selectNucleus(mass: Float64Array, ids: Int32Array, n: number, target: number): number {
  let lo = 0;
  let hi = n;
  let rest = target;
  let state = FIRST_PIVOT_STATE;
  while (hi - lo > 1) {
    state = nextPivotState(state);
    // Everything ranked before the pivot is now in [lo, m), in the order it stood.
    const m = partitionAround(mass, ids, lo, hi, pivotIndex(state, lo, hi));
    const pivotMass = mass[m]!;
    let before = 0;
    for (let j = lo; j < m; j++) before += mass[j]!;
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

/**
 * Mass, relative to the top token's 1, from which the exp pass sets a token aside as a nucleus
 * candidate: 2^-16, so that a draw at top_p 0.9 rarely needs the lighter ones, while the list
 * stays short next to the vocabulary.
 */
export const NUCLEUS_PREFILTER = 2 ** -16;

/**
 * keepNucleus when the first `n` entries of `scratch.tiedMass` / `scratch.tiedIds` hold every
 * token whose mass is at least some bound and nothing lighter, and together at least `target`:
 * the nucleus is then among them, and is selected without a pass over the vocabulary. The list
 * is reordered. Returns the nucleus's size.
 */
export function keepNucleusAmong(scratch: SamplingScratch, size: number, n: number, target: number): number {
  scratch.keptBits.fill(0, 0, (size + 31) >>> 5);
  return keepSelected(scratch, n, target);
}

/** Selects the nucleus of `target` mass among the first `n` of `scratch.tiedMass` / `tiedIds` and marks it in `keptBits`; returns its size. */
function keepSelected(scratch: SamplingScratch, n: number, target: number): number {
  const { tiedMass, tiedIds, keptBits } = scratch;
  const chosen = selectNucleus(tiedMass, tiedIds, n, target);
  for (let j = 0; j < chosen; j++) {
    const id = tiedIds[j]!;
    keptBits[id >>> 5]! |= 1 << (id & 31);
  }
  return chosen;
}

/**
 * Marks in `scratch.keptBits` the nucleus of the tokens [0, size) whose masses, in (0, 1] or 0
 * for impossible tokens, are in `scratch.mass` by id: the smallest set of most massive tokens
 * holding at least `target`. Returns its size.
 */
export function keepNucleus(scratch: SamplingScratch, size: number, target: number): number {
  const { mass, massWords, tiedMass, tiedIds, keptBits, bucketMass } = scratch;
  for (let i = 0; i < size; i++) bucketMass[bucketOfHighWord(massWords[2 * i + HIGH_WORD]!)]! += mass[i]!;
  // Find the boundary bucket and how much mass is still needed from it.
  let boundary = NUCLEUS_BUCKETS; // rounding never reached the target: keep every candidate
  let rest = target;
  for (let b = 0; b < NUCLEUS_BUCKETS; b++) {
    const m = bucketMass[b]!;
    if (m >= rest && m > 0) {
      boundary = b;
      break;
    }
    rest -= m;
  }
  bucketMass.fill(0);

  // Above the boundary: kept. In it: set aside for exact selection. Below: dropped.
  keptBits.fill(0, 0, (size + 31) >>> 5);
  let kept = 0;
  let tied = 0;
  for (let i = 0; i < size; i++) {
    const b = bucketOfHighWord(massWords[2 * i + HIGH_WORD]!);
    const m = mass[i]!;
    if (b > boundary || m === 0) continue;
    if (b < boundary) {
      keptBits[i >>> 5]! |= 1 << (i & 31);
      kept++;
    } else {
      tiedMass[tied] = m;
      tiedIds[tied] = i;
      tied++;
    }
  }
  return kept + keepSelected(scratch, tied, rest);
}
