// The k highest logits in one pass (k <= 20, for top_logprobs). A small sorted buffer beats a
// selection algorithm here: after the first few hundred tokens almost every logit fails the
// single comparison against the current k-th best.

/**
 * Writes the `k` best finite logits among the first `size` into `outIds` / `outLogits`, sorted
 * descending with ties to the lower id, and returns how many were found (fewer than k when
 * fewer tokens are possible).
 */
export function selectTopTokens(
  logits: Float64Array,
  size: number,
  k: number,
  outIds: Int32Array,
  outLogits: Float64Array,
): number {
  if (k <= 0) return 0;
  let count = 0;
  let floor = -Infinity; // the k-th best so far once the buffer is full
  for (let i = 0; i < size; i++) {
    const x = logits[i]!;
    // Strict: an equal logit seen later has a higher id and ranks after. Until the buffer is
    // full the floor is -Infinity, so this also drops banned tokens (and NaN).
    if (!(x > floor)) continue;
    let j = count < k ? count++ : k - 1;
    while (j > 0 && x > outLogits[j - 1]!) {
      outLogits[j] = outLogits[j - 1]!;
      outIds[j] = outIds[j - 1]!;
      j--;
    }
    outLogits[j] = x;
    outIds[j] = i;
    if (count === k) floor = outLogits[k - 1]!;
  }
  return count;
}
