// Integer and number schemas: the tightest bounds of every part, and multipleOf (the least
// common multiple of every part's step) as a remainder automaton within the range.
import { GrammarError } from '../errors.js';
import type { Expr } from '../ir.js';
import { MAX_LANGUAGE_STATES, MAX_REMAINDER_STATES } from '../limits.js';
import { LanguageTooLarge } from '../dfa/byte-dfa.js';
import { exprIsEmpty } from '../passes/productive.js';
import { emptyAt } from './lowering.js';
import { type DecimalStep, integerDivisor, lcmStep, multiplesIn, remainderStates, stepOf } from './multiple-of.js';
import { intRange, type NumberBounds, numberRange } from './numbers.js';
import { isNumber, keywordValues, type Part } from './parts.js';

type Bound = { value: number; strict: boolean };

/** The tightest of every part's minimum, exclusiveMinimum, maximum and exclusiveMaximum. */
function boundsOf(parts: Part[]): NumberBounds {
  let lo: Bound | null = null;
  let hi: Bound | null = null;
  const tighten = (value: unknown, strict: boolean, lower: boolean): void => {
    if (typeof value !== 'number') return;
    const cur = lower ? lo : hi;
    const better = cur === null || (lower ? value > cur.value : value < cur.value) || (value === cur.value && strict);
    if (better) {
      if (lower) lo = { value, strict };
      else hi = { value, strict };
    }
  };
  for (const { schema } of parts) {
    tighten(schema.minimum, false, true);
    tighten(schema.exclusiveMinimum, true, true);
    tighten(schema.maximum, false, false);
    tighten(schema.exclusiveMaximum, true, false);
  }
  return { lo, hi };
}

/** Why no value lies between two bounds (they are known to leave none). */
function emptyRange(lo: Bound, hi: Bound, type: 'integer' | 'number'): string {
  const loText = `'${lo.strict ? 'exclusiveMinimum' : 'minimum'}' (${lo.value})`;
  const hiText = `'${hi.strict ? 'exclusiveMaximum' : 'maximum'}' (${hi.value})`;
  if (lo.value > hi.value) return `${loText} is greater than ${hiText}`;
  if (lo.value === hi.value) return `${loText} and ${hiText} leave no value`;
  return `no ${type} lies between ${loText} and ${hiText}`;
}

/**
 * OpenAPI's integer formats, as ranges: a number under one is an integer within it (ajv-formats
 * checks int32's range, and takes any integer as an int64; the grammar keeps int64's signed
 * 64-bit range, which a client in Java, Go or Rust parses the value into).
 */
const INTEGER_FORMATS: Record<string, { min: bigint; max: bigint }> = {
  int32: { min: -(2n ** 31n), max: 2n ** 31n - 1n },
  int64: { min: -(2n ** 63n), max: 2n ** 63n - 1n },
};

/** The formats a number may have: the integer ones, and float and double, which allow any number. */
export const NUMBER_FORMATS = [...Object.keys(INTEGER_FORMATS), 'float', 'double'];

/** The integer formats of the parts (a number under one must be an integer). */
export function integerFormats(parts: Part[]): { value: string; pointer: string }[] {
  return keywordValues(parts, 'format', (v): v is string => typeof v === 'string' && Object.hasOwn(INTEGER_FORMATS, v));
}

/** The least and greatest integer the parts' bounds allow (null: unbounded on that side); formats and multipleOf aside. */
function integerBounds(parts: Part[]): { min: bigint | null; max: bigint | null } {
  const { lo, hi } = boundsOf(parts);
  const floorOf = (x: number): bigint => BigInt(Math.floor(x));
  const ceilOf = (x: number): bigint => BigInt(Math.ceil(x));
  return { min: lo === null ? null : lo.strict ? floorOf(lo.value) + 1n : ceilOf(lo.value), max: hi === null ? null : hi.strict ? ceilOf(hi.value) - 1n : floorOf(hi.value) };
}

/** How many integers the parts' bounds leave, at most (multipleOf and formats may leave fewer), or null when unbounded. */
export function integersWithin(parts: Part[]): bigint | null {
  const { min, max } = integerBounds(parts);
  return min === null || max === null ? null : max < min ? 0n : max - min + 1n;
}

export function lowerInteger(parts: Part[], pointer: string): Expr {
  let { min, max } = integerBounds(parts);
  if (min !== null && max !== null && min > max) {
    const { lo, hi } = boundsOf(parts);
    return emptyAt(pointer, emptyRange(lo!, hi!, 'integer'));
  }
  const formats = integerFormats(parts);
  for (const { value } of formats) {
    const range = INTEGER_FORMATS[value]!;
    if (min === null || range.min > min) min = range.min;
    if (max === null || range.max < max) max = range.max;
  }
  if (min !== null && max !== null && min > max) return emptyAt(formats[0]!.pointer, `the format '${formats[0]!.value}' leaves no integer within the bounds beside it`);
  return withStep(intRange(min, max), parts, pointer, true);
}

export function lowerNumber(parts: Part[], pointer: string): Expr {
  const b = boundsOf(parts);
  if (b.lo && b.hi && (b.lo.value > b.hi.value || (b.lo.value === b.hi.value && (b.lo.strict || b.hi.strict)))) return emptyAt(pointer, emptyRange(b.lo, b.hi, 'number'));
  // With a step, plain decimals only: the remainder automaton reads digits in place.
  const stepped = keywordValues(parts, 'multipleOf', isNumber).length > 0;
  return withStep(numberRange(b, !stepped), parts, pointer, false);
}

/** Whether the parts constrain integers or numbers at all (else a shared basic rule serves). */
export function isUnboundedNumeric(parts: Part[]): boolean {
  return parts.every(({ schema: s }) => !['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'].some((k) => typeof s[k] === 'number')) && integerFormats(parts).length === 0;
}

/** The range's numbers that are multiples of every part's step. */
function withStep(range: Expr, parts: Part[], pointer: string, integer: boolean): Expr {
  const steps = keywordValues(parts, 'multipleOf', isNumber);
  if (steps.length === 0) return range;
  const at = steps[0]!.pointer;
  const step = steps.map((s) => stepOf(s.value)).reduce(lcmStep);
  if (integer && integerDivisor(step) === 1n) return range;
  if (remainderStates(step, integer) > BigInt(MAX_REMAINDER_STATES)) {
    const need = 'a whole step m·10^n, m not a multiple of 10, needs about m·(n + 1); a fractional step a·10^-k about a·(k + 2)';
    throw GrammarError.at(at, `'multipleOf' ${describeStep(step, steps.length)} needs more than ${MAX_REMAINDER_STATES} automaton states (the limit; ${need})`);
  }
  try {
    const multiples = multiplesIn(range, step, integer);
    return exprIsEmpty(multiples) ? emptyAt(pointer, `no ${integer ? 'integer' : 'number'} in the range is a multiple of ${describeStep(step, steps.length)}`) : multiples;
  } catch (error) {
    if (!(error instanceof LanguageTooLarge)) throw error;
    throw GrammarError.at(at, `'multipleOf' ${describeStep(step, steps.length)} together with the bounds needs more than ${MAX_LANGUAGE_STATES} automaton states (the limit)`);
  }
}

function describeStep(step: DecimalStep, count: number): string {
  const digits = step.units.toString().padStart(step.scale + 1, '0');
  const text = step.scale === 0 ? digits : `${digits.slice(0, -step.scale)}.${digits.slice(-step.scale)}`;
  return count > 1 ? `(the least common multiple of the steps, ${text})` : `(${text})`;
}

