// How much of a cached prefix a sliding-window model can reuse. Pure, for the prefix cache:
//   const m = reusablePrefixLength(matched, context.minPosition(holder), model.slidingWindow);
//   if (m > 0) context.copy(holder, target, 0, m);   // then decode from position m

/**
 * The longest prefix length ≤ `matched` that a new sequence S may take from a holder sequence
 * H with `llama_memory_seq_cp(H, S, 0, m)` and then decode from position m, getting the same
 * logits as if S had computed [0, m) itself. 0 when nothing is reusable.
 *
 * The rule: m is reusable when H still holds every position [max(0, m - W + 1), m), i.e.
 *   m == 0, or 0 ≤ holderMinPosition ≤ max(0, m - W + 1)   (W = the sliding window ≥ 2;
 *   W == 0, no window: holderMinPosition == 0). Why, in llama.cpp's source:
 * - A token at position p in an SWA layer sees keys at p0 only when p - p0 < W
 *   (llama-hparams.h `is_masked_swa`, STANDARD), so S's first token, at m, needs the W - 1
 *   positions before it; global layers need all of [0, m), which the non-SWA cache never drops.
 * - The SWA cache reclaims a cell only when exactly one sequence holds it and it is out of that
 *   sequence's own window (llama-kv-cache.cpp `find_slot`), and then purges everything of that
 *   sequence below it (`apply_ubatch`), so H's cells are always one run
 *   [seq_pos_min(H), seq_pos_max(H)] (llama_memory_seq_pos_min answers from the SWA half:
 *   llama-kv-cache-iswa.cpp `seq_pos_min`).
 * - seq_cp only shares cells that still exist; cells missing below m are not an error: the
 *   decode silently attends to less (and with no SWA cell at all, S's positions even look
 *   fresh to llama_batch's checks).
 * The minimum needed position grows with m, so if `matched` fails, every shorter length but 0
 * fails too. llama-server applies the same test one or two positions more strictly
 * (tools/server/server-context.cpp: pos_min_thold = n_past - n_swa, reuse when pos_min < it).
 *
 * Read `holderMinPosition` right before the copy: any decode, of any sequence, may reclaim
 * H's out-of-window cells. Once copied, the shared cells are safe: a cell two sequences hold is
 * never reclaimed, which also means H keeps cells S no longer needs (and S those H no longer
 * needs) until the other sequence drops them.
 */
export function reusablePrefixLength(matched: number, holderMinPosition: number, slidingWindow: number): number {
  if (matched <= 0) return 0;
  if (holderMinPosition < 0) return 0; // the holder has no cells: nothing to share
  // max(W, 2): position m - 1 is needed even with a window of 1, so that S's cells end at
  // m - 1 and llama.cpp's position checks (and our maxPosition) see a prefix, not nothing.
  const firstNeeded = slidingWindow > 0 ? Math.max(0, matched - Math.max(slidingWindow, 2) + 1) : 0;
  return holderMinPosition <= firstNeeded ? matched : 0;
}
