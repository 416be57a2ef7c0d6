// uniqueItems over free strings and numbers (a `Set[str]`), which no grammar can hold
// (json-schema/unique-items.ts marks such an array's rule instead): the matcher reads its
// output as JSON beside its Earley rows and refuses a token that would complete an item equal to
// an earlier item of the same array. Items compare as JSON Schema (and ajv) compare them:
// strings by their decoded text ("\u0061" = "a"), numbers by value (1 = 1.0 = 1e0).
//
// The reading is lexical (strings, escapes, scalars, brackets): the grammar has already checked
// the output is JSON, so the only question left is whether an array that opens is a marked one,
// which the rows answer at its `[` (RowEngine.startedRuleLives). Rolling back replays the kept
// units from the start (a few microseconds per kilobyte), with the answers recorded at each `[`.
import type { CompiledGrammar } from './compiled-grammar.js';
import type { RowEngine } from './row-engine.js';
import { TOKEN_NORMAL, type TokenizerInfo } from './tokenizer/tokenizer-info.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const COMMA = 0x2c;
const isWhitespace = (b: number): boolean => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;

// Where the reading is.
const BETWEEN = 0; // between values (whitespace, separators, brackets)
const IN_STRING = 1;
const IN_ESCAPE = 2; // the byte after a backslash (a \u escape's hex digits read as plain bytes)
const IN_SCALAR = 3; // a number, true, false or null

/** A container being read; `seen` (an array whose items must differ): each item so far, by its key, and `written`: as written (for the way-out search). */
interface Frame {
  seen: Set<string> | null;
  written: string[];
}

/** The lexical state: small, copied for every token a mask probes. */
interface Reading {
  mode: number;
  stack: Frame[];
  /** The item being read belongs to an array whose items must differ: its bytes are kept. */
  collecting: boolean;
  itemStart: number;
  itemEnd: number;
  /** Between items of such an array, after a comma: an item must come. */
  expectsItem: boolean;
}

/** A unit the matcher accepted: its bytes, and for each `[` among them that opened an array, whether the array's items must differ. */
interface Unit {
  bytes: Uint8Array;
  opens: boolean[];
}

/** Per vocabulary: bitsets (mask layout) of the normal tokens holding a `"` and of those holding a `[`, and the normal tokens by their bytes (latin1). */
interface VocabularyIndex {
  quote: Uint32Array;
  open: Uint32Array;
  comma: Uint32Array;
  byBytes: Map<string, number[]>;
}
const indexByVocabulary = new WeakMap<TokenizerInfo, VocabularyIndex>();

