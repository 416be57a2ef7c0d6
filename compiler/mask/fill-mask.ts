// The per-token step: the next-token bitmask of a matcher's last row (GRAMMAR.md section 5.3).
// Each mask seed of the row (an item, see row-engine.ts) contributes its state's cached accepted
// set. Its uncertain tokens are then decided: for a context-free mask, by trying the rests of
// those tokens after the seed's rule ends (suffix-index.ts) on the row of its parents; else by
// trying the whole tokens on the real rows, in byte order, reusing the rows of the common
// prefix with the previous try and skipping every token that extends a prefix that died.
// Token edges add their ids, stop tokens come in where the root can end. A row equal to a
// recent one reuses its mask, and a row of parents equal to a recent one its rests' verdicts
// (row-memo.ts). A seed of a counted rule (ir.ts UnitCount) near its maximum has its cached
// mask's tokens that the count may refuse (longer than its slack) tried on the real rows too.
// Nothing is allocated per call once the scratch has grown.
import { EDGE_EXCLUDE_TOKEN, EDGE_TOKEN } from '../fsm/edges.js';
import { type GrammarFsm, SCAN_TOKEN } from '../fsm/grammar-fsm.js';
import { grow, type RowEngine } from '../row-engine.js';
import type { TokenizerInfo } from '../tokenizer/tokenizer-info.js';
import { TOKEN_STOP } from '../tokenizer/tokenizer-info.js';
import { PrefixWalker, RowParser } from './prefix-walker.js';
import type { SuffixIndex } from './suffix-index.js';
import type { TokenMaskCache } from './mask-cache.js';
import { RowMemo } from './row-memo.js';
import { STORE_ACCEPTED, STORE_BITSET, STORE_REJECTED, type TokenMask } from './token-mask.js';

export interface MaskScratch {
  uncertain: Int32Array;
  /** Sorted positions of a counted rule's tokens longer than its slack (addCounted). */
  long: Int32Array<ArrayBuffer>;
  /** For a mask stored as rejected ids; allocated when one is met. */
  complement: Uint32Array | null;
  firstBytes: Uint8Array;
  /** Masks of recent rows, by `rowKey`. */
  masks: RowMemo<Uint32Array>;
  /** Verdicts on the rests of a seed's uncertain tokens, by seed state and `rowKey` of the parents' row. */
  rests: RowMemo<{ ok: Uint8Array }>;
  key: { data: Int32Array };
  restKey: { data: Int32Array };
}

const MASK_SLOTS = 4;
const REST_SLOTS = 16;

export function newMaskScratch(info: TokenizerInfo): MaskScratch {
  const words = info.normalMask.length;
  return {
    uncertain: new Int32Array(64),
    long: new Int32Array(64),
    complement: null,
    firstBytes: new Uint8Array(256),
    masks: new RowMemo(MASK_SLOTS, () => new Uint32Array(words)),
    rests: new RowMemo(REST_SLOTS, () => ({ ok: new Uint8Array(256) })),
    key: { data: new Int32Array(64) },
    restKey: { data: new Int32Array(64) },
  };
}

/**
 * A row's mask depends only on its items (state, start row), the rows they started at, its
 * mask seeds, and whether the root can end. Inside a string or any loop a row repeats that
 * exactly at every step, so the mask of the previous call is reused when this key is the
 * same: per item and per seed its state and its start as a stamp (-1 when it started in this
 * very row); in a counted rule also its count where the count may refuse a token (-1 where
 * none: the masks there are alike).
 */
function rowKey(m: RowEngine, cache: TokenMaskCache, longest: number, out: { data: Int32Array }, row: number, head: number): number {
  const fsm = m.fsm;
  const items = m.itemData;
  const seeds = m.seedData;
  const from = m.rowItemBegin(row);
  const to = m.rowItemEnd(row);
  const seedFrom = m.rowSeedBegin(row);
  const seedTo = m.rowSeedBegin(row + 1);
  const need = 3 + ((to - from + seedTo - seedFrom) * 3) / 2;
  if (out.data.length < need) out.data = new Int32Array(need * 2);
  const key = out.data;
  key[0] = head;
  key[1] = m.rowEnds(row) ? 1 : 0;
  key[2] = to - from;
  let k = 3;
  const counts = cache.countsUnits;
  for (let i = from; i < to; i += 2, k += 2) {
    key[k] = items[i]!;
    key[k + 1] = items[i + 1] === row ? -1 : m.stampOf(items[i + 1]!);
    if (counts && fsm.ruleUnitMax[fsm.stateRule[items[i]!]!]! >= 0) key[k++ + 2] = cache.unitSlack(items[i]!, m.itemCount(i)) < longest ? m.itemCount(i) : -1;
  }
  for (let i = seedFrom; i < seedTo; i += 2, k += 2) {
    key[k] = seeds[i]!;
    key[k + 1] = seeds[i + 1] === row ? -1 : m.stampOf(seeds[i + 1]!);
    if (counts && fsm.ruleUnitMax[fsm.stateRule[seeds[i]!]!]! >= 0) key[k++ + 2] = cache.unitSlack(seeds[i]!, m.seedCount(i)) < longest ? m.seedCount(i) : -1;
  }
  return k;
}

