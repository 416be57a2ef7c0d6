// Parses byte strings one after another in byte order, each reusing the parse of the prefix
// it shares with the previous one: the token walks of the mask compiler (classify-state.ts,
// suffix-index.ts) and of the per-token mask (fill-mask.ts). A string that extends a prefix
// which already died dies the same way, unparsed. The parse itself is a `PrefixParser`: Earley
// rows (`RowParser`) or a flat DFA's states (classify-state.ts).
import type { RowEngine } from '../row-engine.js';

/** `PrefixParser.push` results: the byte was taken (bit PUSH_OK), and the rule can end after it
 * (PUSH_ENDS too); it was not (PUSH_DEAD, the parse unchanged); or the parser cannot take it
 * itself (PUSH_HAND_OFF: a flat DFA at a recursive reference). */
export const PUSH_DEAD = 0;
export const PUSH_OK = 1;
export const PUSH_ENDS = 2;
export const PUSH_HAND_OFF = 4;

export interface PrefixParser {
  /** Keeps the parse of the first `depth` bytes. */
  truncate(depth: number): void;
  /** Parses one more byte: PUSH_OK (| PUSH_ENDS), PUSH_DEAD or PUSH_HAND_OFF. */
  push(byte: number): number;
}

/** A parser over a RowEngine's rows above `base` (row `base` holds the empty prefix); with
 * `reportEnds` false, the rule's ends are not reported (nothing may follow them). */
export class RowParser implements PrefixParser {
  constructor(
    readonly rows: RowEngine,
    private readonly base: number,
    private readonly reportEnds = true,
  ) {}

  truncate(depth: number): void {
    this.rows.popRows(this.base + depth + 1);
  }

  push(byte: number): number {
    const rows = this.rows;
    if (!rows.pushByte(byte)) return PUSH_DEAD;
    return this.reportEnds && rows.rowEnds(rows.rowCount - 1) ? PUSH_OK | PUSH_ENDS : PUSH_OK;
  }
}

export class PrefixWalker {
  /** Bytes of the last string parsed (its length when it was parsed whole). */
  reached = 0;
  /** The last string died at byte `reached`. */
  failed = false;
  /** The parser handed the last string off at byte `reached`. */
  handedOff = false;
  /** endsAt[d]: the rule can end after d bytes of the last string; endsBy[d]: after some d' in 1..d. */
  endsAt = new Uint8Array(256);
  endsBy = new Uint8Array(256);
  private last = -1;

  constructor(
    private readonly parser: PrefixParser,
    private readonly bytes: Uint8Array,
  ) {}

  /** Parses bytes[start, start + len): true when all of them were taken. */
  walk(start: number, len: number): boolean {
    const bytes = this.bytes;
    let common = 0;
    if (this.last >= 0) {
      const limit = Math.min(len, this.reached + 1);
      while (common < limit && bytes[start + common] === bytes[this.last + common]) common++;
    }
    this.last = start;
    if (this.failed && common > this.reached) return false; // dies where the previous one did
    if (len >= this.endsBy.length) this.growTo(len);
    const { parser, endsAt, endsBy } = this;
    let k = Math.min(common, this.reached);
    parser.truncate(k);
    let result = PUSH_OK;
    for (; k < len; k++) {
      result = parser.push(bytes[start + k]!);
      if ((result & PUSH_OK) === 0) break;
      const ends = result >> 1;
      endsAt[k + 1] = ends;
      endsBy[k + 1] = endsBy[k]! | ends;
    }
    this.reached = k;
    this.failed = result === PUSH_DEAD;
    this.handedOff = result === PUSH_HAND_OFF;
    return (result & PUSH_OK) !== 0;
  }

  private growTo(len: number): void {
    const at = new Uint8Array(len * 2);
    at.set(this.endsAt);
    this.endsAt = at;
    const by = new Uint8Array(len * 2);
    by.set(this.endsBy);
    this.endsBy = by;
  }
}