function indexOf(info: TokenizerInfo): VocabularyIndex {
  let index = indexByVocabulary.get(info);
  if (!index) {
    const words = info.normalMask.length;
    index = { quote: new Uint32Array(words), open: new Uint32Array(words), comma: new Uint32Array(words), byBytes: new Map() };
    for (let id = 0; id < info.numTokens; id++) {
      if (info.kind[id] !== TOKEN_NORMAL) continue;
      for (let i = info.offsets[id]!, to = info.offsets[id + 1]!; i < to; i++) {
        const b = info.bytes[i]!;
        if (b === QUOTE) index.quote[id >>> 5]! |= 1 << (id & 31);
        else if (b === OPEN_ARRAY) index.open[id >>> 5]! |= 1 << (id & 31);
        else if (b === COMMA) index.comma[id >>> 5]! |= 1 << (id & 31);
      }
      const key = latin1(info.bytes.subarray(info.offsets[id]!, info.offsets[id + 1]!));
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
  /** A probe's items completed in arrays it did not open (those arrays' sets are the committed state's). */
  private probeItems: { frame: Frame; key: string }[] = [];
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
    this.probeItems.length = 0;
    if (!this.read(copyOf(this.reading), bytes, opensAt, false)) return false;
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
   * earlier one. Only tokens that can complete an item are read: inside an array whose items
   * must differ, a token holding a `"` (in a string) or any token (between items); elsewhere
   * only one holding a `[` (it could open such an array and write two items), counting every
   * array it opens as one whose items must differ (the rows of a token not taken are unknown).
   */
  filterMask(mask: Uint32Array, info: TokenizerInfo, rows: RowEngine): void {
    const reading = this.reading;
    const top = reading.stack[reading.stack.length - 1];
    const inItems = top?.seen != null;
    const inString = reading.mode === IN_STRING || reading.mode === IN_ESCAPE;
    const bits = indexOf(info);
    const words = Math.min(mask.length, bits.quote.length);
    for (let w = 0; w < words; w++) {
      let candidates = mask[w]!;
      if (inString) candidates &= inItems ? bits.quote[w]! : bits.quote[w]! & bits.open[w]!;
      else if (!inItems) candidates &= bits.open[w]!;
      while (candidates !== 0) {
        const bit = candidates & -candidates;
        candidates ^= bit;
        const id = (w << 5) + 31 - Math.clz32(bit);
        if (info.kind[id] !== TOKEN_NORMAL) continue;
        const bytes = info.bytes.subarray(info.offsets[id]!, info.offsets[id + 1]!);
        this.probeItems.length = 0;
        if (!this.read(copyOf(reading), bytes, () => true, false)) mask[w]! &= ~bit;
      }
    }
    if (inItems) this.closeDeadEnds(mask, info, rows, top);
  }

  /**
   * Clears the bit of every token after which the item it leaves open can only end as one
   * written before (`"0` when 0 is taken and nothing longer is allowed; `"a` under the pattern
   * ^[ab]$ once "a" and "b" are in): the output would have no way on. Such a token leaves
   * the item's text a prefix of an earlier item's, so only those tokens are looked at: the
   * pieces of the earlier items from where the reading is.
   */
  private closeDeadEnds(mask: Uint32Array, info: TokenizerInfo, rows: RowEngine, frame: Frame): void {
    const reading = this.reading;
    const { byBytes } = indexOf(info);
    const pieces = new Set<string>();
    if (reading.collecting) {
      const sofar = latin1(this.buffer.subarray(reading.itemStart, reading.itemEnd));
      for (const earlier of frame.written) if (earlier.startsWith(sofar)) for (let j = sofar.length + 1; j <= earlier.length; j++) pieces.add(earlier.slice(sofar.length, j));
    } else if (reading.mode === BETWEEN) {
      // A token that opens an item (after optional space) and leaves it open.
      for (const earlier of frame.written) {
        for (const lead of ['"', ' "', '', ' ']) for (let j = lead.endsWith('"') ? 0 : 1; j <= earlier.length; j++) pieces.add(lead + earlier.slice(0, j));
      }
    }
    const ids: number[] = [];
    for (const piece of pieces) ids.push(...(byBytes.get(piece) ?? []));
    // A token with a comma may ask for one more item where every item allowed is written (in
    // a string, only one that also closes it).
    const { comma, quote } = indexOf(info);
    const inString = reading.mode === IN_STRING || reading.mode === IN_ESCAPE;
    for (let w = 0; w < mask.length && w < comma.length; w++) {
      for (let bits = mask[w]! & comma[w]! & (inString ? quote[w]! : ~0); bits !== 0; bits &= bits - 1) ids.push((w << 5) + 31 - Math.clz32(bits & -bits));
    }
    for (const id of ids) {
      if ((mask[id >>> 5]! & (1 << (id & 31))) === 0) continue;
      const bytes = info.bytes.subarray(info.offsets[id]!, info.offsets[id + 1]!);
      const after = copyOf(reading);
      this.probeItems.length = 0;
      if (!this.read(after, bytes, () => true, false) || !this.mayLeadNowhere(after)) continue;
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
    let onlySpace = !r.collecting;
    for (let b = 0; b < 256 && onlySpace; b++) if (scannable[b] === 1 && !isWhitespace(b)) onlySpace = false;
    for (let b = 0; b < 256; b++) {
      if (scannable[b] === 0 || (!r.collecting && isWhitespace(b) !== onlySpace)) continue;
      if (--this.budget < 0) return true; // too long a search to settle: taken as open
      const before = rows.rowCount;
      if (!rows.pushByte(b)) continue;
      const next = copyOf(r);
      const fresh = this.read(next, Uint8Array.of(b), () => true, false);
      const found = fresh && (!next.collecting || this.canEndNew(next, rows));
      rows.popRows(before);
      if (found) return true;
    }
    return false;
  }

  /** An item is to come, or one is open whose text begins an earlier item's: the way on needs a search. */
  private mayLeadNowhere(r: Reading): boolean {
    if (!r.collecting) return r.expectsItem;
    const frame = r.stack[r.stack.length - 1]!;
    const sofar = latin1(this.buffer.subarray(r.itemStart, r.itemEnd));
    return frame.written.some((earlier) => earlier.startsWith(sofar));
  }

  /**
   * Reads `bytes` into `r`; `opens(i)`: whether the array opened by byte `i` is one whose items
   * must differ. False at the first item equal to an earlier one. `commit`: the items join their
   * arrays' sets (else they are kept aside, for this read only).
   */
  private read(r: Reading, bytes: Uint8Array, opens: (i: number) => boolean, commit: boolean): boolean {
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i]!;
      if (r.mode === IN_SCALAR) {
        if (isScalarByte(b)) {
          if (r.collecting) this.keep(r, b);
          continue;
        }
        // The byte after a scalar ends it, and is read between values.
        r.mode = BETWEEN;
        if (r.collecting && !this.complete(r, 'n', commit)) return false;
      }
      switch (r.mode) {
        case IN_STRING:
          if (b === QUOTE) {
            r.mode = BETWEEN;
            if (r.collecting && !this.complete(r, 's', commit)) return false;
          } else {
            if (b === BACKSLASH) r.mode = IN_ESCAPE;
            if (r.collecting) this.keep(r, b);
          }
          continue;
        case IN_ESCAPE:
          r.mode = IN_STRING;
          if (r.collecting) this.keep(r, b);
          continue;
        case BETWEEN:
          if (b === QUOTE || isScalarByte(b)) {
            r.expectsItem = false;
            r.mode = b === QUOTE ? IN_STRING : IN_SCALAR;
            r.collecting = r.stack[r.stack.length - 1]?.seen != null;
            // A probe's item goes after the committed one, which later probes still need.
            r.itemStart = r.itemEnd = commit || !this.reading.collecting ? 0 : this.reading.itemEnd;
            if (r.collecting && b !== QUOTE) this.keep(r, b);
          } else if (b === OPEN_ARRAY) {
            r.stack.push({ seen: opens(i) ? new Set() : null, written: [] });
          } else if (b === OPEN_OBJECT) {
            r.stack.push({ seen: null, written: [] });
          } else if (b === CLOSE_ARRAY || b === CLOSE_OBJECT) {
            r.stack.pop();
            r.expectsItem = false;
          } else if (b === COMMA) {
            r.expectsItem = r.stack[r.stack.length - 1]?.seen != null;
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
    r.collecting = false;
    const frame = r.stack[r.stack.length - 1]!;
    const raw = this.buffer.subarray(r.itemStart, r.itemEnd);
    const text = utf8.decode(raw);
    const key = kind === 's' ? 's' + decodeJsonString(text) : literalKey(text);
    if (frame.seen!.has(key)) return false;
    if (commit) {
      frame.seen!.add(key);
      frame.written.push(latin1(raw));
      return true;
    }
    if (this.probeItems.some((p) => p.frame === frame && p.key === key)) return false;
    this.probeItems.push({ frame, key });
    return true;
  }
}

function newReading(): Reading {
  return { mode: BETWEEN, stack: [], collecting: false, itemStart: 0, itemEnd: 0, expectsItem: false };
}

function copyOf(r: Reading): Reading {
  return { ...r, stack: r.stack.slice() };
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
