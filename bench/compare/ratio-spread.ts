// A ratio between two servers over interleaved repetitions: one ratio per repetition (the two
// runs measured back to back), then their median and range. A ratio of medians would pair a
// run of one side with a run of the other taken at another time, under other load.
import { median } from '../../cli/serve-bench/percentile.js';

export interface Spread {
  median: number;
  min: number;
  max: number;
}

export function spread(values: readonly number[]): Spread {
  if (values.length === 0) throw new RangeError('no values');
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
}

/** Per-repetition ours[i] / theirs[i], summarised. */
export function ratioSpread(ours: readonly number[], theirs: readonly number[]): Spread {
  if (ours.length !== theirs.length) throw new RangeError(`${ours.length} runs against ${theirs.length}`);
  return spread(ours.map((value, i) => value / theirs[i]!));
}
