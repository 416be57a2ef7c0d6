// The public matcher of a compiled grammar, by bytes and, with a vocabulary, by tokens: the
// input's Earley rows (row-engine.ts), units for rollback, token edges, stop tokens, masks.
//
//   const m = new GrammarMatcher(compiled);
//   m.acceptString('{"a": 1}'); m.isCompleted(); m.rollback(1); const copy = m.fork();
//   // compiled for a vocabulary (new GrammarCompiler(tokenizerInfo).compile(grammar)):
//   m.fillNextTokenBitmask(mask); m.acceptToken(id); m.isTerminated(); m.findJumpForwardString();
import type { CompiledGrammar } from './compiled-grammar.js';
import { EDGE_BYTE, EDGE_EXCLUDE_TOKEN, EDGE_TOKEN } from './fsm/edges.js';
import { SCAN_TOKEN, type GrammarFsm } from './fsm/grammar-fsm.js';
import { tokenSetHas } from './fsm/queries.js';
import { fillTokenMask, type MaskScratch, newMaskScratch } from './mask/fill-mask.js';
import { COUNT_REFUSED, grow, RowEngine } from './row-engine.js';
import { TOKEN_NORMAL, TOKEN_STOP } from './tokenizer/tokenizer-info.js';
import { UniqueItemsGuard } from './unique-items-guard.js';

const encoder = new TextEncoder();

export class GrammarMatcher {
  readonly compiled: CompiledGrammar;
  private readonly fsm: GrammarFsm;
  private rows: RowEngine;
  private units = new Int32Array(64); // rows added by each accepted unit
  private numUnits = 0;
  /** Unit index of the accepted stop token, or -1: the matcher is terminated while it stands. */
  private stopUnit = -1;
  private scratch: MaskScratch | null = null;
  private atomic = new Int32Array(16); // (state, start) pairs reached by a token edge
  /** Keeps the items of arrays marked `uniqueItems` distinct (free strings, numbers), or null. */
  private guard: UniqueItemsGuard | null;

  constructor(compiled: CompiledGrammar) {
    this.compiled = compiled;
    this.fsm = compiled.fsm;
    this.rows = new RowEngine(compiled.fsm);
    this.guard = UniqueItemsGuard.forGrammar(compiled);
  }

  /** Back to the state before any input. */
  reset(): void {
    this.numUnits = 0;
    this.stopUnit = -1;
    this.rows.reset();
    this.guard?.reset();
  }

  /** Accepts the whole string or nothing; counts as one unit for rollback. */
  acceptString(text: string): boolean {
    return this.acceptBytes(encoder.encode(text));
  }

  acceptBytes(bytes: Uint8Array): boolean {
    if (this.stopUnit >= 0) return false;
    const rows = this.rows;
    const before = rows.rowCount;
    for (let i = 0; i < bytes.length; i++) {
      if (!rows.pushByte(bytes[i]!)) {
        rows.popRows(before);
        return false;
      }
    }
    if (this.guard && !this.guard.accept(bytes, rows, before)) {
      rows.popRows(before);
      return false;
    }
    this.pushUnit(rows.rowCount - before);
    return true;
  }

  /** Whether the root rule can end after the input accepted so far. */
  isCompleted(): boolean {
    return this.rows.rowEnds(this.rows.rowCount - 1);
  }

