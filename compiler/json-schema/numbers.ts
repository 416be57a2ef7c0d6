// Integer and number ranges as exact regular expressions over JSON number text.
// Integers: canonical digits (no leading zeros, no -0). Numbers: the decimal form is compared
// digit by digit; exponent forms stay valid when the mantissa is normalised (d or d.ddd with
// d in 1-9, which is what JSON.stringify writes): for each exponent the mantissa range is
// again a decimal range. Bounds are compared exactly as the decimals their shortest form shows.
import { alt, EMPTY, type Expr, lit, NOTHING, opt, rep, seq } from '../ir.js';

const D: Expr = { kind: 'class', ranges: [0x30, 0x39] };

/**
 * Most digits in a row where no bound fixes how many: integer digits past a lower bound's
 * length, fraction digits past a bound's, leading zeros of an exponent. Every 64-bit integer,
 * and every double as JavaScript or Python spells it (at most 21 integer digits, 17 significant
 * digits after up to 6 zeros), fits; a model can no longer write digits until max_tokens
 * (`"rating": 1000…` under an `integer`), as llama.cpp's JSON grammars bound them (16 there).
 */
export const MAX_FREE_DIGITS = 24;

/** `min` or more of `expr` in a row, at most max(min, MAX_FREE_DIGITS). */
function run(expr: Expr, min: number): Expr {
  return rep(expr, min, Math.max(min, MAX_FREE_DIGITS));
}
const anyDigits = run(D, 0);

function digitClass(lo: number, hi: number): Expr {
  return { kind: 'class', ranges: [0x30 + lo, 0x30 + hi] };
}

// ---- naturals ----

function fixedRange(lo: string, hi: string): Expr {
  if (lo === hi) return lit(lo);
  const d1 = Number(lo[0]);
  const d2 = Number(hi[0]);
  const n = lo.length - 1;
  if (n === 0) return digitClass(d1, d2);
  const restLo = lo.slice(1);
  const restHi = hi.slice(1);
  if (d1 === d2) return seq(lit(lo[0]!), fixedRange(restLo, restHi));
  const lowFull = /^0*$/.test(restLo);
  const highFull = /^9*$/.test(restHi);
  const parts: Expr[] = [];
  const midLo = lowFull ? d1 : d1 + 1;
  const midHi = highFull ? d2 : d2 - 1;
  if (!lowFull) parts.push(seq(lit(lo[0]!), fixedRange(restLo, '9'.repeat(n))));
  if (midLo <= midHi) parts.push(seq(digitClass(midLo, midHi), rep(D, n, n)));
  if (!highFull) parts.push(seq(lit(hi[0]!), fixedRange('0'.repeat(n), restHi)));
  return alt(...parts);
}

/** Canonical decimal naturals in [lo, hi]; hi null means unbounded. */
export function natRange(lo: bigint, hi: bigint | null): Expr {
  if (lo < 0n) lo = 0n;
  if (hi !== null && lo > hi) return NOTHING;
  const loLen = lo.toString().length;
  const parts: Expr[] = [];
  const top = hi ?? 10n ** BigInt(loLen) - 1n;
  for (let len = loLen; len <= top.toString().length; len++) {
    const a = len === 1 ? 0n : 10n ** BigInt(len - 1);
    const b = 10n ** BigInt(len) - 1n;
    const from = lo > a ? lo : a;
    const to = top < b ? top : b;
    if (from <= to) parts.push(fixedRange(from.toString(), to.toString()));
  }
  if (hi === null) parts.push(seq(digitClass(1, 9), run(D, loLen)));
  return alt(...parts);
}

/**
 * The exponent of the largest double (1.7976931348623157e308). Exponent forms on an unbounded
 * side go no higher, with a mantissa no larger, so every JSON parser that reads numbers as
 * doubles (JavaScript's, Python's floats and pydantic) gets a finite value, never Infinity.
 */
