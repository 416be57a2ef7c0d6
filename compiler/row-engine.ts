// The Earley rows over the packed per-rule automata: what the public matcher (matcher.ts) keeps
// for its input, and what the mask compiler parses single tokens with (a seed row).
//
// Row k holds the items alive after k bytes: (state, start row) pairs whose state can scan.
// Row k also records who waits for which rule (completion entries), so an item of rule R that
// ends later can advance its parents. Zero-length completions are never looked up: predicting
// a nullable rule advances its parent at once instead. Counted repeats keep their iteration
// count in the parent item that waits in the repeat's loop state; an item of a counted rule
// (ir.ts UnitCount) carries the units it has read, and takes no byte that would leave it more
// than its maximum or too few units left to end. Each row also lists its mask seeds
// (mask/fill-mask.ts). All storage is typed arrays grown by doubling; a byte allocates
// nothing.
import { EDGE_BYTE, EDGE_REPEAT, EDGE_RULE } from './fsm/edges.js';
import type { GrammarFsm } from './fsm/grammar-fsm.js';
import { isTail } from './fsm/queries.js';

/**
 * Start rows of a seed row's items (`RowEngine.forState`), which stands for one item of some
 * real row: SEED_START for the seed's own rule, whose real start is unknown; CONTEXT_START for
 * the context rule that follows it (mask/context.ts). Neither has parents in these rows.
 */
export const SEED_START = -1;
export const CONTEXT_START = -2;
/** The seed item's repeat count: unknown, so its own counted-repeat edges are not followed. */
const UNKNOWN_COUNT = -1;
/** `countAfter`: the item's count refuses the edge. */
export const COUNT_REFUSED = -2;

/** A completion entry's target: a state to advance to, or (negative) a counted repeat's index. */
function repeatCode(rep: number): number {
  return -rep - 1;
}

export function grow(a: Int32Array<ArrayBuffer>, need: number): Int32Array<ArrayBuffer> {
  if (need <= a.length) return a;
  let size = a.length * 2;
  while (size < need) size *= 2;
  const b = new Int32Array(size);
  b.set(a);
  return b;
}

export interface SeedOptions {
  /** The seed item's state. */
  state: number;
  /** The rule's context rule follows its end (default true). */
  withContext?: boolean;
  /** A reference of the seed's rule to another rule as its last step counts as its end. */
  cutTails?: boolean;
}

export class RowEngine {
  readonly fsm: GrammarFsm;
  private items = new Int32Array(256); // (state, start) pairs, rows back to back
  private itemCounts = new Int32Array(128); // per item: units read, in a counted rule
  private itemsLen = 0;
  private entries = new Int32Array(256); // (rule, target state or repeatCode, parentStart, parentCount)
  private entriesLen = 0;
  private rowItemStart = new Int32Array(64); // numRows + 1 offsets (in ints)
  private rowEntryStart = new Int32Array(64);
  private rowCompleted = new Uint8Array(64);
  // Per row, the items (state, start) whose states' cached token masks together give the row's
  // mask: the items not predicted in this row (a predicted item's mask is part of its
  // predictor's), plus what a counted repeat started or left, since mask-cache seeds do not
  // know their counts.
  private seeds = new Int32Array(64);
  private seedCounts = new Int32Array(32); // per seed: as itemCounts
  private seedsLen = 0;
  private rowSeedStart = new Int32Array(64);
  private seedStamp: Int32Array;
  private seedGen = 0;
  private numRows = 0;
  // A stamp per row, new each time a row is built: equal stamps mean the same row (and, since
  // rows below a row can only change by truncating it, the same history below it).
  private rowStamp = new Int32Array(64);
  private static rowStamps = 0;
  // Per-row work queue, which is also the row's set of distinct items.
  private queue = new Int32Array(192);
  private qLen = 0;
  private seenKeys = new Int32Array(1024 * 3);
  private seenStamp = new Int32Array(1024);
  private stamp = 0;
  // Seed mode (see `forState`), or seedState -1: rows of the root from the start.
  private readonly seedState: number;
  private readonly seedContext: number;
  private readonly seedCutTails: boolean;

  constructor(fsm: GrammarFsm, seed?: SeedOptions) {
    this.fsm = fsm;
    this.seedState = seed?.state ?? -1;
    const seedRule = this.seedState >= 0 ? fsm.stateRule[this.seedState]! : -1;
    this.seedContext = seedRule >= 0 && seed?.withContext !== false ? fsm.ruleContext[seedRule]! : -1;
    this.seedCutTails = seed?.cutTails === true;
    this.seedStamp = new Int32Array(fsm.stateRule.length);
    this.reset();
  }

