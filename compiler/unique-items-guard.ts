// uniqueItems over free strings and numbers (a `Set[str]`), which no grammar can hold
// (json-schema/unique-items.ts marks such an array's rule instead): the matcher keeps the items
// of each such array as they are written, and a token that would complete an item equal to an
// earlier one of the same array is refused, and left out of masks with those after which every
// way on repeats one. Items compare as JSON Schema (and ajv) compare them: strings by their
// decoded text ("\u0061" = "a"), numbers by value (1 = 1.0 = 1e0).
//
// Outside such arrays nothing is read but the `[` that opens one, which the rows tell
// (RowEngine.startedRuleLives: an item of a marked rule began at it), so the JSON may sit in any
// output (a structural tag, tool-call arguments). Inside, the items are scalars: strings,
// escapes, numbers and literals are all there is to read. Rolling back replays the kept units
// from the start (microseconds per kilobyte), with the answer recorded at each `[`.
import type { CompiledGrammar } from './compiled-grammar.js';
import type { RowEngine } from './row-engine.js';
import { TOKEN_NORMAL, type TokenizerInfo } from './tokenizer/tokenizer-info.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const isWhitespace = (b: number): boolean => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;

// Where the reading is, inside an array whose items must differ.
const BETWEEN = 0; // between items (whitespace, commas)
const IN_STRING = 1;
const IN_ESCAPE = 2; // the byte after a backslash (a \u escape's hex digits read as plain bytes)
const IN_SCALAR = 3; // a number, true, false or null

/** An open array whose items must differ: each item so far, by its key (`seen`) and as written (`written`, for the way-out search). */
interface DistinctItems {
  seen: Set<string>;
  written: string[];
}

/** The reading: small, copied for every token a mask probes. */
interface Reading {
  /** The array whose items must differ that is open, or null: outside one nothing is read but a `[` the rows say opens one. */
  array: DistinctItems | null;
  mode: number;
  /** An item is being read: its bytes are kept, at `itemStart` to `itemEnd` of the guard's buffer. */
  inItem: boolean;
  itemStart: number;
  itemEnd: number;
  /** After a comma: an item must come. */
  expectsItem: boolean;
}

/** A unit the matcher accepted: its bytes, and for each `[` read outside an array, whether it opened one whose items must differ. */
interface Unit {
  bytes: Uint8Array;
  opens: boolean[];
}

/**
 * Per vocabulary: bitsets (mask layout) of the normal tokens holding a `"`, a `[`, a comma, and
 * of those made of scalar bytes alone (`12`, `true`, `e`); and the normal tokens by their bytes (latin1).
 */
interface VocabularyIndex {
  quote: Uint32Array;
  open: Uint32Array;
  comma: Uint32Array;
  scalarOnly: Uint32Array;
  byBytes: Map<string, number[]>;
}
const indexByVocabulary = new WeakMap<TokenizerInfo, VocabularyIndex>();

function indexOf(info: TokenizerInfo): VocabularyIndex {
  let index = indexByVocabulary.get(info);
  if (!index) {
    const words = info.normalMask.length;
    index = { quote: new Uint32Array(words), open: new Uint32Array(words), comma: new Uint32Array(words), scalarOnly: new Uint32Array(words), byBytes: new Map() };
    for (let id = 0; id < info.numTokens; id++) {
      if (info.kind[id] !== TOKEN_NORMAL) continue;
      let scalarOnly = true;
      for (let i = info.offsets[id]!, to = info.offsets[id + 1]!; i < to; i++) {
        const b = info.bytes[i]!;
        if (b === QUOTE) index.quote[id >>> 5]! |= 1 << (id & 31);
        else if (b === OPEN_ARRAY) index.open[id >>> 5]! |= 1 << (id & 31);
        else if (b === COMMA) index.comma[id >>> 5]! |= 1 << (id & 31);
        scalarOnly &&= isScalarByte(b);
      }
      if (scalarOnly) index.scalarOnly[id >>> 5]! |= 1 << (id & 31);
      const key = latin1(info.tokenBytes(id));
      const same = index.byBytes.get(key);
      if (same) same.push(id);
      else index.byBytes.set(key, [id]);
    }
    indexByVocabulary.set(info, index);
  }
  return index;
}

function latin1(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i++) out += String.fromCharCode(bytes[i]!);
  return out;
}