export const MAX_FINITE_EXPONENT = 308;
/** 1.7976931348623157: the mantissa of the largest double, as written by JSON.stringify. */
const MAX_DOUBLE_MANTISSA = { int: 1n, frac: '7976931348623157', strict: false };

/**
 * JSON integers in [lo, hi]; null bounds are unbounded. Always plain digits: an exponent form
 * (1e21, legal JSON for an integral value) reads as a float in most parsers, and pydantic
 * refuses large ones for an int field, so a model is never led to write one.
 */
export function intRange(lo: bigint | null, hi: bigint | null): Expr {
  const parts: Expr[] = [];
  if (hi === null || hi >= 0n) parts.push(natRange(lo === null || lo < 0n ? 0n : lo, hi));
  if (lo === null || lo < 0n) {
    const magLo = hi === null || hi >= 0n ? 1n : -hi;
    parts.push(seq(lit('-'), natRange(magLo, lo === null ? null : -lo)));
  }
  return alt(...parts);
}

// ---- decimals ----

/** A non-negative decimal: integer digits (canonical) and fraction digits (no trailing zeros). */
export interface Decimal {
  int: bigint;
  frac: string;
}
export interface Bound extends Decimal {
  strict: boolean;
}

export function decimalOf(x: number): { neg: boolean; value: Decimal } {
  const [mant, exp] = Math.abs(x).toString().split('e') as [string, string | undefined];
  const point = mant.indexOf('.');
  let digits = mant.replace('.', '');
  let pos = (point === -1 ? mant.length : point) + Number(exp ?? 0);
  if (pos < 0) {
    digits = '0'.repeat(-pos) + digits;
    pos = 0;
  }
  if (pos > digits.length) digits += '0'.repeat(pos - digits.length);
  const int = BigInt(digits.slice(0, pos) || '0');
  return { neg: x < 0, value: { int, frac: digits.slice(pos).replace(/0+$/, '') } };
}

export function compareDecimal(a: Decimal, b: Decimal): number {
  if (a.int !== b.int) return a.int < b.int ? -1 : 1;
  const n = Math.max(a.frac.length, b.frac.length);
  const fa = a.frac.padEnd(n, '0');
  const fb = b.frac.padEnd(n, '0');
  return fa < fb ? -1 : fa > fb ? 1 : 0;
}

// Fraction digit strings s compared as 0.s; "Plus" variants need at least one digit.
function geqPlus(d: string, strict: boolean): Expr {
  if (d === '') return strict ? seq(run(lit('0'), 0), digitClass(1, 9), anyDigits) : run(D, 1);
  const d0 = Number(d[0]);
  const parts: Expr[] = [];
  if (d0 < 9) parts.push(seq(digitClass(d0 + 1, 9), anyDigits));
  parts.push(seq(lit(d[0]!), geqStar(d.slice(1), strict)));
  return alt(...parts);
}
function geqStar(d: string, strict: boolean): Expr {
  return d === '' && !strict ? alt(EMPTY, geqPlus(d, strict)) : geqPlus(d, strict);
}
function leqPlus(d: string, strict: boolean): Expr {
  if (d === '') return strict ? NOTHING : run(lit('0'), 1);
  const d0 = Number(d[0]);
  const parts: Expr[] = [];
  if (d0 > 0) parts.push(seq(digitClass(0, d0 - 1), anyDigits));
  parts.push(seq(lit(d[0]!), leqStar(d.slice(1), strict)));
  return alt(...parts);
}
function leqStar(d: string, strict: boolean): Expr {
  return d !== '' || !strict ? alt(EMPTY, leqPlus(d, strict)) : leqPlus(d, strict);
}
function betweenPlus(a: string, sa: boolean, b: string, sb: boolean): Expr {
  if (a === '' && b === '') return !sa && !sb ? run(lit('0'), 1) : NOTHING;
  const a0 = Number(a[0] ?? '0');
  const b0 = Number(b[0] ?? '0');
  if (a0 === b0) return seq(lit(String(a0)), betweenStar(a.slice(1), sa, b.slice(1), sb));
  const parts: Expr[] = [seq(lit(String(a0)), geqStar(a.slice(1), sa))];
  if (a0 + 1 <= b0 - 1) parts.push(seq(digitClass(a0 + 1, b0 - 1), anyDigits));
  parts.push(seq(lit(String(b0)), leqStar(b.slice(1), sb)));
  return alt(...parts);
}
function betweenStar(a: string, sa: boolean, b: string, sb: boolean): Expr {
  const zeroOk = a === '' && !sa && (b !== '' || !sb);
  return zeroOk ? alt(EMPTY, betweenPlus(a, sa, b, sb)) : betweenPlus(a, sa, b, sb);
}