  /**
   * Rows whose only initial item is `state` with an unknown start and repeat count, the mask
   * compiler's view of one row item: `rowEnds(row)` then means "the item's rule can end here",
   * and the seed's own counted-repeat edges are not followed (their effect is other items of
   * the real row). With `withContext`, the rule's context rule (mask/context.ts) follows its
   * end. With `cutTails`, a reference of the seed's rule to another rule as its last step
   * counts as the rule's end (mask/rule-hash.ts says why).
   */
  static forState(fsm: GrammarFsm, state: number, withContext: boolean, cutTails = false): RowEngine {
    return new RowEngine(fsm, { state, withContext, cutTails });
  }

  /** Back to the first row. */
  reset(): void {
    this.itemsLen = 0;
    this.entriesLen = 0;
    this.numRows = 0;
    this.rowItemStart[0] = 0;
    this.rowEntryStart[0] = 0;
    this.rowSeedStart[0] = 0;
    this.seedsLen = 0;
    this.beginRow();
    if (this.seedState >= 0) this.enqueue(this.seedState, SEED_START, UNKNOWN_COUNT);
    else this.enqueue(this.fsm.ruleStart[this.fsm.root]!, 0, 0);
    this.processRow();
  }

  /** An independent copy. */
  copy(): RowEngine {
    const copy = Object.create(RowEngine.prototype) as RowEngine;
    Object.assign(copy, this);
    copy.items = this.items.slice();
    copy.itemCounts = this.itemCounts.slice();
    copy.seedCounts = this.seedCounts.slice();
    copy.entries = this.entries.slice();
    copy.rowItemStart = this.rowItemStart.slice();
    copy.rowEntryStart = this.rowEntryStart.slice();
    copy.rowCompleted = this.rowCompleted.slice();
    copy.seeds = this.seeds.slice();
    copy.rowStamp = this.rowStamp.slice();
    copy.rowSeedStart = this.rowSeedStart.slice();
    copy.seedStamp = new Int32Array(this.seedStamp.length);
    copy.seedGen = 0;
    copy.queue = new Int32Array(this.queue.length);
    copy.seenKeys = new Int32Array(this.seenKeys.length);
    copy.seenStamp = new Int32Array(this.seenStamp.length);
    copy.stamp = 0;
    return copy;
  }

  get rowCount(): number {
    return this.numRows;
  }

  /** All rows' items as (state, start) pairs; row r is [rowItemBegin(r), rowItemEnd(r)). */
  get itemData(): Int32Array {
    return this.items;
  }

  /** The mask seeds of all rows, (state, start) pairs; row r's are [rowSeedBegin(r), rowSeedBegin(r + 1)). */
  get seedData(): Int32Array {
    return this.seeds;
  }

  /** Units read by the item at `itemData` index i (even), in a counted rule; -1 unknown (a seed row's). */
  itemCount(i: number): number {
    return this.itemCounts[i >> 1]!;
  }

  /**
   * The units the item at `itemData` index i has read once it crosses byte edge `e` of its
   * state, or COUNT_REFUSED when its count refuses the edge (more than its rule's maximum, or
   * too few units left to end). The item's own count, unknown or not, outside a counted rule.
   */
  countAfter(i: number, e: number): number {
    const fsm = this.fsm;
    const count = this.itemCounts[i >> 1]!;
    const max = fsm.ruleUnitMax[fsm.stateRule[this.items[i]!]!]!;
    if (max < 0 || count === UNKNOWN_COUNT) return count;
    const t = fsm.edgeTarget[e]!;
    return count + fsm.stateUnitEnd[t]! + fsm.stateUnitsLeft[t]! <= max ? count + fsm.stateUnitEnd[t]! : COUNT_REFUSED;
  }

  /** As itemCount, for the seed at `seedData` index i. */
  seedCount(i: number): number {
    return this.seedCounts[i >> 1]!;
  }

  rowSeedBegin(row: number): number {
    return this.rowSeedStart[row]!;
  }

  /** The stamp of row `row` (see rowStamp). */
  stampOf(row: number): number {
    return this.rowStamp[row]!;
  }

  rowItemBegin(row: number): number {
    return this.rowItemStart[row]!;
  }

  rowItemEnd(row: number): number {
    return this.rowItemStart[row + 1]!;
  }

  /** Whether the root (or for a seed row, the seed's rule) can end after row `row`. */
  rowEnds(row: number): boolean {
    return this.rowCompleted[row] === 1;
  }

