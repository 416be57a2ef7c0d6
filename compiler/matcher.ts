// Earley matcher over the packed per-rule automata, by bytes and, with a vocabulary, by tokens.
//
//   const m = new GrammarMatcher(compiled);
//   m.acceptString('{"a": 1}'); m.isCompleted(); m.rollback(1); const copy = m.fork();
//   // compiled for a vocabulary (new GrammarCompiler(tokenizerInfo).compile(grammar)):
//   m.fillNextTokenBitmask(mask); m.acceptToken(id); m.isTerminated(); m.findJumpForwardString();
//
// Row k holds the items alive after k bytes: (state, start row) pairs whose state can scan.
// Row k also records who waits for which rule (completion entries), so an item of rule R that
// ends later can advance its parents. Zero-length completions are never looked up: predicting
// a nullable rule advances its parent at once instead. Counted repeats keep their iteration
// count in the parent item that waits in the repeat's loop state.
// All storage is typed arrays grown by doubling; accepting a byte allocates nothing.
import type { CompiledGrammar } from './compiled-grammar.js';
import { EDGE_BYTE, EDGE_EXCLUDE_TOKEN, EDGE_REPEAT, EDGE_RULE, EDGE_TOKEN } from './fsm/edges.js';
import { SCAN_TOKEN, type GrammarFsm } from './fsm/grammar-fsm.js';
import { isTail, tokenSetHas } from './fsm/queries.js';
import { fillTokenMask, type MaskScratch, newMaskScratch } from './mask/fill-mask.js';
import { TOKEN_NORMAL, TOKEN_STOP } from './tokenizer/tokenizer-info.js';

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
  // Per row, the items (state, start) whose states' cached token masks together give the row's
  // mask: the items not predicted in this row (a predicted item's mask is part of its
  // predictor's), plus what a counted repeat started or left, since mask-cache seeds do not
  // know their counts.
  private seeds = new Int32Array(64);
  private seedsLen = 0;
  private rowSeedStart = new Int32Array(64);
  private seedStamp: Int32Array;
  private seedGen = 0;
  private numRows = 0;
  // A stamp per row, new each time a row is built: equal stamps mean the same row (and, since
  // rows below a row can only change by truncating it, the same history below it).
  private rowStamp = new Int32Array(64);
  private static rowStamps = 0;
  private units = new Int32Array(64); // rows added by each accepted unit
  private numUnits = 0;
  // Per-row work queue, which is also the row's set of distinct items.
  private queue = new Int32Array(192);
  private qLen = 0;
  private seenKeys = new Int32Array(1024 * 3);
  private seenStamp = new Int32Array(1024);
  private stamp = 0;
  /** Unit index of the accepted stop token, or -1: the matcher is terminated while it stands. */
  private stopUnit = -1;
  private scratch: MaskScratch | null = null;
  private atomic = new Int32Array(16); // (state, start) pairs reached by a token edge
  // Mask-cache mode (see `forState`): the seed item stands for one item of some real row, so
  // "its rule ends here" is reported instead of completed through parents it does not have.
  private readonly seedState: number;
  private readonly seedContext: number;
  private readonly seedCutTails: boolean;

  constructor(compiled: CompiledGrammar, options: { seedState?: number; seedContext?: boolean; seedCutTails?: boolean } = {}) {
    this.compiled = compiled;
    this.fsm = compiled.fsm;
    this.seedState = options.seedState ?? -1;
    const seedRule = this.seedState >= 0 ? this.fsm.stateRule[this.seedState]! : -1;
    this.seedContext = seedRule >= 0 && options.seedContext !== false ? this.fsm.ruleContext[seedRule]! : -1;
    this.seedCutTails = options.seedCutTails === true;
    this.seedStamp = new Int32Array(this.fsm.stateRule.length);
    this.reset();
  }

  /**
   * @internal A matcher whose only initial item is `state` with an unknown start and repeat
   * count, the mask compiler's view of one row item: `isCompleted()` after a byte then means
   * "the item's rule can end here", and the seed's own counted-repeat edges are not followed
   * (their effect is other items of the real row). With `withContext`, the rule's context
   * rule (mask/context.ts) follows its end. With `cutTails`, a reference of the seed's rule to
   * another rule as its last step counts as the rule's end (mask/rule-hash.ts says why).
   */
  static forState(compiled: CompiledGrammar, state: number, withContext: boolean, cutTails = false): GrammarMatcher {
    return new GrammarMatcher(compiled, { seedState: state, seedContext: withContext, seedCutTails: cutTails });
  }

  /** Back to the state before any input. */
  reset(): void {
    this.itemsLen = 0;
    this.entriesLen = 0;
    this.numRows = 0;
    this.numUnits = 0;
    this.stopUnit = -1;
    this.rowItemStart[0] = 0;
    this.rowEntryStart[0] = 0;
    this.rowSeedStart[0] = 0;
    this.seedsLen = 0;
    this.beginRow();
    if (this.seedState >= 0) this.enqueue(this.seedState, -1, -1);
    else this.enqueue(this.fsm.ruleStart[this.fsm.root]!, 0, 0);
    this.processRow();
  }

  /** Accepts the whole string or nothing; counts as one unit for rollback. */
  acceptString(text: string): boolean {
    return this.acceptBytes(encoder.encode(text));
  }

  acceptBytes(bytes: Uint8Array): boolean {
    if (this.stopUnit >= 0) return false;
    const before = this.numRows;
    for (let i = 0; i < bytes.length; i++) {
      if (!this.advance(bytes[i]!, 0)) {
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

  /** Undoes the last `n` accepted units (tokens or strings), a stop token included. */
  rollback(n: number): void {
    if (!Number.isInteger(n) || n < 0 || n > this.numUnits) {
      throw new RangeError(`cannot roll back ${n} units; ${this.numUnits} accepted`);
    }
    let rows = this.numRows;
    for (let i = 0; i < n; i++) rows -= this.units[--this.numUnits]!;
    if (this.stopUnit >= this.numUnits) this.stopUnit = -1;
    this.truncate(rows);
  }

  /** A stop token was accepted: nothing more can be. */
  isTerminated(): boolean {
    return this.stopUnit >= 0;
  }

  /**
   * Accepts one token of the compiled grammar's vocabulary, as one rollback unit. A normal
   * token matches by its bytes or through a token edge (both at once when both match); a
   * stop token only where the root can end, and it terminates the matcher; special tokens
   * and padding never match.
   */
  acceptToken(id: number): boolean {
    const info = this.vocabulary();
    if (this.stopUnit >= 0 || !Number.isInteger(id) || id < 0 || id >= info.numTokens) return false;
    const kind = info.kind[id]!;
    if (kind === TOKEN_STOP) {
      if (!this.isCompleted()) return false;
      this.pushUnit(0);
      this.stopUnit = this.numUnits - 1;
      return true;
    }
    if (kind !== TOKEN_NORMAL && info.tokenLength(id) === 0) return false; // decodes to nothing
    const before = this.numRows;
    const numAtomic = this.collectAtomic(id);
    let ok = false;
    if (kind === TOKEN_NORMAL) {
      const from = info.offsets[id]!;
      const to = info.offsets[id + 1]!;
      ok = true;
      for (let i = from; i < to && ok; i++) ok = this.advance(info.bytes[i]!, i === to - 1 ? numAtomic : 0);
      if (!ok) this.truncate(before);
    }
    if (!ok && numAtomic > 0) {
      // Only the token edges matched: their targets form one row.
      this.beginRow();
      for (let i = 0; i < numAtomic; i += 2) this.enqueue(this.atomic[i]!, this.atomic[i + 1]!, 0);
      this.processRow();
      ok = true;
    }
    if (ok) this.pushUnit(this.numRows - before);
    return ok;
  }

  /**
   * Sets bit `id % 32` of word `id >> 5` for every token allowed next, clears the others.
   * `mask` holds at least ceil(vocabSize / 32) words; words past that are cleared too.
   */
  fillNextTokenBitmask(mask: Uint32Array): void {
    const info = this.vocabulary();
    if (this.stopUnit >= 0) throw new Error('the matcher is terminated: no token can follow the stop token');
    if (mask.length * 32 < info.vocabSize) throw new RangeError(`a mask of ${mask.length} words is too small for ${info.vocabSize} tokens`);
    this.scratch ??= newMaskScratch(info);
    const row = this.numRows - 1;
    fillTokenMask(this, mask, this.scratch, row);
  }

  /**
   * The bytes every continuation starts with, as a string of whole characters: follows the
   * grammar while all items agree on one byte, the root cannot end yet, and no token edge
   * offers an alternative. The matcher is left unchanged.
   */
  findJumpForwardString(): string {
    const bytes = this.findJumpForwardBytes();
    let end = bytes.length;
    // Cut an unfinished UTF-8 character off the end.
    let k = end - 1;
    while (k >= 0 && k > end - 4 && (bytes[k]! & 0xc0) === 0x80) k--;
    if (k >= 0) {
      const lead = bytes[k]!;
      const need = lead < 0x80 ? 1 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
      if (end - k < need) end = k;
    }
    return new TextDecoder().decode(bytes.subarray(0, end));
  }

  /** As `findJumpForwardString`, as bytes (which may end inside a character). */
  findJumpForwardBytes(): Uint8Array {
    const fsm = this.fsm;
    const before = this.numRows;
    const out: number[] = [];
    while (this.stopUnit < 0 && !this.isCompleted() && out.length < 65536) {
      const row = this.numRows - 1;
      let only = -1;
      let forced = true;
      for (let i = this.rowItemStart[row]!, to = this.rowItemStart[row + 1]!; i < to && forced; i += 2) {
        const s = this.items[i]!;
        for (let e = fsm.edgeStart[s]!, end = fsm.edgeStart[s + 1]!; e < end; e++) {
          const kind = fsm.edgeKind[e]!;
          if (kind === EDGE_TOKEN || kind === EDGE_EXCLUDE_TOKEN) forced = false;
          else if (kind === EDGE_BYTE) {
            if (fsm.edgeLo[e] !== fsm.edgeHi[e] || (only !== -1 && only !== fsm.edgeLo[e])) forced = false;
            only = fsm.edgeLo[e]!;
          }
        }
      }
      if (!forced || only === -1 || !this.advance(only, 0)) break;
      out.push(only);
    }
    this.truncate(before);
    return Uint8Array.from(out);
  }

  /** @internal Rows so far (the mask filler pushes and pops rows above them). */
  get rowCount(): number {
    return this.numRows;
  }

  /** @internal All rows' items as (state, start) pairs; row r is [rowItemBegin(r), rowItemEnd(r)). */
  get itemData(): Int32Array {
    return this.items;
  }

  /** @internal The mask seeds of all rows, (state, start) pairs; row r's are [rowSeedBegin(r), rowSeedBegin(r + 1)). */
  get seedData(): Int32Array {
    return this.seeds;
  }

  /** @internal */
  rowSeedBegin(row: number): number {
    return this.rowSeedStart[row]!;
  }

  /** @internal The stamp of row `row` (see rowStamp). */
  stampOf(row: number): number {
    return this.rowStamp[row]!;
  }

  /** @internal */
  rowItemBegin(row: number): number {
    return this.rowItemStart[row]!;
  }

  /** @internal */
  rowItemEnd(row: number): number {
    return this.rowItemStart[row + 1]!;
  }

  /** @internal Advances one byte as a new row; false (and no row) if nothing matched. */
  pushByte(byte: number): boolean {
    return this.advance(byte, 0);
  }

  /** @internal Marks in `out` (256 entries) the bytes some item of row `row` can scan. */
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

  /** @internal Drops rows above `rows`. */
  popRows(rows: number): void {
    this.truncate(rows);
  }

  /** @internal Whether the root (or in mask-cache mode, the seed's rule) can end after row `row`. */
  rowEnds(row: number): boolean {
    return this.rowCompleted[row] === 1;
  }

  private vocabulary() {
    const info = this.compiled.tokenizer;
    if (!info) throw new Error('this grammar was compiled without a vocabulary: compile it with new GrammarCompiler(tokenizerInfo)');
    return info;
  }

  private pushUnit(rows: number): void {
    if (this.numUnits === this.units.length) this.units = grow(this.units, this.numUnits + 1);
    this.units[this.numUnits++] = rows;
  }

  /** Targets of the last row's token edges that match `id`, into `atomic`; returns ints used. */
  private collectAtomic(id: number): number {
    const fsm = this.fsm;
    const row = this.numRows - 1;
    let n = 0;
    for (let i = this.rowItemStart[row]!, to = this.rowItemStart[row + 1]!; i < to; i += 2) {
      const s = this.items[i]!;
      if ((fsm.stateScan[s]! & SCAN_TOKEN) === 0) continue;
      for (let e = fsm.edgeStart[s]!, end = fsm.edgeStart[s + 1]!; e < end; e++) {
        const kind = fsm.edgeKind[e]!;
        if (kind !== EDGE_TOKEN && kind !== EDGE_EXCLUDE_TOKEN) continue;
        if (tokenSetHas(fsm, fsm.edgeAux[e]!, id) !== (kind === EDGE_TOKEN)) continue;
        if (kind === EDGE_EXCLUDE_TOKEN && this.compiled.tokenizer!.kind[id] !== TOKEN_NORMAL) continue;
        this.atomic = grow(this.atomic, n + 2);
        this.atomic[n++] = fsm.edgeTarget[e]!;
        this.atomic[n++] = this.items[i + 1]!;
      }
    }
    return n;
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
    copy.seeds = this.seeds.slice();
    copy.rowStamp = this.rowStamp.slice();
    copy.rowSeedStart = this.rowSeedStart.slice();
    copy.seedStamp = new Int32Array(this.seedStamp.length);
    copy.seedGen = 0;
    copy.units = this.units.slice();
    copy.queue = new Int32Array(this.queue.length);
    copy.seenKeys = new Int32Array(this.seenKeys.length);
    copy.seenStamp = new Int32Array(this.seenStamp.length);
    copy.stamp = 0;
    copy.atomic = new Int32Array(this.atomic.length);
    copy.scratch = null;
    return copy;
  }

  private truncate(rows: number): void {
    this.numRows = rows;
    this.itemsLen = this.rowItemStart[rows]!;
    this.entriesLen = this.rowEntryStart[rows]!;
    this.seedsLen = this.rowSeedStart[rows]!;
  }

  /** One byte as a new row; the first `numAtomic` ints of `atomic` join the row (token edges). */
  private advance(byte: number, numAtomic: number): boolean {
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
    for (let i = 0; i < numAtomic; i += 2) this.enqueue(this.atomic[i]!, this.atomic[i + 1]!, 0);
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
      if (start < r || (q === 0 && r === 0)) this.seedItem(s, start, r);
      if (fsm.stateFinal[s] === 1) {
        if (start < 0) {
          // Mask-cache mode: the seed's rule (start -1) goes on into its context rule (start
          // -2), if it has one; where that ends, the row is marked (for the mask compiler:
          // the rest of a token is unknown there, or must be empty when the context is closed).
          if (start === -1 && this.seedContext >= 0) this.enqueue(fsm.ruleStart[this.seedContext]!, -2, 0);
          else completed = 1;
        } else {
          if (rule === fsm.root && start === 0 && this.seedState < 0) completed = 1;
          if (start !== r) this.complete(rule, start);
        }
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
          if (start === -1 && this.seedCutTails && child !== rule && isTail(fsm, fsm.edgeTarget[e]!)) {
            completed = 1; // mask-cache mode: the seed's rule hands over to another rule here
            continue;
          }
          this.addEntry(child, fsm.edgeTarget[e]!, start, 0);
          this.enqueue(fsm.ruleStart[child]!, r, 0);
          if (fsm.ruleNullable[child] === 1) this.enqueue(fsm.edgeTarget[e]!, start, 0);
        } else if (kind === EDGE_REPEAT && count >= 0) {
          const rep = fsm.edgeAux[e]!;
          if (count >= fsm.repMin[rep]!) {
            this.enqueue(fsm.edgeTarget[e]!, start, 0);
            this.seedItem(fsm.edgeTarget[e]!, start, r);
          }
          const max = fsm.repMax[rep]!;
          if (max === -1 || count < max) {
            const child = fsm.repRule[rep]!;
            this.addEntry(child, -rep - 1, start, count);
            this.enqueue(fsm.ruleStart[child]!, r, 0);
            this.seedItem(fsm.ruleStart[child]!, r, r);
          }
        }
      }
    }
    this.rowCompleted[r] = completed;
    this.rowStamp[r] = ++GrammarMatcher.rowStamps;
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
        const rep = -code - 1;
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
  private seedItem(state: number, start: number, r: number): void {
    if (!this.addSeed(state, start)) return;
    const fsm = this.fsm;
    const rule = fsm.stateRule[state]!;
    if (fsm.ruleContextClosed[rule] === 1 && fsm.ruleContext[rule] === -1) return;
    for (let e = fsm.edgeStart[state]!, end = fsm.edgeStart[state + 1]!; e < end; e++) {
      if (fsm.edgeKind[e] === EDGE_RULE && fsm.edgeAux[e] !== rule && isTail(fsm, fsm.edgeTarget[e]!)) this.seedItem(fsm.ruleStart[fsm.edgeAux[e]!]!, r, r);
    }
  }

  /** Adds (state, start) to the current row's seeds; false if it was there (or has no edges). */
  private addSeed(state: number, start: number): boolean {
    const fsm = this.fsm;
    if (fsm.edgeStart[state] === fsm.edgeStart[state + 1]) return false;
    if (this.seedStamp[state] === this.seedGen) {
      // Seen in this row: rarely with another start, so a scan of the row's seeds is cheap.
      for (let i = this.rowSeedStart[this.numRows]!; i < this.seedsLen; i += 2) if (this.seeds[i] === state && this.seeds[i + 1] === start) return false;
    }
    this.seedStamp[state] = this.seedGen;
    this.seeds = grow(this.seeds, this.seedsLen + 2);
    this.seeds[this.seedsLen++] = state;
    this.seeds[this.seedsLen++] = start;
    return true;
  }

  /**
   * @internal Pushes the row that follows an item of `rule` started at row `origin` ending
   * here: its parents, advanced. False (and no row) when none waits.
   */
  pushCompletion(rule: number, origin: number): boolean {
    this.beginRow();
    this.complete(rule, origin);
    if (this.qLen === 0) return false;
    this.processRow();
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
