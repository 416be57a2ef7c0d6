// How characters are written inside JSON strings. Unconstrained strings accept every escape.
// Where the decoded characters matter (pattern, format, property names), each character has
// one spelling, as JSON.stringify writes it: raw when JSON allows, else \" \\ \b \f \n \r \t
// or \u00xx; this keeps key exclusion and pattern matching exact.
import { intersectRanges, MAX_CODE_POINT, normalizeRanges, rangesContain, subtractRanges } from '../charset.js';
import { alt, cls, type Expr, lit, NOTHING, rep, seq, star } from '../ir.js';
import type { Ranges } from '../ir.js';

export const RAW_JSON: Ranges = [0x20, 0x21, 0x23, 0x5b, 0x5d, MAX_CODE_POINT];
const SHORT: Record<number, string> = { 0x22: '\\"', 0x5c: '\\\\', 8: '\\b', 12: '\\f', 10: '\\n', 13: '\\r', 9: '\\t' };

export function canonicalSpelling(cp: number): string {
  if (rangesContain(RAW_JSON, cp)) return String.fromCodePoint(cp);
  return SHORT[cp] ?? '\\u' + cp.toString(16).padStart(4, '0');
}

/** One character of the set, in its canonical JSON spelling. */
export function jsonChars(ranges: Ranges): Expr {
  const parts: Expr[] = [];
  const raw = intersectRanges(ranges, RAW_JSON);
  if (raw.length > 0) parts.push(cls(raw));
  const escaped = subtractRanges(intersectRanges(ranges, [0, 0x5c]), RAW_JSON);
  for (let i = 0; i < escaped.length; i += 2) {
    for (let c = escaped[i]!; c <= escaped[i + 1]!; c++) parts.push(lit(canonicalSpelling(c)));
  }
  return parts.length === 0 ? NOTHING : alt(...parts);
}

const HEX: Ranges = [0x30, 0x39, 0x41, 0x46, 0x61, 0x66];
const hex = cls(HEX);
const hexNotD: Expr = cls(normalizeRanges([0x30, 0x39, 0x41, 0x43, 0x45, 0x46, 0x61, 0x63, 0x65, 0x66]));
const D: Expr = cls([0x44, 0x44, 0x64, 0x64]);
const highSurrogate = seq(D, cls([0x38, 0x39, 0x41, 0x42, 0x61, 0x62]), hex, hex);
const lowSurrogate = seq(D, cls([0x43, 0x46, 0x63, 0x66]), hex, hex);

/**
 * One decoded character in any JSON spelling, for length counting: a surrogate pair written
 * as two \u escapes is one character (as JSON Schema counts), so a lone high surrogate escape
 * is not accepted (it would make the count ambiguous).
 */
export const JSON_CHAR_UNIT: Expr = alt(
  cls(RAW_JSON),
  seq(lit('\\'), cls([0x22, 0x22, 0x2f, 0x2f, 0x5c, 0x5c, 0x62, 0x62, 0x66, 0x66, 0x6e, 0x6e, 0x72, 0x72, 0x74, 0x74])),
  seq(lit('\\u'), alt(seq(hexNotD, hex, hex, hex), seq(D, cls([0x30, 0x37]), hex, hex), lowSurrogate, seq(highSurrogate, lit('\\u'), lowSurrogate))),
);

/** The inside of an unconstrained JSON string (every escape, surrogates unchecked). */
export const JSON_STRING_BODY: Expr = star(
  alt(cls(RAW_JSON), seq(lit('\\'), alt(cls([0x22, 0x22, 0x2f, 0x2f, 0x5c, 0x5c, 0x62, 0x62, 0x66, 0x66, 0x6e, 0x6e, 0x72, 0x72, 0x74, 0x74]), seq(lit('u'), rep(hex, 4, 4))))),
);

const ANY: Ranges = [0, MAX_CODE_POINT];

/** String contents (canonical spelling) equal to none of `names`. */
export function contentExcluding(names: string[]): Expr {
  const build = (group: number[][]): Expr => {
    if (group.length === 0) return star(jsonChars(ANY));
    const parts: Expr[] = [];
    if (!group.some((n) => n.length === 0)) parts.push(lit(''));
    const byFirst = new Map<number, number[][]>();
    for (const n of group) if (n.length > 0) byFirst.set(n[0]!, [...(byFirst.get(n[0]!) ?? []), n.slice(1)]);
    for (const [c, rest] of byFirst) parts.push(seq(lit(canonicalSpelling(c)), build(rest)));
    const firsts = normalizeRanges([...byFirst.keys()].flatMap((c) => [c, c]));
    parts.push(seq(jsonChars(subtractRanges(ANY, firsts)), star(jsonChars(ANY))));
    return alt(...parts);
  };
  return build(names.map((n) => [...n].map((ch) => ch.codePointAt(0)!)));
}
