/** The index of the first token where two outputs differ (the shorter one's length where one is
 * the other's start), or -1 where they are equal. */
export function partingIndex(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : n;
}
