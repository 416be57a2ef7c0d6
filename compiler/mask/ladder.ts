// Masks of counted runs derived instead of walked. A bounded whitespace run ("a line break,
// then at most 20 spaces or tabs") becomes a ladder of DFA states: rung k goes up to rung k + 1
// on a run byte, the top rung has no run byte left, and every rung leaves the run alike (the
// same targets on every other byte, the same END flag). Eager compilation walked the
// vocabulary once per rung; the rungs' classes differ only in how many run bytes a token may
// start with, so one walk serves the whole ladder:
//
//   a token starting with m run bytes (then anything, or nothing) is classified from a rung
//   with r steps left to the top as from any rung with more steps left, when m <= r (both
//   reach a rung after m bytes, and the rest goes the same way); when m > r it dies on its
//   (r + 1)-th byte, at the top: uncertain if the rule could end by then, else rejected.
//
// So the widest rung walked so far keeps its mask (per DFA, walk mode and top rung) and a
// narrower rung filters it with a per-vocabulary table of leading run bytes. The conditions
// are checked on the DFA itself, so the language is whatever the grammar says: nothing here
// knows about whitespace.
//
// What this finds and derives is kept by a `Ladders` object, one per mask cache (a compiled
// grammar), so two grammars or compilers in one process share nothing by accident; the run
// tables are the vocabulary's own (TokenizerInfo.runTables), shared by whoever uses it.
import { DFA_DEAD, type FlatDfa } from './flat-dfa.js';
import type { RunTable, TokenizerInfo } from '../tokenizer/tokenizer-info.js';
import { STORE_ACCEPTED, STORE_BITSET, type TokenMask } from './token-mask.js';

/** A DFA state's place on a ladder: the top rung, steps left to it, the run bytes. */
export interface Ladder {
  top: number;
  steps: number;
  run: Uint8Array;
  /** The run bytes as a string, for keys. */
  runKey: string;
}

/** A ladder longer than this is not looked for (a cycle of states is no ladder); below the 255 leading run bytes the table counts. */
const MAX_STEPS = 200;
/** Targets of `d` tried as the next rung. */
const MAX_CANDIDATES = 4;

/** Buffers of `search` and `climb` (not reentrant), byte sets as 8-word bitsets: live bytes and targets of the first rung, the run bytes tried, live bytes of a rung. */
interface Scratch {
  live: Uint32Array;
  row: Int32Array;
  run: Uint32Array;
  liveAt: Uint32Array;
}

/** One mask cache's ladders: those found, the rung masks kept, and the buffers of both. */
export class Ladders {
  /** Ladders found, by DFA and state (null: none), every rung of one climb at once. */
  private readonly found = new WeakMap<FlatDfa, Map<number, Ladder | null>>();
  /** Rung masks per DFA and key (walk mode, top rung, run bytes), indexed by steps below the top (at most MAX_STEPS). */
  private readonly rungs = new WeakMap<FlatDfa, Map<string, (TokenMask | undefined)[]>>();
  private readonly scratch: Scratch = { live: new Uint32Array(8), row: new Int32Array(256), run: new Uint32Array(8), liveAt: new Uint32Array(8) };
  /** Token ids being dropped by `narrow`, all 0 between calls. */
  private dropScratch = new Uint8Array(0);
  /** The accepted ids `narrow` keeps, before they are copied out. */
  private keptScratch = new Int32Array(0);

  /** `d`'s ladder (at least one step below the top), or null. */
  find(dfa: FlatDfa, d: number): Ladder | null {
    let byState = this.found.get(dfa);
    if (!byState) this.found.set(dfa, (byState = new Map()));
    const known = byState.get(d);
    if (known !== undefined) return known;
    const ladder = search(dfa, d, byState, this.scratch);
    byState.set(d, ladder);
    return ladder;
  }

  /** `narrowMask` with this cache's buffers. */
  narrow(info: TokenizerInfo, ladder: Ladder, wider: TokenMask, widerSteps: number, steps: number, deadUncertain: boolean): TokenMask | null {
    if (this.dropScratch.length < info.numTokens) this.dropScratch = new Uint8Array(info.numTokens);
    if (this.keptScratch.length < wider.ids.length) this.keptScratch = new Int32Array(wider.ids.length);
    return narrowMask(info, ladder, wider, widerSteps, steps, deadUncertain, this.dropScratch, this.keptScratch);
  }

  /** The known rung mask of the fewest steps at or above `steps` (a ladder's rungs are few), or undefined. */
  widerRung(dfa: FlatDfa, key: string, steps: number): { steps: number; mask: TokenMask } | undefined {
    const known = this.rungs.get(dfa)?.get(key);
    if (!known) return undefined;
    for (let s = steps; s < known.length; s++) if (known[s]) return { steps: s, mask: known[s]! };
    return undefined;
  }