/** `("." digits)?` where the fraction digits belong to `plus`; `emptyOk`: no fraction allowed. */
function fraction(plus: Expr, emptyOk: boolean): Expr {
  const dotted = seq(lit('.'), plus);
  return emptyOk ? alt(EMPTY, dotted) : dotted;
}

/** Plain decimals (no exponent) with value in [lo, hi]; hi null is unbounded. */
export function decimalRange(lo: Bound, hi: Bound | null): Expr {
  if (hi) {
    const c = compareDecimal(lo, hi);
    if (c > 0 || (c === 0 && (lo.strict || hi.strict))) return NOTHING;
  }
  const intLit = (i: bigint): Expr => lit(i.toString());
  if (hi && lo.int === hi.int) {
    const zeroOk = lo.frac === '' && !lo.strict && (hi.frac !== '' || !hi.strict);
    return seq(intLit(lo.int), fraction(betweenPlus(lo.frac, lo.strict, hi.frac, hi.strict), zeroOk));
  }
  const parts: Expr[] = [seq(intLit(lo.int), fraction(geqPlus(lo.frac, lo.strict), lo.frac === '' && !lo.strict))];
  const midHi = hi ? hi.int - 1n : null;
  if (midHi === null || lo.int + 1n <= midHi) parts.push(seq(natRange(lo.int + 1n, midHi), opt(seq(lit('.'), run(D, 1)))));
  if (hi) parts.push(seq(intLit(hi.int), fraction(leqPlus(hi.frac, hi.strict), hi.frac !== '' || !hi.strict)));
  return alt(...parts);
}

/** Decimal exponent of the leading digit (floor(log10(x))) of a positive decimal. */
function magnitude(d: Decimal): number {
  if (d.int > 0n) return d.int.toString().length - 1;
  return -(d.frac.length - d.frac.replace(/^0+/, '').length) - 1;
}

/** x / 10^e, exactly. */
function shift(d: Decimal, e: number): Decimal {
  const digits = d.int.toString() + d.frac;
  let pos = d.int.toString().length - e;
  let all = digits;
  if (pos <= 0) {
    all = '0'.repeat(1 - pos) + all;
    pos = 1;
  }
  if (pos > all.length) all += '0'.repeat(pos - all.length);
  return { int: BigInt(all.slice(0, pos)), frac: all.slice(pos).replace(/0+$/, '') };
}

/** Exponent text (after e/E) denoting an integer in [lo, hi]; leading zeros allowed. */
function exponentRange(lo: number | null, hi: number | null): Expr {
  const zeros = run(lit('0'), 0);
  const parts: Expr[] = [];
  if (hi === null || hi >= 0) parts.push(seq(opt(lit('+')), zeros, natRange(BigInt(Math.max(lo ?? 0, 0)), hi === null ? null : BigInt(hi))));
  if (lo === null || lo <= 0) {
    const neg: Expr[] = [];
    if (lo === null || lo < 0) neg.push(seq(zeros, natRange(BigInt(hi === null || hi >= 0 ? 1 : -hi), lo === null ? null : BigInt(-lo))));
    if (hi === null || hi >= 0) neg.push(run(lit('0'), 1)); // "-0"
    parts.push(seq(lit('-'), alt(...neg)));
  }
  return alt(...parts);
}

