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

/** Names longer than this leave the trie through shared rules, not an automaton each. */
const INLINE_LEAVE_DEPTH = 32;

/** String contents (canonical spelling) equal to none of `names`. `rule(body)` makes a rule:
 * for long names, leaving the trie (a character no name has there, then anything) is one
 * rule per distinct set of such characters, referenced at each character, since its
 * automaton (every Unicode character and every escape) would otherwise be built thousands of
 * times over. */
export function contentExcluding(names: string[], rule: (body: Expr) => Expr): Expr {
  if (names.length === 0) return star(jsonChars(ANY));
  const rest = star(jsonChars(ANY));
  const shared = names.some((name) => name.length > INLINE_LEAVE_DEPTH);
  const leaves = new Map<string, Expr>();
  const leave = (others: Ranges): Expr => {
    if (!shared) return seq(jsonCharsSharing(others), rest);
    const key = others.join(',');
    let ref = leaves.get(key);
    if (!ref) {
      ref = rule(seq(jsonCharsSharing(others), rest));
      leaves.set(key, ref);
    }
    return ref;
  };
  return excludingTrie(
    names.map((n) => [...n].map((ch) => ch.codePointAt(0)!)),
    () => ANY,
    (c) => lit(canonicalSpelling(c)),
    leave,
  );
}

const ESCAPED: Ranges = subtractRanges([0, 0x5c], RAW_JSON);
let allEscaped: Expr | null = null;

/** jsonChars, with the escapes of every escaped character as one shared expression when they
 * are all in the set (the trie of a long name needs them at each of its characters). */
function jsonCharsSharing(ranges: Ranges): Expr {
  const escaped = subtractRanges(intersectRanges(ranges, [0, 0x5c]), RAW_JSON);
  if (escaped.length !== ESCAPED.length || escaped.some((x, i) => x !== ESCAPED[i])) return jsonChars(ranges);
  allEscaped ??= jsonChars(ESCAPED);
  const raw = intersectRanges(ranges, RAW_JSON);
  return raw.length > 0 ? alt(cls(raw), allEscaped) : allEscaped;
}

interface TrieNode {
  next: Map<number, TrieNode>;
  /** A name ends here. */
  end: boolean;
  expr: Expr | null;
}

/**
 * Words over code points equal to none of `words`, from a trie of them: at each node, end
 * (unless a word ends there), go on along a word, or leave the trie with `leave(others)`.
 * Built bottom-up without recursion, since a name can be thousands of characters long.
 * `allowed(depth)` is the alphabet at that position; `char(c)` writes one code point; the
 * empty word is allowed unless `nonEmpty`.
 */
export function excludingTrie(words: number[][], allowed: (depth: number) => Ranges, char: (c: number) => Expr, leave: (others: Ranges) => Expr, nonEmpty = false): Expr {
  const root: TrieNode = { next: new Map(), end: false, expr: null };
  for (const word of words) {
    let node = root;
    for (const c of word) {
      let child = node.next.get(c);
      if (!child) {
        child = { next: new Map(), end: false, expr: null };
        node.next.set(c, child);
      }
      node = child;
    }
    node.end = true;
  }
  const order: [TrieNode, number][] = [[root, 0]];
  for (let i = 0; i < order.length; i++) for (const child of order[i]![0].next.values()) order.push([child, order[i]![1] + 1]);
  for (let i = order.length - 1; i >= 0; i--) {
    const [node, depth] = order[i]!;
    const parts: Expr[] = [];
    if (!node.end && !(nonEmpty && depth === 0)) parts.push(lit(''));
    for (const [c, child] of node.next) parts.push(seq(char(c), child.expr!));
    const firsts = normalizeRanges([...node.next.keys()].flatMap((c) => [c, c]));
    const others = subtractRanges(allowed(depth), firsts);
    if (others.length > 0) parts.push(leave(others));
    node.expr = alt(...parts);
  }
  return root.expr!;
}