/** How many rows the way-out search may push for one token before it takes the way as open. */
const WAY_OUT_BUDGET = 4096;

const isScalarByte = (b: number): boolean => (b >= 0x30 && b <= 0x39) || (b >= 0x61 && b <= 0x7a) || b === 0x2b || b === 0x2d || b === 0x2e || b === 0x45;

const utf8 = new TextDecoder();

export class UniqueItemsGuard {
  /** Per rule of the automaton: 1 where the rule is an array whose items must differ. */
  readonly rules: Uint8Array;
  private reading: Reading = newReading();
  private units: Unit[] = [];
  /** The bytes of items being read: the committed item's from 0, a probe's after it. */
  private buffer = new Uint8Array(256);
  /** A probe's items, kept aside: the sets of the arrays it reads in are the committed reading's. */
  private probeItems: { array: DistinctItems; key: string; written: string }[] = [];
  private budget = 0;

  private constructor(rules: Uint8Array) {
    this.rules = rules;
  }

  /** The guard a grammar needs, or null when no rule of it is marked `uniqueItems`. */
  static forGrammar(compiled: CompiledGrammar): UniqueItemsGuard | null {
    if (!compiled.ir.rules.some((r) => r.uniqueItems)) return null;
    const rules = new Uint8Array(compiled.fsm.ruleStart.length);
    compiled.ir.rules.forEach((r, i) => (rules[i] = r.uniqueItems ? 1 : 0));
    return new UniqueItemsGuard(rules);
  }

  reset(): void {
    this.reading = newReading();
    this.units = [];
  }

  /**
   * Reads `bytes` as one unit, which the rows (already advanced past them, a row per byte from
   * `firstRow`) accepted. False, and nothing read, when they complete an item equal to an
   * earlier one.
   */
  accept(bytes: Uint8Array, rows: RowEngine, firstRow: number): boolean {
    const opens: boolean[] = [];
    const opensAt = (i: number): boolean => {
      const marked = rows.startedRuleLives(firstRow + i, this.rules);
      opens.push(marked);
      return marked;
    };
    if (!this.probe(copyOf(this.reading), bytes, opensAt)) return false;
    let next = 0;
    this.read(this.reading, bytes, () => opens[next++]!, true);
    this.units.push({ bytes: bytes.slice(), opens }); // a caller's bytes may change later
    return true;
  }

  /** A unit of no bytes (a stop token, a token matched by a token edge alone). */
  acceptNothing(): void {
    this.units.push({ bytes: new Uint8Array(0), opens: [] });
  }

  /** Undoes the last `n` units (the matcher has checked `n`). */
  rollback(n: number): void {
    const kept = this.units.slice(0, this.units.length - n);
    this.reset();
    for (const unit of kept) {
      let next = 0;
      this.read(this.reading, unit.bytes, () => unit.opens[next++]!, true);
    }
    this.units = kept;
  }

  copy(): UniqueItemsGuard {
    const copy = new UniqueItemsGuard(this.rules);
    copy.units = this.units.slice();
    copy.rollback(0);
    return copy;
  }

  /**
   * Clears the bit of every token the mask allows that would complete an item equal to an
   * earlier one, or leave only such items as ways on. Only tokens that can are read: inside an
   * array whose items must differ, one holding a `"` (in a string) or a byte no number or
   * literal holds (between items and in a number: scalar bytes alone only open or extend one);
   * outside, one holding a `[` and a comma, which could open such an array and write two items
   * in it (taken as opening one: the rows of a token not taken are unknown).
   */
  filterMask(mask: Uint32Array, info: TokenizerInfo, rows: RowEngine): void {
    const reading = this.reading;
    const inString = reading.mode === IN_STRING || reading.mode === IN_ESCAPE;
    const index = indexOf(info);
    const words = Math.min(mask.length, index.quote.length);
    for (let w = 0; w < words; w++) {
      let candidates = mask[w]!;
      if (!reading.array) candidates &= index.open[w]! & index.comma[w]!;
      else if (inString) candidates &= index.quote[w]!;
      else candidates &= ~index.scalarOnly[w]!;
      while (candidates !== 0) {
        const bit = candidates & -candidates;
        candidates ^= bit;
        const id = (w << 5) + 31 - Math.clz32(bit);
        if (info.kind[id] === TOKEN_NORMAL && !this.probe(copyOf(reading), info.tokenBytes(id), () => true)) mask[w]! &= ~bit;
      }
    }
    if (reading.array) this.closeDeadEnds(mask, info, rows, reading.array);
  }

