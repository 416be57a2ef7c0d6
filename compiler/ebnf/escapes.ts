// Decoding of EBNF string literals and character classes into code points.
import type { IToken } from 'chevrotain';
import { complementRanges, encodableRanges, isSurrogate, MAX_CODE_POINT, normalizeRanges } from '../charset.js';
import { GrammarError } from '../errors.js';

const SIMPLE: Record<string, number> = {
  n: 10, r: 13, t: 9, b: 8, f: 12, a: 7, v: 11, '0': 0, e: 27,
  '"': 34, '\\': 92, '/': 47, "'": 39, '?': 63, '[': 91, ']': 93, '-': 45, '^': 94,
};

function fail(tok: IToken, offset: number, message: string): never {
  const line = tok.startLine ?? 1;
  const column = (tok.startColumn ?? 1) + offset;
  throw new GrammarError(`line ${line}, column ${column}: ${message}`, { kind: 'text', line, column });
}

/**
 * Reads one (possibly escaped) code point of `text` at `i`; returns [codePoint, nextIndex].
 * `\ud83d\ude00` (JSON's way) is one code point; half of such a pair alone is refused: no
 * UTF-8 text holds it, and the text it would stand for is U+FFFD, which is not what was written.
 */
function readChar(text: string, i: number, tok: IToken, inClass: boolean): [number, number] {
  const [c, next] = readEscapedChar(text, i, tok, inClass);
  if (!isSurrogate(c)) return [c, next];
  if (c <= 0xdbff && text.startsWith('\\u', next)) {
    const [low, after] = readEscapedChar(text, next, tok, inClass);
    if (low >= 0xdc00 && low <= 0xdfff) return [0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00), after];
  }
  fail(tok, i, `'${text.slice(i, next)}' is half of a UTF-16 surrogate pair, which no UTF-8 text holds (write the character, or \\U with its code point)`);
}

function readEscapedChar(text: string, i: number, tok: IToken, inClass: boolean): [number, number] {
  const c = text.codePointAt(i)!;
  if (c !== 0x5c) return [c, i + (c > 0xffff ? 2 : 1)];
  // The lexer only produces tokens whose backslashes are followed by a character.
  const kind = text[i + 1]!;
  const hex = (from: number, min: number, max: number): [number, number] => {
    let j = from;
    while (j < text.length && j - from < max && /[0-9a-fA-F]/.test(text[j]!)) j++;
    if (j - from < min) fail(tok, i, `the escape '\\${kind}' needs ${min === max ? min : `at least ${min}`} hex digits`);
    const value = parseInt(text.slice(from, j), 16);
    if (value > MAX_CODE_POINT) fail(tok, i, `the escape '${text.slice(i, j)}' is beyond U+10FFFF`);
    return [value, j];
  };
  if (kind === 'x') return hex(i + 2, 1, 8);
  if (kind === 'u') return hex(i + 2, 4, 4);
  if (kind === 'U') return hex(i + 2, 8, 8);
  if ((kind === '[' || kind === ']' || kind === '-' || kind === '^') && !inClass) fail(tok, i, `unknown escape '\\${kind}'`);
  const simple = SIMPLE[kind];
  if (simple === undefined) fail(tok, i, `unknown escape '\\${kind}'${inClass && 'dws'.includes(kind.toLowerCase()) ? ' (\\d, \\w and \\s are not supported in classes; write the range)' : ''}`);
  return [simple, i + 2];
}

export function decodeString(tok: IToken): string {
  const text = tok.image;
  let out = '';
  for (let i = 1; i < text.length - 1; ) {
    const [c, next] = readChar(text, i, tok, false);
    out += String.fromCodePoint(c);
    i = next;
  }
  return out;
}

/** Code-point ranges of a class token such as `[^a-z0-9\n]`. */
export function decodeClass(tok: IToken): number[] {
  const text = tok.image;
  let i = 1;
  const negated = text[1] === '^';
  if (negated) i++;
  const pairs: number[] = [];
  while (i < text.length - 1) {
    const [lo, next] = readChar(text, i, tok, true);
    i = next;
    if (text[i] === '-' && i + 1 < text.length - 1) {
      const [hi, after] = readChar(text, i + 1, tok, true);
      if (hi < lo) fail(tok, i - 1, `the range ends before it starts (U+${lo.toString(16)} > U+${hi.toString(16)})`);
      pairs.push(lo, hi);
      i = after;
    } else pairs.push(lo, lo);
  }
  const ranges = normalizeRanges(pairs);
  return encodableRanges(negated ? complementRanges(ranges) : ranges);
}
