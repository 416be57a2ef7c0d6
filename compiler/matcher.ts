// Byte-level Earley matcher over the packed per-rule automata.
//
//   const m = new GrammarMatcher(compiled);
//   m.acceptString('{"a": 1}'); m.isCompleted(); m.rollback(1); const copy = m.fork();
//
// Row k holds the items alive after k bytes: (state, start row) pairs whose state can scan.
// Row k also records who waits for which rule (completion entries), so an item of rule R that
// ends later can advance its parents. Zero-length completions are never looked up: predicting
// a nullable rule advances its parent at once instead. Counted repeats keep their iteration
// count in the parent item that waits in the repeat's loop state.
// All storage is typed arrays grown by doubling; accepting a byte allocates nothing.
import type { CompiledGrammar } from './compiled-grammar.js';
import { EDGE_BYTE, EDGE_REPEAT, EDGE_RULE } from './fsm/edges.js';
import type { GrammarFsm } from './fsm/grammar-fsm.js';

const encoder = new TextEncoder();

function grow(a: Int32Array<ArrayBuffer>, need: number): Int32Array<ArrayBuffer> {
  if (need <= a.length) return a;
  let size = a.length * 2;
  while (size < need) size *= 2;
  const b = new Int32Array(size);
  b.set(a);
  return b;
}

export class GrammarMatcher {
  readonly compiled: CompiledGrammar;
  private readonly fsm: GrammarFsm;
  private items = new Int32Array(256); // (state, start) pairs, rows back to back
  private itemsLen = 0;
  private entries = new Int32Array(256); // (rule, target or -repeat-1, parentStart, parentCount)
  private entriesLen = 0;
  private rowItemStart = new Int32Array(64); // numRows + 1 offsets (in ints)
  private rowEntryStart = new Int32Array(64);
  private rowCompleted = new Uint8Array(64);
  private numRows = 0;
  private units = new Int32Array(64); // rows added by each accepted unit
  private numUnits = 0;
  // Per-row work queue, which is also the row's set of distinct items.
  private queue = new Int32Array(192);
  private qLen = 0;
  private seenKeys = new Int32Array(1024 * 3);
  private seenStamp = new Int32Array(1024);
  private stamp = 0;

  constructor(compiled: CompiledGrammar) {
    this.compiled = compiled;
    this.fsm = compiled.fsm;
    this.reset();
  }

  /** Back to the state before any input. */
  reset(): void {
    this.itemsLen = 0;
    this.entriesLen = 0;
    this.numRows = 0;
    this.numUnits = 0;
    this.rowItemStart[0] = 0;
    this.rowEntryStart[0] = 0;
    this.beginRow();
    this.enqueue(this.fsm.ruleStart[this.fsm.root]!, 0, 0);
    this.processRow();
  }

  /** Accepts the whole string or nothing; counts as one unit for rollback. */
  acceptString(text: string): boolean {
    return this.acceptBytes(encoder.encode(text));
  }

  acceptBytes(bytes: Uint8Array): boolean {
    const before = this.numRows;
    for (let i = 0; i < bytes.length; i++) {
      if (!this.advance(bytes[i]!)) {
        this.truncate(before);
        return false;
      }
    }
    if (this.numUnits === this.units.length) this.units = grow(this.units, this.numUnits + 1);
    this.units[this.numUnits++] = this.numRows - before;
    return true;
  }

  /** Whether the root rule can end after the input accepted so far. */
  isCompleted(): boolean {
    return this.rowCompleted[this.numRows - 1] === 1;
  }

  /** Undoes the last `n` accepted units (strings). */
  rollback(n: number): void {
    if (!Number.isInteger(n) || n < 0 || n > this.numUnits) {
      throw new RangeError(`cannot roll back ${n} units; ${this.numUnits} accepted`);
    }
    let rows = this.numRows;
    for (let i = 0; i < n; i++) rows -= this.units[--this.numUnits]!;
    this.truncate(rows);
  }

  /** Number of units that can be rolled back. */
  get acceptedUnits(): number {
    return this.numUnits;
  }

