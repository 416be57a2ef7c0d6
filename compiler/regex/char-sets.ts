// The ECMAScript character-class escapes as code-point ranges.
import { complementRanges, normalizeRanges } from '../charset.js';

export const DIGIT = [0x30, 0x39];
export const WORD = normalizeRanges([0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a]);
export const SPACE = normalizeRanges([
  0x09, 0x0d, 0x20, 0x20, 0xa0, 0xa0, 0x1680, 0x1680, 0x2000, 0x200a, 0x2028, 0x2029, 0x202f, 0x202f,
  0x205f, 0x205f, 0x3000, 0x3000, 0xfeff, 0xfeff,
]);
/** `.` without the s flag: anything but a line terminator. */
export const DOT = complementRanges(normalizeRanges([0x0a, 0x0a, 0x0d, 0x0d, 0x2028, 0x2029]));

/** `\w` caseless in Unicode mode: also ſ (U+017F) and the Kelvin sign (U+212A), whose case foldings (s, k) are word characters. */
export const CASELESS_WORD = normalizeRanges([...WORD, 0x17f, 0x17f, 0x212a, 0x212a]);

export function escapeSet(kind: 'digit' | 'space' | 'word', negate: boolean, caseless = false): number[] {
  const base = kind === 'digit' ? DIGIT : kind === 'word' ? (caseless ? CASELESS_WORD : WORD) : SPACE;
  return negate ? complementRanges(base) : base.slice();
}