  /** Undoes the last `n` accepted units (tokens or strings), a stop token included. */
  rollback(n: number): void {
    if (!Number.isInteger(n) || n < 0 || n > this.numUnits) {
      throw new RangeError(`cannot roll back ${n} units; ${this.numUnits} accepted`);
    }
    let rows = this.rows.rowCount;
    for (let i = 0; i < n; i++) rows -= this.units[--this.numUnits]!;
    if (this.stopUnit >= this.numUnits) this.stopUnit = -1;
    this.rows.popRows(rows);
    this.guard?.rollback(n);
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
      this.guard?.acceptNothing();
      this.pushUnit(0);
      this.stopUnit = this.numUnits - 1;
      return true;
    }
    if (kind !== TOKEN_NORMAL && info.tokenLength(id) === 0) return false; // decodes to nothing
    const rows = this.rows;
    const before = rows.rowCount;
    const numAtomic = this.collectAtomic(id);
    let ok = false;
    if (kind === TOKEN_NORMAL) {
      const from = info.offsets[id]!;
      const to = info.offsets[id + 1]!;
      ok = true;
      for (let i = from; i < to && ok; i++) ok = i === to - 1 ? rows.advance(info.bytes[i]!, this.atomic, numAtomic) : rows.pushByte(info.bytes[i]!);
      // An item equal to an earlier one of its array is refused as the grammar refuses.
      if (ok && this.guard && !this.guard.accept(info.bytes.subarray(from, to), rows, before)) ok = false;
      if (!ok) rows.popRows(before);
    }
    if (!ok && numAtomic > 0) {
      // Only the token edges matched: their targets form one row.
      rows.pushItems(this.atomic, numAtomic);
      this.guard?.acceptNothing();
      ok = true;
    }
    if (ok) this.pushUnit(rows.rowCount - before);
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
    fillTokenMask(this.rows, info, this.compiled.masks!, mask, this.scratch, this.rows.rowCount - 1);
    this.guard?.filterMask(mask, info, this.rows);
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
    const rows = this.rows;
    const before = rows.rowCount;
    const out: number[] = [];
    while (this.stopUnit < 0 && !this.isCompleted() && out.length < 65536) {
      const row = rows.rowCount - 1;
      const items = rows.itemData;
      let only = -1;
      let forced = true;
      for (let i = rows.rowItemBegin(row), to = rows.rowItemEnd(row); i < to && forced; i += 2) {
        const s = items[i]!;
        for (let e = fsm.edgeStart[s]!, end = fsm.edgeStart[s + 1]!; e < end; e++) {
          const kind = fsm.edgeKind[e]!;
          if (kind === EDGE_TOKEN || kind === EDGE_EXCLUDE_TOKEN) forced = false;
          else if (kind === EDGE_BYTE) {
            if (rows.countAfter(i, e) === COUNT_REFUSED) continue; // past a counted maximum
            if (fsm.edgeLo[e] !== fsm.edgeHi[e] || (only !== -1 && only !== fsm.edgeLo[e])) forced = false;
            only = fsm.edgeLo[e]!;
          }
        }
      }
      if (!forced || only === -1 || !rows.pushByte(only)) break;
      out.push(only);
    }
    rows.popRows(before);
    return Uint8Array.from(out);
  }

  /** Number of units that can be rolled back. */
  get acceptedUnits(): number {
    return this.numUnits;
  }

  /** An independent copy sharing only the (immutable) compiled grammar. */
  fork(): GrammarMatcher {
    const copy = Object.create(GrammarMatcher.prototype) as GrammarMatcher;
    Object.assign(copy, this);
    copy.rows = this.rows.copy();
    copy.units = this.units.slice();
    copy.atomic = new Int32Array(this.atomic.length);
    copy.scratch = null;
    copy.guard = this.guard?.copy() ?? null;
    return copy;
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
    const rows = this.rows;
    const items = rows.itemData;
    const row = rows.rowCount - 1;
    let n = 0;
    for (let i = rows.rowItemBegin(row), to = rows.rowItemEnd(row); i < to; i += 2) {
      const s = items[i]!;
      if ((fsm.stateScan[s]! & SCAN_TOKEN) === 0) continue;
      for (let e = fsm.edgeStart[s]!, end = fsm.edgeStart[s + 1]!; e < end; e++) {
        const kind = fsm.edgeKind[e]!;
        if (kind !== EDGE_TOKEN && kind !== EDGE_EXCLUDE_TOKEN) continue;
        if (tokenSetHas(fsm, fsm.edgeAux[e]!, id) !== (kind === EDGE_TOKEN)) continue;
        if (kind === EDGE_EXCLUDE_TOKEN && this.compiled.tokenizer!.kind[id] !== TOKEN_NORMAL) continue;
        this.atomic = grow(this.atomic, n + 2);
        this.atomic[n++] = fsm.edgeTarget[e]!;
        this.atomic[n++] = items[i + 1]!;
      }
    }
    return n;
  }
}