/** The mask of row `row` (the last one) of `m` into `mask`; `cache` holds the states' masks for `info`. */
export function fillTokenMask(m: RowEngine, info: TokenizerInfo, cache: TokenMaskCache, mask: Uint32Array, scratch: MaskScratch, row: number): void {
  const fsm = m.fsm;
  const words = info.normalMask.length;
  // A seed of a counted rule whose slack is below the longest token's bytes needs its count (mask-cache.ts unitSlack).
  const counts = cache.countsUnits;
  const longest = info.maxTokenLength();
  const keyLength = rowKey(m, cache, longest, scratch.key, row, 0);
  const hit = scratch.masks.find(scratch.key.data, keyLength);
  if (hit >= 0) {
    mask.set(scratch.masks.value(hit));
    if (mask.length > words) mask.fill(0, words);
    return;
  }
  const seeds = m.seedData;
  const seedFrom = m.rowSeedBegin(row);
  const seedTo = m.rowSeedBegin(row + 1);
  // A first bitset is copied in rather than or-ed into zeros.
  let first = -1;
  for (let i = seedFrom; i < seedTo && first < 0; i += 2) if (cache.get(seeds[i]!).store === STORE_BITSET && (!counts || cache.unitSlack(seeds[i]!, m.seedCount(i)) >= longest)) first = i;
  if (first >= 0) {
    mask.set(cache.get(seeds[first]!).bits!);
    if (mask.length > words) mask.fill(0, words);
  } else {
    mask.fill(0);
  }
  let numUncertain = 0;
  for (let i = seedFrom; i < seedTo; i += 2) {
    if (i === first) continue;
    const tm = cache.get(seeds[i]!);
    const slack = counts ? cache.unitSlack(seeds[i]!, m.seedCount(i)) : Infinity;
    if (slack < longest) {
      numUncertain = addCounted(info, tm, slack, mask, scratch, numUncertain);
      continue;
    }
    if (tm.store === STORE_ACCEPTED) {
      const ids = tm.ids;
      for (let k = 0; k < ids.length; k++) mask[ids[k]! >>> 5]! |= 1 << (ids[k]! & 31);
    } else if (tm.store === STORE_BITSET) {
      const bits = tm.bits!;
      for (let w = 0; w < bits.length; w++) mask[w]! |= bits[w]!;
    } else if (tm.store === STORE_REJECTED) {
      const c = (scratch.complement ??= new Uint32Array(words));
      c.set(info.normalMask);
      const ids = tm.ids;
      for (let k = 0; k < ids.length; k++) c[ids[k]! >>> 5]! &= ~(1 << (ids[k]! & 31));
      const unc = tm.uncertain;
      for (let k = 0; k < unc.length; k++) {
        const t = info.sorted[unc[k]!]!;
        c[t >>> 5]! &= ~(1 << (t & 31));
      }
      for (let w = 0; w < c.length; w++) mask[w]! |= c[w]!;
    }
  }
  const items = m.itemData;
  for (let i = m.rowItemBegin(row), end = m.rowItemEnd(row); i < end; i += 2) {
    if ((fsm.stateScan[items[i]!]! & SCAN_TOKEN) !== 0) addTokenEdges(fsm, mask, info, items[i]!);
  }
  // Uncertain tokens, once every sure one is in (those need no check).
  for (let i = seedFrom; i < seedTo; i += 2) {
    const state = seeds[i]!;
    const tm = cache.get(state);
    const unc = tm.uncertain;
    if (unc.length === 0 || (counts && cache.unitSlack(state, m.seedCount(i)) < longest)) continue;
    if (tm.contextFree) {
      checkRests(m, cache, longest, mask, info, scratch, state, seeds[i + 1]!, unc, cache.suffixes(state));
      continue;
    }
    numUncertain = addUncertain(scratch, numUncertain, unc, unc.length);
  }
  if (numUncertain > 0) checkUncertain(m, mask, info, scratch.uncertain, numUncertain);
  if (m.rowEnds(row)) {
    const stops = info.stopTokens;
    for (let k = 0; k < stops.length; k++) mask[stops[k]! >>> 5]! |= 1 << (stops[k]! & 31);
  }
  scratch.masks.value(scratch.masks.store(scratch.key.data, keyLength)).set(mask.subarray(0, words));
}

