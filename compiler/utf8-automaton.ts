// Well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF) as a
// byte automaton. State 0 is a character boundary; the others say which bytes the current
// character still needs. Used to accept, in one step, tokens made of whole characters that a
// grammar state loops on (the inside of a JSON string).

export const UTF8_BOUNDARY = 0;
export const UTF8_INVALID = -1;

// Per state, the range the next byte must lie in and the state it leads to.
const CONT_LO = [0, 0x80, 0x80, 0x80, 0xa0, 0x80, 0x90, 0x80];
const CONT_HI = [0, 0xbf, 0xbf, 0xbf, 0xbf, 0x9f, 0xbf, 0x8f];
const CONT_TO = [0, 0, 1, 2, 1, 1, 2, 2];

/** The state after `byte` in `state`; from the boundary, an ASCII byte stays there. */
export function utf8Step(state: number, byte: number): number {
  if (state !== UTF8_BOUNDARY) return byte >= CONT_LO[state]! && byte <= CONT_HI[state]! ? CONT_TO[state]! : UTF8_INVALID;
  if (byte < 0x80) return UTF8_BOUNDARY;
  if (byte >= 0xc2 && byte <= 0xdf) return 1;
  if (byte === 0xe0) return 4;
  if (byte === 0xed) return 5;
  if (byte >= 0xe1 && byte <= 0xef) return 2;
  if (byte === 0xf0) return 6;
  if (byte >= 0xf1 && byte <= 0xf3) return 3;
  if (byte === 0xf4) return 7;
  return UTF8_INVALID;
}

/** The byte range a character in the middle (`state` > 0) must continue with. */
export function utf8Continuation(state: number): [lo: number, hi: number] {
  return [CONT_LO[state]!, CONT_HI[state]!];
}

/** Lead bytes of multi-byte characters. */
export const UTF8_LEADS: readonly number[] = Array.from({ length: 0xf4 - 0xc2 + 1 }, (_, i) => 0xc2 + i);
