// Prompt lookup: the continuation of the most recent earlier occurrence of the last few
// tokens, in the prompt or the output so far. Rewrites, quotes, code edits and JSON with
// repeated keys copy long runs of earlier tokens; a draft model is not needed to guess them.

/** Longest and shortest suffix looked up: longer matches first, they predict better. */
const LONGEST_MATCH = 4;
const SHORTEST_MATCH = 2;

/**
 * Up to `most` tokens that followed the latest earlier occurrence of the context's last
 * n tokens (n from 4 down to 2); empty when no such occurrence exists.
 */
export function lookupContinuation(context: readonly number[], most: number): number[] {
  const length = context.length;
  if (most <= 0) return [];
  for (let n = Math.min(LONGEST_MATCH, length - 1); n >= SHORTEST_MATCH; n--) {
    const suffix = length - n;
    // Latest start first; a match must be followed by at least one token.
    for (let start = suffix - 1; start >= 0; start--) {
      let k = 0;
      while (k < n && context[start + k] === context[suffix + k]) k++;
      if (k === n) return context.slice(start + n, Math.min(start + n + most, length)) as number[];
    }
  }
  return [];
}
