// multipleOf, exactly, in decimal arithmetic: a remainder automaton over the digits of the
// number's text, intersected with the automaton of its range (dfa/product.ts). Steps are
// taken as the decimals their shortest form shows (0.1 is one tenth, not the double nearest
// it), so 0.3 is a multiple of 0.1 (ajv, dividing doubles, says it is not).
//
// Reading a number's digits left to right, the value of the digits so far modulo a is all
// that decides the rest. For a step a·10^-k, a value v is a multiple when v·10^k is a whole
// number divisible by a: after j ≤ k fraction digits the digits read form N = v·10^j, and v
// is a multiple when N·10^(k-j) ≡ 0 (mod a); digits past the k-th must be zeros. Numbers are
// plain decimals here (no exponent form), integers plain digits as always.
import { type Expr } from '../ir.js';
import { MAX_REMAINDER_STATES } from '../limits.js';
import { type ByteDfa, dfaExpr, dfaOfExpr, dfaOfFsm, dfaOfTable } from '../dfa/byte-dfa.js';
import { EDGE_BYTE } from '../fsm/edges.js';
import { RuleFsm } from '../fsm/rule-fsm.js';
import { intersectDfa } from '../dfa/product.js';
import { decimalOf } from './numbers.js';

/** A step as a whole number of units of 10^-scale. */
export interface DecimalStep {
  units: bigint;
  scale: number;
}

export function stepOf(multipleOf: number): DecimalStep {
  const { value } = decimalOf(multipleOf);
  return { units: BigInt(value.int.toString() + value.frac), scale: value.frac.length };
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

/** The least common multiple of two steps (a value meeting both is a multiple of it). */
export function lcmStep(x: DecimalStep, y: DecimalStep): DecimalStep {
  const scale = Math.max(x.scale, y.scale);
  const a = x.units * 10n ** BigInt(scale - x.scale);
  const b = y.units * 10n ** BigInt(scale - y.scale);
  return { units: (a / gcd(a, b)) * b, scale };
}

/** The divisor an integer must have for the step (1: every integer is a multiple). */
export function integerDivisor(step: DecimalStep): bigint {
  return step.units / gcd(step.units, 10n ** BigInt(step.scale));
}

/** d as m·10^n with m not a multiple of 10. */
function splitTens(d: bigint): { m: bigint; n: number } {
  let n = 0;
  while (d % 10n === 0n) {
    d /= 10n;
    n++;
  }
  return { m: d, n };
}

/** States the remainder automaton needs, to check against MAX_REMAINDER_STATES first. */
export function remainderStates(step: DecimalStep, integer: boolean): bigint {
  if (integer || step.scale === 0) {
    const { m, n } = splitTens(integer ? integerDivisor(step) : step.units);
    return m * BigInt(n + 1) + 4n;
  }
  return step.units * BigInt(step.scale + 2) + 2n;
}

/**
 * Numbers of `range` (canonical integers, or plain decimals) that are multiples of the step.
 * Throws LanguageTooLarge when the product passes the state limit.
 */
export function multiplesIn(range: Expr, step: DecimalStep, integer: boolean): Expr {
  if (remainderStates(step, integer) > BigInt(MAX_REMAINDER_STATES)) throw new Error('internal: check remainderStates first');
  let remainders: ByteDfa;
  if (integer || step.scale === 0) {
    const { m, n } = splitTens(integer ? integerDivisor(step) : step.units);
    remainders = wholeMultiplesDfa(Number(m), n, !integer);
  } else remainders = remainderDfa(Number(step.units), step.scale);
  return dfaExpr(intersectDfa(dfaOfExpr(range), remainders));
}

const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;

/**
 * An optional sign, digits, a point and more digits, accepted when the value is a multiple of
 * a·10^-k (k ≥ 1). The text's form is left to the range it is intersected with.
 */
function remainderDfa(a: number, k: number): ByteDfa {
  // States: 0 start, 1 after '-', then per remainder r: whole part, after the point, and
  // after j fraction digits (j = 1..k; at j = k only zeros may follow).
  const whole = (r: number): number => 2 + r;
  const point = (r: number): number => 2 + a + r;
  const frac = (r: number, j: number): number => 2 + 2 * a + (j - 1) * a + r;
  const n = 2 + 2 * a + k * a;
  const finals = new Uint8Array(n);
  const edges: number[] = [];
  const pow = (j: number): number => Number(10n ** BigInt(j) % BigInt(a));
  const digits = (from: number, to: (c: number) => number): void => {
    for (let c = 0; c <= 9; c++) edges.push(from, ZERO + c, ZERO + c, to(c));
  };
  edges.push(0, MINUS, MINUS, 1);
  digits(0, (c) => whole(c % a));
  digits(1, (c) => whole(c % a));
  for (let r = 0; r < a; r++) {
    finals[whole(r)] = (r * pow(k)) % a === 0 ? 1 : 0;
    digits(whole(r), (c) => whole((10 * r + c) % a));
    edges.push(whole(r), DOT, DOT, point(r));
    digits(point(r), (c) => frac((10 * r + c) % a, 1));
    for (let j = 1; j <= k; j++) {
      finals[frac(r, j)] = (r * pow(k - Math.min(j, k))) % a === 0 ? 1 : 0;
      if (j < k) digits(frac(r, j), (c) => frac((10 * r + c) % a, j + 1));
      else edges.push(frac(r, j), ZERO, ZERO, frac(r, j));
    }
  }
  return dfaOfTable(finals, edges, false);
}

/**
 * Multiples of m·10^n (m not a multiple of 10): an optional sign, then "0", or the digits of
 * a multiple of m followed by n zeros; with `fraction`, a point and zeros may follow. Where
 * the multiple of m ends is not known while reading, so this is built as a nondeterministic
 * automaton and determinised: a few states per remainder, not 10^n.
 */
function wholeMultiplesDfa(m: number, n: number, fraction: boolean): ByteDfa {
  // 0 start, 1 after '-', 2 the number 0, 3 after the point, 4 in the zeros after it, then
  // remainders r of the leading digits (5 + r), then j of the n trailing zeros read.
  const rem = (r: number): number => 5 + r;
  const zeros = (j: number): number => (j === 0 ? rem(0) : 5 + m + j - 1);
  const fsm = new RuleFsm();
  for (let s = 1; s < 5 + m + n; s++) fsm.newState();
  const edge = (from: number, lo: number, hi: number, to: number): void => fsm.edge(from, EDGE_BYTE, to, lo, hi);
  const done = zeros(n);
  edge(0, MINUS, MINUS, 1);
  for (const s of [0, 1]) {
    edge(s, ZERO, ZERO, 2);
    for (let c = 1; c <= 9; c++) edge(s, ZERO + c, ZERO + c, rem(c % m));
  }
  for (let r = 0; r < m; r++) for (let c = 0; c <= 9; c++) edge(rem(r), ZERO + c, ZERO + c, rem((10 * r + c) % m));
  for (let j = 0; j < n; j++) edge(zeros(j), ZERO, ZERO, zeros(j + 1));
  fsm.finals[2] = true;
  fsm.finals[done] = true;
  if (fraction) {
    fsm.finals[4] = true;
    edge(2, DOT, DOT, 3);
    edge(done, DOT, DOT, 3);
    edge(3, ZERO, ZERO, 4);
    edge(4, ZERO, ZERO, 4);
  }
  return dfaOfFsm(fsm);
}