  /**
   * Whether row `row` holds an item of a rule flagged in `rules` that began at the row before
   * (its first byte was the last one read): one that can scan, or one waiting for a rule it
   * called (a completion entry of this row).
   */
  startedRuleLives(row: number, rules: Uint8Array): boolean {
    const fsm = this.fsm;
    for (let i = this.rowItemStart[row]!, to = this.rowItemStart[row + 1]!; i < to; i += 2) {
      if (this.items[i + 1] === row - 1 && rules[fsm.stateRule[this.items[i]!]!] === 1) return true;
    }
    for (let i = this.rowEntryStart[row]!, to = this.rowEntryStart[row + 1]!; i < to; i += 4) {
      const code = this.entries[i + 1]!;
      const parentState = code >= 0 ? code : fsm.repLoop[repeatCode(code)]!;
      if (this.entries[i + 2] === row - 1 && rules[fsm.stateRule[parentState]!] === 1) return true;
    }
    return false;
  }

  /** Drops rows above `rows`. */
  popRows(rows: number): void {
    this.numRows = rows;
    this.itemsLen = this.rowItemStart[rows]!;
    this.entriesLen = this.rowEntryStart[rows]!;
    this.seedsLen = this.rowSeedStart[rows]!;
  }

  /** Advances one byte as a new row; false (and no row) if nothing matched. */
  pushByte(byte: number): boolean {
    return this.advance(byte, null, 0);
  }

  /** Marks in `out` (256 entries) the bytes some item of row `row` can scan. */
  scannableBytes(row: number, out: Uint8Array): Uint8Array {
    const fsm = this.fsm;
    out.fill(0);
    for (let i = this.rowItemStart[row]!, to = this.rowItemStart[row + 1]!; i < to; i += 2) {
      const s = this.items[i]!;
      for (let e = fsm.edgeStart[s]!, end = fsm.edgeStart[s + 1]!; e < end; e++) {
        if (fsm.edgeKind[e] === EDGE_BYTE) out.fill(1, fsm.edgeLo[e]!, fsm.edgeHi[e]! + 1);
      }
    }
    return out;
  }

  /**
   * One byte as a new row; the first `numExtra` ints of `extra`, (state, start) pairs reached
   * by a token edge, join it. False (and no row) if nothing matched.
   */
  advance(byte: number, extra: Int32Array | null, numExtra: number): boolean {
    const fsm = this.fsm;
    const row = this.numRows - 1;
    const from = this.rowItemStart[row]!;
    const to = this.rowItemStart[row + 1]!;
    this.beginRow();
    for (let i = from; i < to; i += 2) {
      const s = this.items[i]!;
      const start = this.items[i + 1]!;
      const counted = fsm.ruleUnitMax[fsm.stateRule[s]!]! >= 0;
      for (let e = fsm.edgeStart[s]!, end = fsm.edgeStart[s + 1]!; e < end; e++) {
        if (fsm.edgeKind[e] === EDGE_BYTE && byte >= fsm.edgeLo[e]! && byte <= fsm.edgeHi[e]!) {
          if (!counted) {
            this.enqueue(fsm.edgeTarget[e]!, start, 0);
            continue;
          }
          // A counted rule: one unit more where one ends, within the maximum with enough left to end.
          const count = this.countAfter(i, e);
          if (count !== COUNT_REFUSED) this.enqueue(fsm.edgeTarget[e]!, start, count);
        }
      }
    }
    if (this.qLen === 0) return false;
    for (let i = 0; i < numExtra; i += 2) this.enqueue(extra![i]!, extra![i + 1]!, 0);
    this.processRow();
    const last = this.numRows - 1;
    if (this.rowItemStart[last + 1] === this.rowItemStart[last] && this.rowCompleted[last] === 0) {
      this.popRows(last); // a dead end: nothing can follow and nothing ended
      return false;
    }
    return true;
  }

  /** A new row of just the `n` ints of (state, start) pairs in `pairs` (token edges alone matched). */
  pushItems(pairs: Int32Array, n: number): void {
    this.beginRow();
    for (let i = 0; i < n; i += 2) this.enqueue(pairs[i]!, pairs[i + 1]!, 0);
    this.processRow();
  }

  /**
   * Pushes the row that follows an item of `rule` started at row `origin` ending here: its
   * parents, advanced. False (and no row) when none waits.
   */
  pushCompletion(rule: number, origin: number): boolean {
    this.beginRow();
    this.complete(rule, origin);
    if (this.qLen === 0) return false;
    this.processRow();
    return true;
  }

  private beginRow(): void {
    this.qLen = 0;
    this.stamp++;
    if (this.stamp === 0x7fffffff) {
      this.seenStamp.fill(0);
      this.stamp = 1;
    }
  }

