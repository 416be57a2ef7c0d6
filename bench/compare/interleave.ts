// The order of an A/B comparison's runs: A B, B A, A B, … (A B B A A B …), so a drift in the
// machine's load over the run (other processes, heat) falls on both sides alike.

/** `reps` pairs; even repetitions run `a` first, odd ones `b` first. */
export function interleavedOrder<T>(a: T, b: T, reps: number): [T, T][] {
  if (!(Number.isInteger(reps) && reps >= 1)) throw new RangeError(`repetitions must be a whole number ≥ 1, got ${reps}`);
  return Array.from({ length: reps }, (_, rep) => (rep % 2 === 0 ? [a, b] : [b, a]));
}
