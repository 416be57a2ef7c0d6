// Case-insensitive classes, for `(?i)` and `(?i:...)`: each code point with its simple upper-
// and lower-case forms (one code point each, as String's toUpperCase/toLowerCase give them).
// A letter folds only to those, so a caseless pattern matches no more than JavaScript's /iu does
// (its full folding also joins the Kelvin sign to k, and ſ to s).
import { normalizeRanges, isSurrogate } from '../charset.js';
import type { Ranges } from '../ir.js';

/** Past this no code point has another case (the last are Adlam's, U+1E900-1E943). */
const LAST_CASED = 0x1ffff;

/** [code point, another case of it], by code point: built once, when a pattern first needs it. */
let pairs: Uint32Array | undefined;

function casePairs(): Uint32Array {
  if (pairs) return pairs;
  const found: number[] = [];
  for (let cp = 0; cp <= LAST_CASED; cp++) {
    if (isSurrogate(cp)) continue;
    const text = String.fromCodePoint(cp);
    for (const other of new Set([text.toLowerCase(), text.toUpperCase()])) {
      const code = other.codePointAt(0)!;
      if (code !== cp && other.length === String.fromCodePoint(code).length) found.push(cp, code);
    }
  }
  pairs = Uint32Array.from(found);
  return pairs;
}

/** The ranges with every other case of the code points in them. */
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
