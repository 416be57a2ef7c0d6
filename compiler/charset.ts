// Code-point sets as sorted range lists, and their translation to UTF-8 byte-range
// sequences (the automata work on bytes; classes are written over code points).
import type { Ranges } from './ir.js';

export const MAX_CODE_POINT = 0x10ffff;
const SURROGATE_LO = 0xd800;
const SURROGATE_HI = 0xdfff;

/** Sorts and merges [lo, hi] pairs. */
export function normalizeRanges(pairs: readonly number[]): number[] {
  const list: [number, number][] = [];
  for (let i = 0; i + 1 < pairs.length; i += 2) list.push([pairs[i]!, pairs[i + 1]!]);
  list.sort((a, b) => a[0] - b[0]);
  const out: number[] = [];
  for (const [lo, hi] of list) {
    if (lo > hi) continue;
    const last = out.length - 1;
    if (last > 0 && lo <= out[last]! + 1) out[last] = Math.max(out[last]!, hi);
    else out.push(lo, hi);
  }
  return out;
}

export function complementRanges(ranges: Ranges): number[] {
  const out: number[] = [];
  let next = 0;
  for (let i = 0; i < ranges.length; i += 2) {
    if (ranges[i]! > next) out.push(next, ranges[i]! - 1);
    next = ranges[i + 1]! + 1;
  }
  if (next <= MAX_CODE_POINT) out.push(next, MAX_CODE_POINT);
  return out;
}

export function subtractRanges(a: Ranges, b: Ranges): number[] {
  return intersectRanges(a, complementRanges(b));
}

export function intersectRanges(a: Ranges, b: Ranges): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const lo = Math.max(a[i]!, b[j]!);
    const hi = Math.min(a[i + 1]!, b[j + 1]!);
    if (lo <= hi) out.push(lo, hi);
    if (a[i + 1]! < b[j + 1]!) i += 2;
    else j += 2;
  }
  return out;
}

/** Whether `cp` is a UTF-16 surrogate, which no UTF-8 text holds. */
export function isSurrogate(cp: number): boolean {
  return cp >= SURROGATE_LO && cp <= SURROGATE_HI;
}

/** The set less the surrogates: a class written over them matches nothing there, and an empty one is then seen as empty. */
export function encodableRanges(ranges: Ranges): number[] {
  return subtractRanges(ranges, [SURROGATE_LO, SURROGATE_HI]);
}

export function rangesContain(ranges: Ranges, cp: number): boolean {
  for (let i = 0; i < ranges.length; i += 2) if (cp >= ranges[i]! && cp <= ranges[i + 1]!) return true;
  return false;
}

export function rangesOf(text: string): number[] {
  const pairs: number[] = [];
  for (const ch of text) pairs.push(ch.codePointAt(0)!, ch.codePointAt(0)!);
  return normalizeRanges(pairs);
}

/** One byte-range path: [lo0, hi0, lo1, hi1, ...], one pair per byte. */
export type Utf8Sequence = number[];

const LIMITS = [0x7f, 0x7ff, 0xffff, MAX_CODE_POINT];

/**
 * Splits code-point ranges into UTF-8 byte-range sequences (the classic utf8-ranges split):
 * every code point in a range encodes to exactly one of the returned paths and vice versa.
 * Surrogates are skipped, since they have no UTF-8 encoding.
 */
export function utf8Sequences(ranges: Ranges): Utf8Sequence[] {
  const out: Utf8Sequence[] = [];
  for (let i = 0; i < ranges.length; i += 2) {
    let lo = ranges[i]!;
    const hi = ranges[i + 1]!;
    if (lo <= SURROGATE_HI && hi >= SURROGATE_LO) {
      if (lo < SURROGATE_LO) splitRange(lo, SURROGATE_LO - 1, out);
      lo = SURROGATE_HI + 1;
      if (lo > hi) continue;
    }
    splitRange(lo, hi, out);
  }
  return out;
}

function splitRange(lo: number, hi: number, out: Utf8Sequence[]): void {
  // Split at encoding-length boundaries first.
  for (let k = 0; k < LIMITS.length - 1; k++) {
    const limit = LIMITS[k]!;
    if (lo <= limit && hi > limit) {
      splitRange(lo, limit, out);
      splitRange(limit + 1, hi, out);
      return;
    }
  }
  if (hi <= 0x7f) {
    out.push([lo, hi]);
    return;
  }
  // Within one length: split until every continuation byte spans its full range or one value.
  const n = hi <= 0x7ff ? 2 : hi <= 0xffff ? 3 : 4;
  for (let k = 1; k < n; k++) {
    const mask = (1 << (6 * k)) - 1;
    if ((lo & ~mask) !== (hi & ~mask)) {
      if ((lo & mask) !== 0) {
        splitRange(lo, lo | mask, out);
        splitRange((lo | mask) + 1, hi, out);
        return;
      }
      if ((hi & mask) !== mask) {
        splitRange(lo, (hi & ~mask) - 1, out);
        splitRange(hi & ~mask, hi, out);
        return;
      }
    }
  }
  const a = encode(lo, n);
  const b = encode(hi, n);
  const seq: number[] = [];
  for (let k = 0; k < n; k++) seq.push(a[k]!, b[k]!);
  out.push(seq);
}

function encode(cp: number, n: number): number[] {
  if (n === 2) return [0xc0 | (cp >> 6), 0x80 | (cp & 0x3f)];
  if (n === 3) return [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f)];
  return [0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f)];
}