/** Appends `n` sorted positions from `list` to the scratch's uncertain tokens; returns their new count. */
function addUncertain(scratch: MaskScratch, numUncertain: number, list: Int32Array, n: number): number {
  if (numUncertain + n > scratch.uncertain.length) {
    const grown = new Int32Array(Math.max(scratch.uncertain.length * 2, numUncertain + n));
    grown.set(scratch.uncertain.subarray(0, numUncertain));
    scratch.uncertain = grown;
  }
  scratch.uncertain.set(list.subarray(0, n), numUncertain);
  return numUncertain + n;
}

/**
 * A counted rule's seed whose count may refuse tokens (ir.ts UnitCount): of the tokens its
 * mask allows, those of at most `slack` bytes are allowed as they are (mask-cache.ts
 * unitSlack); the longer ones and its uncertain ones are tried on the real rows, which count.
 * Returns the new count of uncertain tokens.
 */
function addCounted(info: TokenizerInfo, tm: TokenMask, slack: number, mask: Uint32Array, scratch: MaskScratch, numUncertain: number): number {
  numUncertain = addUncertain(scratch, numUncertain, tm.uncertain, tm.uncertain.length);
  let allowed: Uint32Array;
  if (tm.store === STORE_ACCEPTED) {
    allowed = (scratch.complement ??= new Uint32Array(info.normalMask.length));
    allowed.fill(0);
    for (let k = 0; k < tm.ids.length; k++) allowed[tm.ids[k]! >>> 5]! |= 1 << (tm.ids[k]! & 31);
  } else if (tm.store === STORE_BITSET) {
    allowed = tm.bits!;
  } else {
    allowed = (scratch.complement ??= new Uint32Array(info.normalMask.length));
    allowed.set(info.normalMask);
    for (let k = 0; k < tm.ids.length; k++) allowed[tm.ids[k]! >>> 5]! &= ~(1 << (tm.ids[k]! & 31));
    for (let k = 0; k < tm.uncertain.length; k++) allowed[info.sorted[tm.uncertain[k]!]! >>> 5]! &= ~(1 << (info.sorted[tm.uncertain[k]!]! & 31));
  }
  let numLong = 0;
  for (let w = 0; w < allowed.length; w++) {
    for (let bits = allowed[w]!; bits !== 0; bits &= bits - 1) {
      const t = (w << 5) | (31 - Math.clz32(bits & -bits));
      if (info.tokenLength(t) <= slack) mask[w]! |= 1 << (t & 31);
      else {
        if (numLong === scratch.long.length) scratch.long = grow(scratch.long, numLong + 1);
        scratch.long[numLong++] = info.sortedIndex[t]!;
      }
    }
  }
  return addUncertain(scratch, numUncertain, scratch.long, numLong);
}

/** Ids a state's token edges allow: listed non-empty tokens, or every normal token but the listed. */
function addTokenEdges(fsm: GrammarFsm, mask: Uint32Array, info: TokenizerInfo, s: number): void {
  for (let e = fsm.edgeStart[s]!, end = fsm.edgeStart[s + 1]!; e < end; e++) {
    const kind = fsm.edgeKind[e]!;
    if (kind !== EDGE_TOKEN && kind !== EDGE_EXCLUDE_TOKEN) continue;
    const set = fsm.edgeAux[e]!;
    const lo = fsm.tokenSetStart[set]!;
    const hi = fsm.tokenSetStart[set + 1]!;
    if (kind === EDGE_TOKEN) {
      for (let k = lo; k < hi; k++) {
        const t = fsm.tokenIds[k]!;
        if (t < info.numTokens && info.kind[t] !== TOKEN_STOP && info.tokenLength(t) > 0) mask[t >>> 5]! |= 1 << (t & 31);
      }
    } else {
      // Or in the normal tokens word by word, leaving the listed ones out of this edge's share.
      const normal = info.normalMask;
      let k = lo;
      for (let w = 0; w < normal.length; w++) {
        let bits = normal[w]!;
        while (k < hi && fsm.tokenIds[k]! >>> 5 === w) {
          const t = fsm.tokenIds[k++]!;
          bits &= ~(1 << (t & 31));
        }
        mask[w]! |= bits;
      }
    }
  }
}