  keepRung(dfa: FlatDfa, key: string, steps: number, mask: TokenMask): void {
    let byKey = this.rungs.get(dfa);
    if (!byKey) this.rungs.set(dfa, (byKey = new Map()));
    let known = byKey.get(key);
    if (!known) byKey.set(key, (known = []));
    known[steps] = mask;
  }
}

/** The byte of the lowest set bit of `bits`, in word `w`. */
const lowest = (w: number, bits: number): number => (w << 5) | (31 - Math.clz32(bits & -bits));

function search(dfa: FlatDfa, d: number, byState: Map<number, Ladder | null>, scratch: Scratch): Ladder | null {
  if (dfa.opaque[d] === 1) return null;
  // Only live bytes are looked up: a dead one has no NFA transition, and computing the
  // transitions a walk never takes would build DFA states for nothing.
  const live = dfa.liveBits(d, scratch.live);
  const row = scratch.row.fill(DFA_DEAD);
  for (let w = 0; w < 8; w++) {
    for (let bits = live[w]!; bits !== 0; bits &= bits - 1) {
      const b = lowest(w, bits);
      row[b] = dfa.next(d, b);
      if (row[b]! < DFA_DEAD) return null; // overflow
    }
  }
  const tried: number[] = [];
  for (let b = 0; b < 256 && tried.length < MAX_CANDIDATES; b++) {
    const e = row[b]!;
    if (e < 0 || e === d || tried.includes(e)) continue;
    tried.push(e);
    const run = scratch.run.fill(0);
    for (let c = b; c < 256; c++) if (row[c] === e) run[c >>> 5]! |= 1 << (c & 31);
    const ladder = climb(dfa, d, live, row, run, byState, scratch.liveAt);
    if (ladder) return ladder;
  }
  return null;
}

/** From `d` up the run bytes while every rung leaves the run as `d` does; the ladder if it ends at a top. */
function climb(dfa: FlatDfa, d: number, live: Uint32Array, row: Int32Array, run: Uint32Array, byState: Map<number, Ladder | null>, liveAt: Uint32Array): Ladder | null {
  let at = d;
  const rungs: number[] = [];
  for (let steps = 0; steps <= MAX_STEPS; steps++) {
    rungs.push(at);
    dfa.liveBits(at, liveAt);
    for (let w = 0; w < 8; w++) if (((liveAt[w]! ^ live[w]!) & ~run[w]!) !== 0) return null;
    // The next rung: every run byte leads to the same state, or all of them die (the top).
    let up = -3;
    for (let w = 0; w < 8; w++) {
      for (let bits = run[w]! | live[w]!; bits !== 0; bits &= bits - 1) {
        const c = lowest(w, bits);
        const next = (liveAt[w]! & (1 << (c & 31))) !== 0 ? dfa.next(at, c) : DFA_DEAD;
        if (next < DFA_DEAD) return null;
        if ((run[w]! & (1 << (c & 31))) !== 0) {
          if (up === -3) up = next;
          else if (next !== up) return null;
        } else if (next !== row[c]) return null;
      }
    }
    if (up === DFA_DEAD) {
      if (steps === 0) return null;
      const kept = new Uint8Array(256);
      let runKey = '';
      for (let c = 0; c < 256; c++) {
        if ((run[c >>> 5]! & (1 << (c & 31))) === 0) continue;
        kept[c] = 1;
        runKey += String.fromCharCode(c);
      }
      // The rungs above `d` are on the same ladder, fewer steps below the top.
      for (let i = 1; i < steps; i++) if (!byState.has(rungs[i]!)) byState.set(rungs[i]!, { top: at, steps: steps - i, run: kept, runKey });
      return { top: at, steps, run: kept, runKey };
    }
    if (up === d || up === at || dfa.opaque[up] === 1 || dfa.ends[up] !== dfa.ends[d]) return null;
    at = up;
  }
  return null;
}

/** Runs are a grammar's (usually whitespace, a handful of byte sets): the latest few are kept. */
const RUN_TABLES_PER_VOCABULARY = 64;

/** Bytes of the run tables kept for a vocabulary. */
export function runTableBytes(info: TokenizerInfo): number {
  let total = 0;
  for (const table of info.runTables.values()) for (const group of table) total += group.byteLength;
  return total;
}

/**
 * Per vocabulary and run bytes: the tokens starting with at least two run bytes (a rung at
 * least one step below the top takes every token with one), as sorted positions, ascending,
 * grouped by how many they start with (`byLead[m]`, m up to 255).
 */
