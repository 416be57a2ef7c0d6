// One automaton state's token classes (GRAMMAR.md section 5), stored in the form cheapest to
// apply: the accepted ids when they are fewer than a bitset has words, else a bitset of the
// accepted ids (a rejected list, as xgrammar keeps, would need a complement pass per use;
// the store remains for artifacts that have it). Uncertain tokens, whose fate depends on what follows the state's rule, are
// kept as positions in the byte-sorted vocabulary, ascending, for the runtime walk.
import type { TokenizerInfo } from '../tokenizer/tokenizer-info.js';

export const STORE_ACCEPTED = 0;
export const STORE_REJECTED = 1;
export const STORE_BITSET = 2;

export interface TokenMask {
  store: number;
  /** Accepted ids (STORE_ACCEPTED) or rejected ids (STORE_REJECTED), in no particular order; else empty. */
  ids: Int32Array;
  /** Accepted ids as a bitset (STORE_BITSET), else null. */
  bits: Uint32Array | null;
  /** Uncertain tokens as sorted-vocabulary positions, ascending. */
  uncertain: Int32Array;
  /** True when uncertain means "the state's own rule can end inside" (no context was used). */
  contextFree: boolean;
}

/** Picks the store that costs least to apply: a list shorter than a bitset's words, else a bitset. */
export function makeTokenMask(info: TokenizerInfo, accepted: Int32Array, uncertain: Int32Array, contextFree: boolean): TokenMask {
  const words = info.normalMask.length;
  if (accepted.length <= words) {
    return { store: STORE_ACCEPTED, ids: accepted, bits: null, uncertain, contextFree };
  }
  const bits = new Uint32Array(words);
  for (let i = 0; i < accepted.length; i++) bits[accepted[i]! >>> 5]! |= 1 << (accepted[i]! & 31);
  return { store: STORE_BITSET, ids: new Int32Array(0), bits, uncertain, contextFree };
}

/**
 * `base` after some of its uncertain tokens were decided: `accepted` ids, `rejected` ids, the
 * rest still `uncertain` (sorted positions). The store stays the base's, so this costs only
 * the changed tokens.
 */
export function refineTokenMask(info: TokenizerInfo, base: TokenMask, accepted: Int32Array, rejected: Int32Array, uncertain: Int32Array, contextFree: boolean): TokenMask {
  if (base.store === STORE_ACCEPTED && base.ids.length + accepted.length > info.normalMask.length) {
    const bits = new Uint32Array(info.normalMask.length);
    for (const list of [base.ids, accepted]) for (let i = 0; i < list.length; i++) bits[list[i]! >>> 5]! |= 1 << (list[i]! & 31);
    return { store: STORE_BITSET, ids: new Int32Array(0), bits, uncertain, contextFree };
  }
  if (base.store === STORE_ACCEPTED) return { store: STORE_ACCEPTED, ids: concat(base.ids, accepted), bits: null, uncertain, contextFree };
  if (base.store === STORE_REJECTED) return { store: STORE_REJECTED, ids: concat(base.ids, rejected), bits: null, uncertain, contextFree };
  const bits = base.bits!.slice();
  for (let i = 0; i < accepted.length; i++) bits[accepted[i]! >>> 5]! |= 1 << (accepted[i]! & 31);
  return { store: STORE_BITSET, ids: base.ids, bits, uncertain, contextFree };
}

function concat(a: Int32Array, b: Int32Array): Int32Array {
  if (b.length === 0) return a;
  const out = new Int32Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
