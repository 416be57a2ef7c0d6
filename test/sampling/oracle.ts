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

// The stages local servers add, by definition, on plain probability arrays (0 = removed). Each
// renormalises over what the stage before it kept; ties rank the lower id first.

/** Ids ordered by probability, most likely first, ties to the lower id; zero-probability ids left out. */
function rankByProbability(probs: number[]): number[] {
  return probs.map((p, id) => ({ p, id })).filter((c) => c.p > 0).sort((a, b) => b.p - a.p || a.id - b.id).map((c) => c.id);
}

function keepOnly(probs: number[], kept: Set<number>): number[] {
  const masked = probs.map((p, id) => (kept.has(id) ? p : 0));
  const total = masked.reduce((a, b) => a + b, 0);
  return masked.map((p) => p / total);
}

/** top_k over processed logits: the k highest (ties to the lower id) among the tokens still possible. */
export function topKOracle(logits: ArrayLike<number>, probs: number[], k: number): number[] {
  const order = Array.from(logits, (l, id) => ({ l, id })).filter((c) => probs[c.id]! > 0).sort((a, b) => b.l - a.l || a.id - b.id);
  return keepOnly(probs, new Set(order.slice(0, k).map((c) => c.id)));
}

export function minPOracle(probs: number[], minP: number): number[] {
  const max = Math.max(...probs);
  return keepOnly(probs, new Set(probs.flatMap((p, id) => (p > 0 && p >= minP * max ? [id] : []))));
}

/** typical_p: sort by |−ln p − H|, keep the shortest prefix reaching p. */
export function typicalOracle(probs: number[], p: number): number[] {
  const entropy = -probs.reduce((h, q) => (q > 0 ? h + q * Math.log(q) : h), 0);
  const order = probs.map((q, id) => ({ q, id, score: Math.abs(-Math.log(q) - entropy) })).filter((c) => c.q > 0).sort((a, b) => a.score - b.score || a.id - b.id);
  const kept = new Set<number>();
  let cumulative = 0;
  for (const c of order) {
    kept.add(c.id);
    cumulative += c.q;
    if (cumulative >= p) break;
  }
  return keepOnly(probs, kept);
}

/** top_n_sigma over the finite logits: keep l ≥ max − n·σ (population σ). */
export function topNSigmaOracle(logits: ArrayLike<number>, probs: number[], n: number): number[] {
  const finite = Array.from(logits).filter((l) => l !== -Infinity);
  const mean = finite.reduce((a, b) => a + b, 0) / finite.length;
  const sigma = Math.sqrt(finite.reduce((a, l) => a + (l - mean) ** 2, 0) / finite.length);
  const max = Math.max(...finite);
  return keepOnly(probs, new Set(Array.from(logits).flatMap((l, id) => (l >= max - n * sigma && probs[id]! > 0 ? [id] : []))));
}

/** XTC applied: if two or more tokens have p ≥ threshold, drop all of them but the least likely (ties: the higher id). */
export function xtcOracle(probs: number[], threshold: number): number[] {
  const above = rankByProbability(probs).filter((id) => probs[id]! >= threshold);
  if (above.length < 2) return probs;
  const dropped = new Set(above.slice(0, -1));
  return keepOnly(probs, new Set(probs.flatMap((p, id) => (p > 0 && !dropped.has(id) ? [id] : []))));
}

/** top_p on probabilities, as nucleusOracle but on an already-processed distribution. */
export function topPOracle(probs: number[], topP: number): number[] {
  const kept = new Set<number>();
  let cumulative = 0;
  for (const id of rankByProbability(probs)) {
    kept.add(id);
    cumulative += probs[id]!;
    if (cumulative >= topP) break;
  }
  return keepOnly(probs, kept);
}

/** The repetition penalty: each distinct token of the window, positive logits divided, others multiplied. */
export function repetitionOracle(logits: ArrayLike<number>, window: readonly number[], penalty: number): number[] {
  const out = Array.from(logits);
  for (const token of new Set(window)) out[token] = out[token]! > 0 ? out[token]! / penalty : out[token]! * penalty;
  return out;
}

/**
 * DRY, the slow way: for every earlier position p of the window, the longest common suffix of
 * window[..p] and the whole window (not reaching back past the last breaker token) is a repeat
 * that window[p + 1] would continue; each non-breaker token loses multiplier·base^(n − allowed)
 * for its longest such n ≥ allowed.
 */
export function dryOracle(
  logits: ArrayLike<number>,
  window: readonly number[],
  options: { multiplier: number; base: number; allowedLength: number; breakers?: ReadonlySet<number> },
): number[] {
  const breakers = options.breakers ?? new Set<number>();
  const out = Array.from(logits);
  const L = window.length;
  if (L <= options.allowedLength) return out;
  let limit = L;
  for (let i = 0; i < L; i++) {
    if (breakers.has(window[L - 1 - i]!)) {
      limit = i;
      break;
    }
  }
  const longest = new Map<number, number>();
  for (let p = 0; p + 1 < L; p++) {
    let n = 0;
    while (n <= p && n < limit && window[p - n] === window[L - 1 - n]) n++;
    const next = window[p + 1]!;
    if (n >= options.allowedLength && n > (longest.get(next) ?? -1)) longest.set(next, n);
  }
  for (const [token, n] of longest) if (!breakers.has(token)) out[token]! -= options.multiplier * options.base ** (n - options.allowedLength);
  return out;
}