const E: Expr = { kind: 'class', ranges: [0x45, 0x45, 0x65, 0x65] };
const ONE: Bound = { int: 1n, frac: '', strict: false };
const TEN: Bound = { int: 10n, frac: '', strict: true };

function tighter(a: Bound, b: Bound, lower: boolean): Bound {
  const c = compareDecimal(a, b);
  if (c === 0) return a.strict ? a : b;
  return (c > 0) === lower ? a : b;
}

/** Exponent forms (normalised mantissa, or zero) of non-negative values in [lo, hi]. */
export function exponentForms(lo: Bound, hi: Bound | null): Expr {
  if (hi) {
    const c = compareDecimal(lo, hi);
    if (c > 0 || (c === 0 && (lo.strict || hi.strict))) return NOTHING;
  }
  const parts: Expr[] = [];
  const zeroIn = lo.int === 0n && lo.frac === '' && !lo.strict && (hi === null || hi.int > 0n || hi.frac !== '' || !hi.strict);
  if (zeroIn) parts.push(seq(lit('0'), opt(seq(lit('.'), run(lit('0'), 1))), E, exponentRange(null, null)));
  const loPositive = lo.int > 0n || lo.frac !== '';
  if (hi && hi.int === 0n && hi.frac === '') return alt(...parts);
  const eLo = loPositive ? magnitude(lo) : null;
  const eHi = hi ? magnitude(hi) : null;
  const mantissa = (m: Expr): Expr => seq(m, E);
  const partial = (e: number): void => {
    let mLo = ONE;
    let mHi: Bound = TEN;
    if (eLo === e) mLo = tighter(mLo, { ...shift(lo, e), strict: lo.strict }, true);
    if (hi && eHi === e) mHi = tighter(mHi, { ...shift(hi, e), strict: hi.strict }, false);
    parts.push(seq(mantissa(decimalRange(mLo, mHi)), exponentRange(e, e)));
  };
  if (eLo !== null) partial(eLo);
  if (eHi !== null && eHi !== eLo) partial(eHi);
  // Unbounded above: up to the largest double, so the value is finite.
  if (eHi === null && (eLo === null || eLo < MAX_FINITE_EXPONENT)) {
    parts.push(seq(mantissa(decimalRange(ONE, MAX_DOUBLE_MANTISSA)), exponentRange(MAX_FINITE_EXPONENT, MAX_FINITE_EXPONENT)));
  }
  const fullLo = eLo === null ? null : eLo + 1;
  const fullHi = eHi === null ? MAX_FINITE_EXPONENT - 1 : eHi - 1;
  if (fullLo === null || fullHi === null || fullLo <= fullHi) {
    parts.push(seq(mantissa(decimalRange(ONE, TEN)), exponentRange(fullLo, fullHi)));
  }
  return alt(...parts);
}

export interface NumberBounds {
  lo: { value: number; strict: boolean } | null;
  hi: { value: number; strict: boolean } | null;
}

/** JSON numbers in the range, plain or (unless `exponents` is false) with an exponent. */
export function numberRange({ lo, hi }: NumberBounds, exponents = true): Expr {
  const side = (sign: 1 | -1): Expr => {
    // Magnitude bounds of the values of this sign.
    const from = sign === 1 ? lo : hi;
    const to = sign === 1 ? hi : lo;
    const toDec = (b: { value: number; strict: boolean }): Bound => ({ ...decimalOf(b.value).value, strict: b.strict });
    let mLo: Bound = { int: 0n, frac: '', strict: false };
    if (from && from.value * sign >= 0) mLo = toDec(from);
    if (to && to.value * sign < 0) return NOTHING;
    const mHi = to ? toDec(to) : null;
    if (to && to.value === 0 && to.strict) return NOTHING;
    const body = exponents ? alt(decimalRange(mLo, mHi), exponentForms(mLo, mHi)) : decimalRange(mLo, mHi);
    return sign === 1 ? body : seq(lit('-'), body);
  };
  return alt(side(1), side(-1));
}
