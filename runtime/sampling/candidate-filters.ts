// The truncation stages local servers add to top_p (llama.cpp's samplers of the same names), each
// working on the candidate masses in place: a token is removed by setting its mass to 0, which no
// draw can land on. Every stage sees only the survivors of the stages before it and, where it
// speaks of probabilities, renormalises over them, as llama.cpp's chain does.
//
// Order among equal keys is always "lower id first", so every stage keeps one well-defined set.
import { FIRST_PIVOT_STATE, nextPivotState, partitionAround, pivotIndex } from './quickselect.js';
import { ascendingOrder } from './radix-order.js';
import type { SamplingScratch } from './sampling-scratch.js';

/** Σ mass over the first `size` tokens, summed by id. */
export function totalMass(mass: Float64Array, size: number): number {
  let total = 0;
  for (let i = 0; i < size; i++) total += mass[i]!;
  return total;
}

/**
 * top_n_sigma: keeps the tokens whose processed logit is at least max - n·σ, with the mean and
 * (population) standard deviation taken over every allowed token (finite logit). Temperature
 * scales max, mean and σ alike, so the kept set does not depend on it.
 */
export function keepTopNSigma(w: Float64Array, mass: Float64Array, size: number, n: number): void {
  let max = -Infinity;
  let sum = 0;
  let count = 0;
  for (let i = 0; i < size; i++) {
    const x = w[i]!;
    if (x === -Infinity) continue;
    if (x > max) max = x;
    sum += x;
    count++;
  }
  if (count < 2) return;
  const mean = sum / count;
  let squares = 0;
  for (let i = 0; i < size; i++) {
    const x = w[i]!;
    if (x !== -Infinity) squares += (x - mean) * (x - mean);
  }
  const floor = max - n * Math.sqrt(squares / count);
  for (let i = 0; i < size; i++) if (w[i]! < floor) mass[i] = 0;
}

/** Quickselect: moves the `k` best of the first `n` (key, id) pairs to the front, unordered. */
function selectBest(keys: Float64Array, ids: Int32Array, n: number, k: number): void {
  let lo = 0;
  let hi = n;
  let state = FIRST_PIVOT_STATE;
  while (hi - lo > 1) {
    state = nextPivotState(state);
    // [lo, m) rank before the pivot, which now sits at m.
    const m = partitionAround(keys, ids, lo, hi, pivotIndex(state, lo, hi));
    if (m === k || m + 1 === k) return;
    if (m > k) hi = m;
    else lo = m + 1;
  }
}

/** top_k: keeps the `k` candidates with the highest processed logits (ties to the lower id). */
export function keepTopK(scratch: SamplingScratch, w: Float64Array, size: number, k: number): void {
  const { mass, tiedMass: keys, tiedIds: ids } = scratch;
  let n = 0;
  for (let i = 0; i < size; i++) {
    if (mass[i]! > 0) {
      keys[n] = w[i]!;
      ids[n++] = i;
    }
  }
  if (n <= k) return;
  selectBest(keys, ids, n, k);
  for (let j = k; j < n; j++) mass[ids[j]!] = 0;
}

/**
 * typical_p (locally typical sampling): with q the survivors' renormalised probabilities and H
 * their entropy, ranks tokens by |-ln q - H| (closest to the expected surprise first) and keeps
 * the shortest prefix of that ranking holding at least `p` of the probability.
 */
export function keepTypical(scratch: SamplingScratch, size: number, total: number, p: number): void {
  const { mass, tiedMass: scores, tiedIds: ids } = scratch;
  let n = 0;
  let entropy = 0;
  for (let i = 0; i < size; i++) {
    const m = mass[i]!;
    if (m > 0) {
      const q = m / total;
      const lnQ = Math.log(q);
      entropy -= q * lnQ;
      scores[n] = lnQ; // the surprise's negation, until the entropy is known
      ids[n++] = i;
    }
  }
  for (let j = 0; j < n; j++) scores[j] = Math.abs(-scores[j]! - entropy);
  // Ties by id: ids[] ascends with j, so the index order that ascendingOrder keeps is the id order.
  const order = ascendingOrder(scores, n, scratch.order, scratch.orderSwap);
  let cumulative = 0;
  let kept = n;
  for (let r = 0; r < n; r++) {
    cumulative += mass[ids[order[r]!]!]! / total;
    if (cumulative >= p) {
      kept = r + 1;
      break;
    }
  }
  for (let r = kept; r < n; r++) mass[ids[order[r]!]!] = 0;
}

/** min_p: keeps the tokens at least `minP` times as likely as the most likely survivor. */
export function keepMinP(mass: Float64Array, size: number, minP: number): void {
  let max = 0;
  for (let i = 0; i < size; i++) if (mass[i]! > max) max = mass[i]!;
  const floor = minP * max;
  for (let i = 0; i < size; i++) if (mass[i]! < floor) mass[i] = 0;
}

/**
 * XTC ("exclude top choices"): when at least two survivors have a renormalised probability of
 * at least `threshold`, removes all of them but the least likely (on equal mass, the higher id:
 * the last of them in rank order). The caller decides, from the seeded stream, whether it applies.
 */
export function excludeTopChoices(mass: Float64Array, size: number, total: number, threshold: number): void {
  let above = 0;
  let last = -1;
  for (let i = 0; i < size; i++) {
    const m = mass[i]!;
    if (m > 0 && m / total >= threshold) {
      above++;
      if (last < 0 || m <= mass[last]!) last = i;
    }
  }
  if (above < 2) return;
  for (let i = 0; i < size; i++) {
    const m = mass[i]!;
    if (i !== last && m > 0 && m / total >= threshold) mass[i] = 0;
  }
}
