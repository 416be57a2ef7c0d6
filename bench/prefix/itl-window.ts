// Inter-token gaps of several streams, split by time window: the "before" window takes gaps
// that lie wholly inside it, the "during" window every gap that overlaps it, so the stall a
// long prefill causes (one gap that starts before the prefill and ends after it) is counted
// during, never before.

/** Gaps (ms) between consecutive chunk times of each stream that lie wholly inside [from, to]. */
export function gapsWithin(streams: readonly (readonly number[])[], from: number, to: number): number[] {
  return gapsAt(streams, gapIndicesWhere(streams, (start, end) => start >= from && end <= to));
}

/** Gaps (ms) between consecutive chunk times of each stream that overlap (from, to). */
export function gapsOverlapping(streams: readonly (readonly number[])[], from: number, to: number): number[] {
  return gapsAt(streams, gapIndicesOverlapping(streams, from, to));
}

/** For each stream, the indices i of its gaps (chunk i-1 to chunk i) that overlap (from, to). */
export function gapIndicesOverlapping(streams: readonly (readonly number[])[], from: number, to: number): number[][] {
  return gapIndicesWhere(streams, (start, end) => start < to && end > from);
}

/** Gaps (ms) of each stream at the given indices, where the stream got that far. */
export function gapsAt(streams: readonly (readonly number[])[], indices: readonly (readonly number[])[]): number[] {
  const gaps: number[] = [];
  streams.forEach((times, s) => {
    for (const i of indices[s] ?? []) if (i < times.length) gaps.push(times[i]! - times[i - 1]!);
  });
  return gaps;
}

function gapIndicesWhere(streams: readonly (readonly number[])[], keep: (start: number, end: number) => boolean): number[][] {
  return streams.map((times) => {
    const indices: number[] = [];
    for (let i = 1; i < times.length; i++) if (keep(times[i - 1]!, times[i]!)) indices.push(i);
    return indices;
  });
}