  /** Runs predict/complete over the queued items and appends them as row `numRows`. */
  private processRow(): void {
    const fsm = this.fsm;
    const r = this.numRows;
    this.ensureRowCapacity(r + 2);
    this.rowEntryStart[r] = this.entriesLen;
    this.rowItemStart[r] = this.itemsLen;
    this.rowSeedStart[r] = this.seedsLen;
    if (++this.seedGen === 0x7fffffff) {
      this.seedStamp.fill(0);
      this.seedGen = 1;
    }
    let completed = 0;
    for (let q = 0; q < this.qLen; q += 3) {
      const s = this.queue[q]!;
      const start = this.queue[q + 1]!;
      const count = this.queue[q + 2]!;
      const rule = fsm.stateRule[s]!;
      if (start < r || (q === 0 && r === 0)) this.seedItem(s, start, r, count);
      if (fsm.stateFinal[s] === 1) {
        if (start < 0) {
          // A seed row: the seed's rule goes on into its context rule, if it has one; where
          // that ends, the row is marked (for the mask compiler: the rest of a token is unknown
          // there, or must be empty when the context is closed).
          if (start === SEED_START && this.seedContext >= 0) this.enqueue(fsm.ruleStart[this.seedContext]!, CONTEXT_START, 0);
          else completed = 1;
        } else {
          if (rule === fsm.root && start === 0 && this.seedState < 0) completed = 1;
          if (start !== r) this.complete(rule, start);
        }
      }
      if (fsm.stateScan[s] !== 0) {
        this.items = grow(this.items, this.itemsLen + 2);
        this.itemCounts = grow(this.itemCounts, (this.itemsLen >> 1) + 1);
        this.itemCounts[this.itemsLen >> 1] = count;
        this.items[this.itemsLen++] = s;
        this.items[this.itemsLen++] = start;
      }
      for (let e = fsm.edgeStart[s]!, end = fsm.edgeStart[s + 1]!; e < end; e++) {
        const kind = fsm.edgeKind[e]!;
        if (kind === EDGE_RULE) {
          const child = fsm.edgeAux[e]!;
          if (start === SEED_START && this.seedCutTails && child !== rule && isTail(fsm, fsm.edgeTarget[e]!)) {
            completed = 1; // a seed row: the seed's rule hands over to another rule here
            continue;
          }
          this.addEntry(child, fsm.edgeTarget[e]!, start, 0);
          this.enqueue(fsm.ruleStart[child]!, r, 0);
          if (fsm.ruleNullable[child] === 1) this.enqueue(fsm.edgeTarget[e]!, start, 0);
        } else if (kind === EDGE_REPEAT && count !== UNKNOWN_COUNT) {
          const rep = fsm.edgeAux[e]!;
          if (count >= fsm.repMin[rep]!) {
            this.enqueue(fsm.edgeTarget[e]!, start, 0);
            this.seedItem(fsm.edgeTarget[e]!, start, r, 0);
          }
          const max = fsm.repMax[rep]!;
          if (max === -1 || count < max) {
            const child = fsm.repRule[rep]!;
            this.addEntry(child, repeatCode(rep), start, count);
            this.enqueue(fsm.ruleStart[child]!, r, 0);
            this.seedItem(fsm.ruleStart[child]!, r, r, 0);
          }
        }
      }
    }
    this.rowCompleted[r] = completed;
    this.rowStamp[r] = ++RowEngine.rowStamps;
    this.numRows = r + 1;
    this.rowItemStart[r + 1] = this.itemsLen;
    this.rowEntryStart[r + 1] = this.entriesLen;
    this.rowSeedStart[r + 1] = this.seedsLen;
  }

  /** An item of `rule` that started at row `origin` ended here: advance who waited for it. */
  private complete(rule: number, origin: number): void {
    const fsm = this.fsm;
    const to = this.rowEntryStart[origin + 1]!;
    for (let i = this.rowEntryStart[origin]!; i < to; i += 4) {
      if (this.entries[i] !== rule) continue;
      const code = this.entries[i + 1]!;
      const parentStart = this.entries[i + 2]!;
      if (code >= 0) {
        this.enqueue(code, parentStart, 0);
      } else {
        const rep = repeatCode(code); // its own inverse
        let count = this.entries[i + 3]! + 1;
        // Unbounded: only "reached min" matters, so the count saturates (finitely many items).
        if (fsm.repMax[rep] === -1 && count > fsm.repMin[rep]!) count = fsm.repMin[rep]!;
        this.enqueue(fsm.repLoop[rep]!, parentStart, count);
      }
    }
  }