/**
 * Decides a context-free seed's uncertain tokens: each rest (in byte order, sharing rows with
 * the previous rest's common prefix, skipping rests that extend a dead prefix) is tried on the
 * row where the seed's rule (started at `origin`) has just ended; a token is allowed when one
 * of its rests is.
 */
function checkRests(m: RowEngine, cache: TokenMaskCache, longest: number, mask: Uint32Array, info: TokenizerInfo, scratch: MaskScratch, state: number, origin: number, unc: Int32Array, index: SuffixIndex): void {
  const sorted = info.sorted;
  for (let k = 0; k < unc.length; k++) {
    if (index.accepted[k] === 1) mask[sorted[unc[k]!]! >>> 5]! |= 1 << (sorted[unc[k]!]! & 31);
  }
  const n = index.offset.length;
  if (n === 0) return;
  const base = m.rowCount;
  if (!m.pushCompletion(m.fsm.stateRule[state]!, origin)) return; // nothing waits for the rule: no rest can follow
  const keyLength = rowKey(m, cache, longest, scratch.restKey, base, state);
  let slot = scratch.rests.find(scratch.restKey.data, keyLength);
  if (slot >= 0) {
    m.popRows(base);
    applyRests(mask, info, unc, index, scratch.rests.value(slot).ok);
    return;
  }
  slot = scratch.rests.store(scratch.restKey.data, keyLength);
  const value = scratch.rests.value(slot);
  if (value.ok.length < n) value.ok = new Uint8Array(n * 2);
  const ok = value.ok;
  const bytes = info.bytes;
  const first = m.scannableBytes(base, scratch.firstBytes);
  const tries = new PrefixWalker(new RowParser(m, base, false), bytes); // row `base`: the rule has just ended (whether rules end in a rest does not matter)
  for (let r = 0; r < n; r++) {
    const start = index.offset[r]!;
    // A rest no item of the row can take the first byte of is not tried.
    ok[r] = first[bytes[start]!] === 1 && tries.walk(start, index.length[r]!) ? 1 : 0;
  }
  m.popRows(base);
  applyRests(mask, info, unc, index, ok);
}

/** A token is allowed when one of its rests is. */
function applyRests(mask: Uint32Array, info: TokenizerInfo, unc: Int32Array, index: SuffixIndex, ok: Uint8Array): void {
  const sorted = info.sorted;
  for (let k = 0; k < unc.length; k++) {
    const t = sorted[unc[k]!]!;
    if ((mask[t >>> 5]! & (1 << (t & 31))) !== 0) continue;
    for (let i = index.start[k]!; i < index.start[k + 1]!; i++) {
      if (ok[index.ids[i]!] === 1) {
        mask[t >>> 5]! |= 1 << (t & 31);
        break;
      }
    }
  }
}

/** Tries the uncertain tokens (sorted positions, possibly repeated) on the real rows. */
function checkUncertain(m: RowEngine, mask: Uint32Array, info: TokenizerInfo, list: Int32Array, n: number): void {
  const sub = list.subarray(0, n);
  sub.sort();
  const { bytes, offsets, sorted } = info;
  const base = m.rowCount;
  const tries = new PrefixWalker(new RowParser(m, base - 1, false), bytes); // row `base - 1`: the real last row
  let prev = -1;
  for (let i = 0; i < n; i++) {
    const j = sub[i]!;
    if (j === prev) continue;
    prev = j;
    const t = sorted[j]!;
    if ((mask[t >>> 5]! & (1 << (t & 31))) !== 0) continue;
    if (tries.walk(offsets[t]!, offsets[t + 1]! - offsets[t]!)) mask[t >>> 5]! |= 1 << (t & 31);
  }
  m.popRows(base);
}
