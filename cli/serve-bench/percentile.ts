// Percentiles the way numpy's default ('linear') computes them, so figures compare directly
// with vLLM's benchmark_serving and other tools built on numpy.

/** The p-th percentile (0–100) of `values`, interpolating between the two nearest ranks; NaN when empty. */
export function percentile(values: readonly number[], p: number): number {
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be within [0, 100], got ${p}`);
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const below = Math.floor(rank);
  const low = sorted[below]!;
  const high = sorted[Math.min(below + 1, sorted.length - 1)]!;
  return low + (high - low) * (rank - below);
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

export function mean(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  let sum = 0;
  for (const value of values) sum += value;
  return sum / values.length;
}

export interface Distribution {
  mean: number;
  p50: number;
  p90: number;
  p99: number;
}

export function distribution(values: readonly number[]): Distribution {
  return { mean: mean(values), p50: percentile(values, 50), p90: percentile(values, 90), p99: percentile(values, 99) };
}