  /**
   * Makes the item (state, start) a mask seed of row `r`, with the rules it calls as its
   * last step: context-free masks stop at such calls (mask/rule-hash.ts), so at the item
   * itself the callee's mask must come in too. Not for the unreferenced root, whose masks are
   * exact.
   */
  private seedItem(state: number, start: number, r: number, count: number): void {
    if (!this.addSeed(state, start, count)) return;
    const fsm = this.fsm;
    const rule = fsm.stateRule[state]!;
    if (fsm.ruleContextClosed[rule] === 1 && fsm.ruleContext[rule] === -1) return;
    for (let e = fsm.edgeStart[state]!, end = fsm.edgeStart[state + 1]!; e < end; e++) {
      if (fsm.edgeKind[e] === EDGE_RULE && fsm.edgeAux[e] !== rule && isTail(fsm, fsm.edgeTarget[e]!)) this.seedItem(fsm.ruleStart[fsm.edgeAux[e]!]!, r, r, 0);
    }
  }

  /** Adds (state, start) to the current row's seeds; false if it was there (or has no edges). */
  private addSeed(state: number, start: number, count: number): boolean {
    const fsm = this.fsm;
    if (fsm.edgeStart[state] === fsm.edgeStart[state + 1]) return false;
    if (this.seedStamp[state] === this.seedGen) {
      // Seen in this row: rarely with another start, so a scan of the row's seeds is cheap.
      for (let i = this.rowSeedStart[this.numRows]!; i < this.seedsLen; i += 2) if (this.seeds[i] === state && this.seeds[i + 1] === start) return false;
    }
    this.seedStamp[state] = this.seedGen;
    this.seeds = grow(this.seeds, this.seedsLen + 2);
    this.seedCounts = grow(this.seedCounts, (this.seedsLen >> 1) + 1);
    this.seedCounts[this.seedsLen >> 1] = count;
    this.seeds[this.seedsLen++] = state;
    this.seeds[this.seedsLen++] = start;
    return true;
  }

  private addEntry(rule: number, code: number, parentStart: number, count: number): void {
    this.entries = grow(this.entries, this.entriesLen + 4);
    const a = this.entries;
    const n = this.entriesLen;
    a[n] = rule;
    a[n + 1] = code;
    a[n + 2] = parentStart;
    a[n + 3] = count;
    this.entriesLen = n + 4;
  }

  private enqueue(state: number, start: number, count: number): void {
    let mask = this.seenStamp.length - 1;
    if (this.qLen / 3 >= (mask + 1) >> 1) {
      this.rehash();
      mask = this.seenStamp.length - 1;
    }
    let h = (Math.imul(state, 0x9e3779b1) ^ Math.imul(start + 1, 0x85ebca77) ^ Math.imul(count + 7, 0xc2b2ae3d)) >>> 0;
    h = (h ^ (h >>> 15)) & mask;
    const keys = this.seenKeys;
    while (this.seenStamp[h] === this.stamp) {
      if (keys[h * 3] === state && keys[h * 3 + 1] === start && keys[h * 3 + 2] === count) return;
      h = (h + 1) & mask;
    }
    this.seenStamp[h] = this.stamp;
    keys[h * 3] = state;
    keys[h * 3 + 1] = start;
    keys[h * 3 + 2] = count;
    this.queue = grow(this.queue, this.qLen + 3);
    this.queue[this.qLen++] = state;
    this.queue[this.qLen++] = start;
    this.queue[this.qLen++] = count;
  }

  /** Doubles the dedup table and re-inserts the row's items (the queue holds exactly them). */
  private rehash(): void {
    const size = this.seenStamp.length * 2;
    this.seenKeys = new Int32Array(size * 3);
    this.seenStamp = new Int32Array(size);
    this.stamp = 1;
    const n = this.qLen;
    this.qLen = 0;
    const old = this.queue.slice(0, n);
    for (let q = 0; q < n; q += 3) this.enqueue(old[q]!, old[q + 1]!, old[q + 2]!);
  }

  private ensureRowCapacity(rows: number): void {
    if (rows <= this.rowItemStart.length) return;
    this.rowItemStart = grow(this.rowItemStart, rows);
    this.rowEntryStart = grow(this.rowEntryStart, rows);
    this.rowSeedStart = grow(this.rowSeedStart, rows);
    this.rowStamp = grow(this.rowStamp, rows);
    const c = new Uint8Array(this.rowItemStart.length);
    c.set(this.rowCompleted);
    this.rowCompleted = c;
  }
}
