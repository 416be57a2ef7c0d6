// Brute-force reference implementations for the sampling tests, deliberately written the slow,
// obvious way (full sorts, plain arrays) and sharing no code with runtime/sampling.
import { testRandom } from '../helpers/test-random.js';

/** Logits shaped roughly like a model's: a broad bulk plus a few strong candidates. */
export function randomLogits(size: number, seed: number, spread = 4): Float32Array {
  const rand = testRandom(seed);
  const logits = new Float32Array(size);
  for (let i = 0; i < size; i++) {
    // Sum of uniforms ≈ normal; a sparse heavy tail makes the nucleus interesting.
    logits[i] = (rand() + rand() + rand() - 1.5) * spread + (rand() < 0.002 ? 8 * rand() : 0);
  }
  return logits;
}

export function argmax(values: ArrayLike<number>): number {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i]! > values[best]!) best = i;
  return best;
}

export function logSumExp(values: ArrayLike<number>): number {
  let max = -Infinity;
  for (let i = 0; i < values.length; i++) max = Math.max(max, values[i]!);
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += Math.exp(values[i]! - max);
  return max + Math.log(sum);
}

/** Full log-softmax. */
export function logSoftmax(values: ArrayLike<number>): number[] {
  const lse = logSumExp(values);
  return Array.from(values, (v) => v - lse);
}

/** Probabilities of softmax(logits / T) as plain numbers. */
export function softmax(logits: ArrayLike<number>, temperature = 1): number[] {
  const scaled = Array.from(logits, (v) => v / temperature);
  const lse = logSumExp(scaled);
  return scaled.map((v) => Math.exp(v - lse));
}

export interface NucleusOracle {
  /** Token ids in the nucleus. */
  ids: Set<number>;
  /** True when the cut is within `eps` of the target, where rounding could move it. */
  ambiguous: boolean;
}

/**
 * The nucleus by definition: sort every token by probability (ties to the lower id), take the
 * shortest prefix whose cumulative mass reaches top_p.
 */
export function nucleusOracle(logits: ArrayLike<number>, temperature: number, topP: number): NucleusOracle {
  const probs = softmax(logits, temperature);
  const order = probs.map((p, id) => ({ p, id })).filter((c) => c.p > 0);
  order.sort((a, b) => b.p - a.p || a.id - b.id);
  const ids = new Set<number>();
  let cum = 0;
  let ambiguous = false;
  const eps = 1e-9;
  for (const { p, id } of order) {
    ids.add(id);
    const before = cum;
    cum += p;
    if (cum >= topP) {
      ambiguous = Math.abs(cum - topP) < eps || Math.abs(before - topP) < eps;
      break;
    }
  }
  return { ids, ambiguous };
}