  /**
   * Clears the bit of every token after which the item it leaves open can only end as one
   * written before (`"0` when 0 is taken and nothing longer is allowed; `"a` under the pattern
   * ^[ab]$ once "a" and "b" are in), or after whose comma every item allowed is written: the
   * output would have no way on. Such a token leaves the item's text a prefix of an earlier
   * item's (the pieces of the earlier items from where the reading is), or holds a comma.
   */
  private closeDeadEnds(mask: Uint32Array, info: TokenizerInfo, rows: RowEngine, array: DistinctItems): void {
    const reading = this.reading;
    const { byBytes, comma, quote } = indexOf(info);
    const pieces = new Set<string>();
    if (reading.inItem) {
      const sofar = this.itemText(reading);
      for (const earlier of array.written) if (earlier.startsWith(sofar)) for (let j = sofar.length + 1; j <= earlier.length; j++) pieces.add(earlier.slice(sofar.length, j));
    } else {
      // A token that opens an item (after a space, a quote) and leaves it open.
      for (const earlier of array.written) {
        for (const lead of ['"', ' "', '', ' ']) for (let j = lead.endsWith('"') ? 0 : 1; j <= earlier.length; j++) pieces.add(lead + earlier.slice(0, j));
      }
    }
    const ids: number[] = [];
    for (const piece of pieces) ids.push(...(byBytes.get(piece) ?? []));
    // In a string, a comma counts only in a token that also closes it.
    const inString = reading.mode === IN_STRING || reading.mode === IN_ESCAPE;
    for (let w = 0; w < mask.length && w < comma.length; w++) {
      for (let bits = mask[w]! & comma[w]! & (inString ? quote[w]! : ~0); bits !== 0; bits &= bits - 1) ids.push((w << 5) + 31 - Math.clz32(bits & -bits));
    }
    for (const id of ids) {
      if ((mask[id >>> 5]! & (1 << (id & 31))) === 0) continue;
      const bytes = info.tokenBytes(id);
      const after = copyOf(reading);
      if (!this.probe(after, bytes, () => true) || !this.mayLeadNowhere(after)) continue;
      const before = rows.rowCount;
      let pushed = true;
      for (let i = 0; i < bytes.length && pushed; i++) pushed = rows.pushByte(bytes[i]!);
      this.budget = WAY_OUT_BUDGET;
      if (pushed && !this.canEndNew(after, rows)) mask[id >>> 5]! &= ~(1 << (id & 31));
      rows.popRows(before);
    }
  }

  /**
   * Whether the item open in `r` (or, after a comma, the item to come; the rows at the same
   * point) can still end as an item not written before: at once where its text is no earlier
   * item's prefix, else by a search over the bytes the grammar allows next, which only goes on
   * along earlier items' texts (whitespace before an item changes nothing: it is tried only
   * where nothing else may come).
   */
  private canEndNew(r: Reading, rows: RowEngine): boolean {
    if (!this.mayLeadNowhere(r)) return true;
    const scannable = rows.scannableBytes(rows.rowCount - 1, new Uint8Array(256));
    let onlySpace = !r.inItem;
    for (let b = 0; b < 256 && onlySpace; b++) if (scannable[b] === 1 && !isWhitespace(b)) onlySpace = false;
    for (let b = 0; b < 256; b++) {
      if (scannable[b] === 0 || (!r.inItem && isWhitespace(b) !== onlySpace)) continue;
      if (--this.budget < 0) return true; // too long a search to settle: taken as open
      const before = rows.rowCount;
      if (!rows.pushByte(b)) continue;
      const next = copyOf(r);
      const found = this.read(next, Uint8Array.of(b), () => true, false) && this.canEndNew(next, rows);
      rows.popRows(before);
      if (found) return true;
    }
    return false;
  }

  /** An item is to come, or one is open whose text begins an earlier item's: the way on needs a search. */
  private mayLeadNowhere(r: Reading): boolean {
    if (!r.array) return false;
    if (!r.inItem) return r.expectsItem;
    const sofar = this.itemText(r);
    const array = r.array;
    return array.written.some((earlier) => earlier.startsWith(sofar)) || this.probeItems.some((p) => p.array === array && p.written.startsWith(sofar));
  }