function runTable(info: TokenizerInfo, ladder: Ladder): RunTable {
  const byRun = info.runTables;
  let table = byRun.get(ladder.runKey);
  if (table) return table;
  const { bytes, offsets, sorted, firstByteStart } = info;
  const groups: number[][] = Array.from({ length: 256 }, () => []);
  for (let b = 0; b < 256; b++) {
    if (ladder.run[b] === 0) continue;
    for (let j = firstByteStart[b]!; j < firstByteStart[b + 1]!; j++) {
      const t = sorted[j]!;
      let m = 0;
      while (offsets[t]! + m < offsets[t + 1]! && ladder.run[bytes[offsets[t]! + m]!] === 1 && m < 255) m++;
      if (m >= 2) groups[m]!.push(j);
    }
  }
  table = groups.map((g) => Int32Array.from(g).sort());
  byRun.set(ladder.runKey, table);
  if (byRun.size > RUN_TABLES_PER_VOCABULARY) byRun.delete(byRun.keys().next().value!);
  return table;
}

/**
 * The mask of a rung `steps` (at least 1) below the top, from `wider`, the mask of the rung
 * `widerSteps` below it on the same ladder (same DFA and walk mode). `deadUncertain`: whether
 * a token dying at the top is uncertain (the rule could end on the way), else rejected. Null
 * when `wider` is stored in a form this does not filter. Costs the tokens that start with
 * more than `steps` and at most `widerSteps` run bytes (few from one rung to the next); the
 * rest of `wider` is shared or copied whole. `drop`: all 0, at least a byte per token; `kept`:
 * scratch, at least as long as `wider.ids`.
 */
function narrowMask(info: TokenizerInfo, ladder: Ladder, wider: TokenMask, widerSteps: number, steps: number, deadUncertain: boolean, drop: Uint8Array, kept: Int32Array): TokenMask | null {
  if (wider.store !== STORE_ACCEPTED && wider.store !== STORE_BITSET) return null;
  const byLead = runTable(info, ladder);
  const sorted = info.sorted;
  // Sorted positions of the tokens that now die at the top (those with more run bytes died already).
  let count = 0;
  for (let m = steps + 1; m <= Math.min(widerSteps, 255); m++) count += byLead[m]!.length;
  if (count === 0) return wider;
  const dying = new Int32Array(count);
  count = 0;
  for (let m = steps + 1; m <= Math.min(widerSteps, 255); m++) {
    dying.set(byLead[m]!, count);
    count += byLead[m]!.length;
  }
  let ids = wider.ids;
  let bits = wider.bits;
  if (wider.store === STORE_ACCEPTED) {
    for (let i = 0; i < dying.length; i++) drop[sorted[dying[i]!]!] = 1;
    // One pass into `kept` (each id written, the count moving past the kept ones only): the
    // list is shared when nothing drops, else copied out at its size.
    let n = 0;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      kept[n] = id;
      n += 1 - drop[id]!;
    }
    if (n < ids.length) ids = kept.slice(0, n);
    for (let i = 0; i < dying.length; i++) drop[sorted[dying[i]!]!] = 0;
  } else {
    bits = wider.bits!.slice();
    for (let i = 0; i < dying.length; i++) {
      const t = sorted[dying[i]!]!;
      bits[t >>> 5]! &= ~(1 << (t & 31));
    }
  }
  const from = wider.uncertain;
  if (from.length === 0 && !deadUncertain) return { store: wider.store, ids, bits, uncertain: from, contextFree: wider.contextFree };
  dying.sort();
  // Uncertain: the wider ones but the dying, and with `deadUncertain` the dying, in order.
  // Where each dying token is in the wider list, or would go (-1 - index); shared if unchanged.
  const where = new Int32Array(dying.length);
  let present = 0;
  for (let i = 0, at = 0; i < dying.length; i++) {
    const j = dying[i]!;
    let lo = at;
    let hi = from.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (from[mid]! < j) lo = mid + 1;
      else hi = mid;
    }
    if (lo < from.length && from[lo] === j) {
      where[i] = lo;
      present++;
      at = lo + 1;
    } else {
      where[i] = -1 - lo;
      at = lo;
    }
  }
  const unchanged = deadUncertain ? present === dying.length : present === 0;
  let uncertain = from;
  if (!unchanged) {
    uncertain = new Int32Array(from.length - present + (deadUncertain ? dying.length : 0));
    let n = 0;
    let at = 0;
    for (let i = 0; i < dying.length; i++) {
      const w = where[i]!;
      const lo = w >= 0 ? w : -1 - w;
      uncertain.set(from.subarray(at, lo), n);
      n += lo - at;
      at = w >= 0 ? lo + 1 : lo;
      if (deadUncertain) uncertain[n++] = dying[i]!;
    }
    uncertain.set(from.subarray(at), n);
  }
  return { store: wider.store, ids, bits, uncertain, contextFree: wider.contextFree };
}
