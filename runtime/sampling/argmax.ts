// Greedy choice over a logits row, with or without a grammar's bitmask: the sampler's fast
// path, and what a draft model proposes.
import { SamplingError } from './sampling-error.js';

/** Lowest index of the largest logit; SamplingError on a NaN (which no comparison would notice). */
export function plainArgmax(logits: Float32Array): number {
  let max = -Infinity;
  let argmax = -1;
  for (let i = 0; i < logits.length; i++) {
    const x = logits[i]!;
    if (x > max) {
      max = x;
      argmax = i;
    } else if (x !== x) {
      throw new SamplingError('the logits contain NaN');
    }
  }
  if (argmax < 0) throw new SamplingError('no token is possible: every logit is -Infinity');
  return argmax;
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
  if (argmax < 0) throw new SamplingError('no token is allowed: the grammar mask and logit bias exclude the whole vocabulary');
  return argmax;
}
