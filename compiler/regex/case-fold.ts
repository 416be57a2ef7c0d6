// Case-insensitive classes, for `(?i)` and `(?i:...)`, as JavaScript's /iu matches them: two
// code points match when their simple case foldings are equal (K, the Kelvin sign and k; ſ, s
// and S; ς, σ and Σ). The classes are found from String's toUpperCase/toLowerCase (one code
// point each), joined both ways, and kept only where /iu itself agrees, so a caseless pattern
// never matches more than JavaScript's does (ı and I are cased pairs, yet /iu keeps them apart).
import { normalizeRanges, isSurrogate } from '../charset.js';
import type { Ranges } from '../ir.js';

/** Past this no code point has another case (the last are Adlam's, U+1E900-1E943). */
const LAST_CASED = 0x1ffff;

/** [code point, another code point that matches it caselessly], by code point: built once, when a pattern first needs it. */
let pairs: Uint32Array | undefined;

/** The code point's other case, when String gives one of a single code point. */
function otherCases(cp: number): number[] {
  const text = String.fromCodePoint(cp);
  const others: number[] = [];
  for (const other of [text.toLowerCase(), text.toUpperCase()]) {
    const code = other.codePointAt(0)!;
    if (code !== cp && other.length === String.fromCodePoint(code).length) others.push(code);
  }
  return others;
}

function casePairs(): Uint32Array {
  if (pairs) return pairs;
  // Code points joined by a case mapping, either way: candidates for one class.
  const linked = new Map<number, Set<number>>();
  const link = (a: number, b: number) => {
    const group = new Set([...(linked.get(a) ?? [a]), ...(linked.get(b) ?? [b])]);
    for (const member of group) linked.set(member, group);
  };
  for (let cp = 0; cp <= LAST_CASED; cp++) {
    if (isSurrogate(cp)) continue;
    for (const other of otherCases(cp)) link(cp, other);
  }
  const found: number[] = [];
  for (const [cp, group] of linked) {
    const caseless = new RegExp(`^\\u{${cp.toString(16)}}$`, 'iu');
    for (const other of group) if (other !== cp && caseless.test(String.fromCodePoint(other))) found.push(cp, other);
  }
  const order = Array.from({ length: found.length / 2 }, (_, i) => i).sort((a, b) => found[a * 2]! - found[b * 2]! || found[a * 2 + 1]! - found[b * 2 + 1]!);
  pairs = Uint32Array.from(order.flatMap((i) => [found[i * 2]!, found[i * 2 + 1]!]));
  return pairs;
}

/** The ranges with every code point that matches one of theirs caselessly. */
export function caseFolded(ranges: Ranges): number[] {
  const table = casePairs();
  const added: number[] = [];
  for (let i = 0; i < ranges.length; i += 2) {
    const [low, high] = [ranges[i]!, ranges[i + 1]!];
    // The table is sorted by its first column: start at the first entry within the range.
    let lo = 0;
    let hi = table.length / 2;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (table[mid * 2]! < low) lo = mid + 1;
      else hi = mid;
    }
    for (let k = lo * 2; k < table.length && table[k]! <= high; k += 2) added.push(table[k + 1]!, table[k + 1]!);
  }
  return normalizeRanges([...ranges, ...added]);
}
