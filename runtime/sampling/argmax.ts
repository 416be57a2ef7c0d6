// Greedy choice over a logits row, with or without a grammar's bitmask: the sampler's fast
// path, and what a draft model proposes.
import { NO_TOKEN_ALLOWED, SamplingError } from './sampling-error.js';
import { simdArgmax, simdArgmaxAvailable } from './simd-argmax.js';

const NO_TOKEN_POSSIBLE = 'no token is possible: every logit is -Infinity';

/**
 * Lowest index of the largest logit; SamplingError on a NaN (which no comparison would notice).
 * The engine runs this over a whole vocabulary row per sequence per greedy step, the largest
 * part of a step's JavaScript (bench:host), so it runs in wasm SIMD (simd-argmax.ts) where it
 * can, and in JavaScript (scalarArgmax) where it cannot: the same answer either way.
 */
export function plainArgmax(logits: Float32Array): number {
  if (!simdArgmaxAvailable || logits.length === 0) return scalarArgmax(logits);
  const index = simdArgmax(logits);
  if (index < 0) throw new SamplingError('the logits contain NaN');
  if (logits[index] === -Infinity) throw new SamplingError(NO_TOKEN_POSSIBLE);
  return index;
}

/**
 * plainArgmax in JavaScript: four running maxima, each compared once per element, whose updates
 * are rare (a few dozen per row), then the first index of the maximum; a quarter less CPU than
 * one maximum with its index. A NaN sticks in its lane (once a lane holds NaN, nothing replaces
 * it) so it is found at the end.
 */
export function scalarArgmax(logits: Float32Array): number {
  const size = logits.length;
  let m0 = -Infinity;
  let m1 = -Infinity;
  let m2 = -Infinity;
  let m3 = -Infinity;
  let i = 0;
  // `!(x <= m)` is true when x is larger or either is NaN; the update keeps a NaN lane NaN.
  for (; i + 3 < size; i += 4) {
    const x0 = logits[i]!;
    const x1 = logits[i + 1]!;
    const x2 = logits[i + 2]!;
    const x3 = logits[i + 3]!;
    if (!(x0 <= m0)) m0 = m0 !== m0 ? m0 : x0;
    if (!(x1 <= m1)) m1 = m1 !== m1 ? m1 : x1;
    if (!(x2 <= m2)) m2 = m2 !== m2 ? m2 : x2;
    if (!(x3 <= m3)) m3 = m3 !== m3 ? m3 : x3;
  }
  for (; i < size; i++) {
    const x = logits[i]!;
    if (!(x <= m0)) m0 = m0 !== m0 ? m0 : x;
  }
  if (m0 !== m0 || m1 !== m1 || m2 !== m2 || m3 !== m3) throw new SamplingError('the logits contain NaN');
  const max = Math.max(m0, m1, m2, m3);
  if (max === -Infinity) throw new SamplingError(NO_TOKEN_POSSIBLE);
  return logits.indexOf(max);
}

/** Lowest id of the largest logit among the tokens set in `allowed`, skipping empty mask words. */
export function maskedArgmax(logits: Float32Array, allowed: Uint32Array): number {
  const size = logits.length;
  if (allowed.length * 32 < size) throw new RangeError(`grammar bitmask has ${allowed.length} words, ${Math.ceil(size / 32)} needed`);
  let max = -Infinity;
  let argmax = -1;
  const words = (size + 31) >>> 5;
  for (let word = 0; word < words; word++) {
    const bits = allowed[word]!;
    if (bits === 0) continue; // structural grammar states leave most words empty
    const base = word << 5;
    const end = Math.min(base + 32, size);
    for (let id = base; id < end; id++) {
      if (((bits >>> (id - base)) & 1) === 0) continue;
      const x = logits[id]!;
      if (x > max) {
        max = x;
        argmax = id;
      } else if (x !== x) {
        throw new SamplingError('the logits contain NaN');
      }
    }
  }
  if (argmax < 0) throw new SamplingError(NO_TOKEN_ALLOWED, { status: 400 });
  return argmax;
}