  /** An independent copy sharing only the (immutable) compiled grammar. */
  fork(): GrammarMatcher {
    const copy = Object.create(GrammarMatcher.prototype) as GrammarMatcher;
    Object.assign(copy, this);
    copy.items = this.items.slice();
    copy.entries = this.entries.slice();
    copy.rowItemStart = this.rowItemStart.slice();
    copy.rowEntryStart = this.rowEntryStart.slice();
    copy.rowCompleted = this.rowCompleted.slice();
    copy.units = this.units.slice();
    copy.queue = new Int32Array(this.queue.length);
    copy.seenKeys = new Int32Array(this.seenKeys.length);
    copy.seenStamp = new Int32Array(this.seenStamp.length);
    copy.stamp = 0;
    return copy;
  }

  private truncate(rows: number): void {
    this.numRows = rows;
    this.itemsLen = this.rowItemStart[rows]!;
    this.entriesLen = this.rowEntryStart[rows]!;
  }

  private advance(byte: number): boolean {
    const fsm = this.fsm;
    const row = this.numRows - 1;
    const from = this.rowItemStart[row]!;
    const to = this.rowItemStart[row + 1]!;
    this.beginRow();
    for (let i = from; i < to; i += 2) {
      const s = this.items[i]!;
      const start = this.items[i + 1]!;
      for (let e = fsm.edgeStart[s]!, end = fsm.edgeStart[s + 1]!; e < end; e++) {
        if (fsm.edgeKind[e] === EDGE_BYTE && byte >= fsm.edgeLo[e]! && byte <= fsm.edgeHi[e]!) {
          this.enqueue(fsm.edgeTarget[e]!, start, 0);
        }
      }
    }
    if (this.qLen === 0) return false;
    this.processRow();
    const last = this.numRows - 1;
    if (this.rowItemStart[last + 1] === this.rowItemStart[last] && this.rowCompleted[last] === 0) {
      this.truncate(last); // a dead end: nothing can follow and nothing ended
      return false;
    }
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
    let completed = 0;
    for (let q = 0; q < this.qLen; q += 3) {
      const s = this.queue[q]!;
      const start = this.queue[q + 1]!;
      const count = this.queue[q + 2]!;
      const rule = fsm.stateRule[s]!;
      if (fsm.stateFinal[s] === 1) {
        if (rule === fsm.root && start === 0) completed = 1;
        if (start !== r) this.complete(rule, start);
      }
      if (fsm.stateScan[s] !== 0) {
        this.items = grow(this.items, this.itemsLen + 2);
        this.items[this.itemsLen++] = s;
        this.items[this.itemsLen++] = start;
      }
      for (let e = fsm.edgeStart[s]!, end = fsm.edgeStart[s + 1]!; e < end; e++) {
        const kind = fsm.edgeKind[e]!;
        if (kind === EDGE_RULE) {
          const child = fsm.edgeAux[e]!;
          this.addEntry(child, fsm.edgeTarget[e]!, start, 0);
          this.enqueue(fsm.ruleStart[child]!, r, 0);
          if (fsm.ruleNullable[child] === 1) this.enqueue(fsm.edgeTarget[e]!, start, 0);
        } else if (kind === EDGE_REPEAT) {
          const rep = fsm.edgeAux[e]!;
          if (count >= fsm.repMin[rep]!) this.enqueue(fsm.edgeTarget[e]!, start, 0);
          const max = fsm.repMax[rep]!;
          if (max === -1 || count < max) {
            const child = fsm.repRule[rep]!;
            this.addEntry(child, -rep - 1, start, count);
            this.enqueue(fsm.ruleStart[child]!, r, 0);
          }
        }
      }
    }
    this.rowCompleted[r] = completed;
    this.numRows = r + 1;
    this.rowItemStart[r + 1] = this.itemsLen;
    this.rowEntryStart[r + 1] = this.entriesLen;
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
        const rep = -code - 1;
        let count = this.entries[i + 3]! + 1;
        // Unbounded: only "reached min" matters, so the count saturates (finitely many items).
        if (fsm.repMax[rep] === -1 && count > fsm.repMin[rep]!) count = fsm.repMin[rep]!;
        this.enqueue(fsm.repLoop[rep]!, parentStart, count);
      }
    }
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
    const c = new Uint8Array(this.rowItemStart.length);
    c.set(this.rowCompleted);
    this.rowCompleted = c;
  }
}