  private itemText(r: Reading): string {
    return latin1(this.buffer.subarray(r.itemStart, r.itemEnd));
  }

  /** `read` for a token not taken: its items are kept aside. */
  private probe(r: Reading, bytes: Uint8Array, opens: (i: number) => boolean): boolean {
    this.probeItems.length = 0;
    return this.read(r, bytes, opens, false);
  }

  /**
   * Reads `bytes` into `r`; `opens(i)`: whether the `[` at byte `i` opens an array whose items
   * must differ. False at the first item equal to an earlier one. `commit`: the items join
   * their arrays' sets (else they are kept aside, for this read only).
   */
  private read(r: Reading, bytes: Uint8Array, opens: (i: number) => boolean, commit: boolean): boolean {
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i]!;
      if (!r.array) {
        if (b === OPEN_ARRAY && opens(i)) Object.assign(r, newReading(), { array: { seen: new Set(), written: [] } });
        continue;
      }
      if (r.mode === IN_SCALAR) {
        if (isScalarByte(b)) {
          this.keep(r, b);
          continue;
        }
        // The byte after a scalar ends it, and is read between items.
        r.mode = BETWEEN;
        if (!this.complete(r, 'n', commit)) return false;
      }
      switch (r.mode) {
        case IN_STRING:
          if (b === QUOTE) {
            r.mode = BETWEEN;
            if (!this.complete(r, 's', commit)) return false;
          } else {
            if (b === BACKSLASH) r.mode = IN_ESCAPE;
            this.keep(r, b);
          }
          continue;
        case IN_ESCAPE:
          r.mode = IN_STRING;
          this.keep(r, b);
          continue;
        default:
          if (b === QUOTE || isScalarByte(b)) {
            r.mode = b === QUOTE ? IN_STRING : IN_SCALAR;
            r.inItem = true;
            r.expectsItem = false;
            // A probe's item goes after the committed one, which later probes still need.
            r.itemStart = r.itemEnd = commit || !this.reading.inItem ? 0 : this.reading.itemEnd;
            if (b !== QUOTE) this.keep(r, b);
          } else if (b === COMMA) {
            r.expectsItem = true;
          } else if (!isWhitespace(b)) {
            // `]` closes the array; anything else (`{`, `[`) shows a probe's guess wrong: no such array.
            r.array = null;
          }
      }
    }
    return true;
  }

  private keep(r: Reading, byte: number): void {
    if (r.itemEnd === this.buffer.length) {
      const bigger = new Uint8Array(this.buffer.length * 2);
      bigger.set(this.buffer);
      this.buffer = bigger;
    }
    this.buffer[r.itemEnd++] = byte;
  }

  /** The item just read (`s`: a string's content, `n`: a number or literal): false if its array has it already. */
  private complete(r: Reading, kind: 's' | 'n', commit: boolean): boolean {
    r.inItem = false;
    const array = r.array!;
    const raw = this.buffer.subarray(r.itemStart, r.itemEnd);
    const text = utf8.decode(raw);
    const key = kind === 's' ? 's' + decodeJsonString(text) : literalKey(text);
    if (array.seen.has(key)) return false;
    if (commit) {
      array.seen.add(key);
      array.written.push(latin1(raw));
      return true;
    }
    if (this.probeItems.some((p) => p.array === array && p.key === key)) return false;
    this.probeItems.push({ array, key, written: latin1(raw) });
    return true;
  }
}

function newReading(): Reading {
  return { array: null, mode: BETWEEN, inItem: false, itemStart: 0, itemEnd: 0, expectsItem: false };
}

function copyOf(r: Reading): Reading {
  return { ...r };
}

/** A JSON string's content (between its quotes) as the text it stands for. */
function decodeJsonString(content: string): string {
  if (!content.includes('\\')) return content;
  try {
    return JSON.parse(`"${content}"`) as string;
  } catch {
    return content; // not reached: the grammar let only valid escapes through
  }
}

/** Equal numbers (1, 1.0, 1e0) share a key; true, false and null are their own. */
function literalKey(text: string): string {
  if (text === 'true' || text === 'false' || text === 'null') return 'l' + text;
  return 'n' + String(Number(text));
}
