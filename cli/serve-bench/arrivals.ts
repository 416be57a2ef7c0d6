// Open-loop arrivals: a Poisson process of `rate` requests per second has independent
// exponential gaps of mean 1/rate. Seeded, so two runs (or two servers) see the same schedule.
import { SeededRng } from '../../runtime/sampling/seeded-rng.js';

/** Seconds to wait before each of `count` requests; the first gap is drawn too, as in vLLM's benchmark. */
export function poissonGaps(rate: number, count: number, seed: number): number[] {
  if (!(rate > 0) || !Number.isFinite(rate)) throw new RangeError(`request rate must be a positive number, got ${rate}`);
  const rng = new SeededRng(seed);
  const gaps: number[] = [];
  // 1 - u lies in (0, 1], so the logarithm is finite.
  for (let i = 0; i < count; i++) gaps.push(-Math.log(1 - rng.nextFloat()) / rate);
  return gaps;
}
