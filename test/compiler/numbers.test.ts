// Property tests of ranged integers and numbers against plain numeric comparison.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { GrammarError } from '../../compiler/index.js';
import { MAX_FREE_DIGITS } from '../../compiler/json-schema/numbers.js';
import { schema } from './helpers.js';

/** The schema's matcher, or null when it is refused as empty (a range with no value). */
function schemaOrEmpty(s: unknown): ((text: string) => boolean) | null {
  try {
    return schema(s);
  } catch (error) {
    if (error instanceof GrammarError) return null;
    throw error;
  }
}

const test = suite('numbers');
const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

test('ranged integers accept exactly the canonical integers in range', () => {
  const bound = fc.option(fc.integer({ min: -2000, max: 2000 }), { nil: undefined });
  const candidate = fc.oneof(fc.integer({ min: -2500, max: 2500 }).map(String), fc.constantFrom('-0', '007', '1.0', '1e3', '+5', ''));
  fc.assert(
    fc.property(bound, bound, fc.boolean(), fc.boolean(), fc.array(candidate, { minLength: 10, maxLength: 10 }), (a, b, ea, eb, texts) => {
      const s: Record<string, unknown> = { type: 'integer' };
      if (a !== undefined) s[ea ? 'exclusiveMinimum' : 'minimum'] = a;
      if (b !== undefined) s[eb ? 'exclusiveMaximum' : 'maximum'] = b;
      const ok = schemaOrEmpty(s);
      const lowest = a === undefined ? -Infinity : ea ? a + 1 : a;
      const highest = b === undefined ? Infinity : eb ? b - 1 : b;
      // A range without an integer is an error, and only such a range.
      if (ok === null || lowest > highest) return ok === null && lowest > highest;
      return texts.every((t) => {
        const canonical = /^(0|-?[1-9]\d*)$/.test(t);
        const v = Number(t);
        const inRange = (a === undefined || (ea ? v > a : v >= a)) && (b === undefined || (eb ? v < b : v <= b));
        return ok(t) === (canonical && inRange);
      });
    }),
    { numRuns: 60 },
  );
});

test('ranged numbers: decimals and normalised exponent forms, exactly in range', () => {
  // At most 15 significant digits everywhere, so Number() compares exactly.
  const decimal = fc.tuple(fc.integer({ min: -99999, max: 99999 }), fc.integer({ min: -6, max: 3 })).map(([m, e]) => Number(`${m}e${e}`));
  const bound = fc.option(decimal, { nil: undefined });
  const digits = (n: number): fc.Arbitrary<string> => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 0, maxLength: n });
  const candidate = fc.oneof(
    decimal.map((x) => JSON.stringify(x)),
    fc.tuple(fc.constantFrom('', '-'), fc.constantFrom('0', '1', '9', '12', '100'), digits(4), fc.constantFrom('', 'e', 'E', 'e-', 'e+'), digits(2)).map(
      ([sign, int, frac, e, exp]) => `${sign}${int}${frac ? '.' + frac : ''}${e ? e + (exp || '0') : ''}`,
    ),
  );
  fc.assert(
    fc.property(bound, bound, fc.boolean(), fc.boolean(), fc.array(candidate, { minLength: 12, maxLength: 12 }), (a, b, ea, eb, texts) => {
      const s: Record<string, unknown> = { type: 'number' };
      if (a !== undefined) s[ea ? 'exclusiveMinimum' : 'minimum'] = a;
      if (b !== undefined) s[eb ? 'exclusiveMaximum' : 'maximum'] = b;
      if (a === undefined && b === undefined) s.minimum = 0;
      const ok = schemaOrEmpty(s);
      const empty = a !== undefined && b !== undefined && (a > b || (a === b && (ea || eb)));
      if (ok === null || empty) return ok === null && empty;
      return texts.every((t) => {
        const m = JSON_NUMBER.exec(t);
        const v = Number(t);
        const lo = s.minimum ?? s.exclusiveMinimum;
        const hi = s.maximum ?? s.exclusiveMaximum;
        const inRange = (lo === undefined || ('exclusiveMinimum' in s ? v > (lo as number) : v >= (lo as number))) && (hi === undefined || ('exclusiveMaximum' in s ? v < (hi as number) : v <= (hi as number)));
        // With an exponent the mantissa must be normalised (d or d.ddd, d in 1-9) or zero.
        const normalised = !m?.[3] || /^-?([1-9](\.\d+)?|0(\.0+)?)[eE]/.test(t);
        const want = m !== null && inRange && normalised;
        if (ok(t) !== want) throw new Error(`${JSON.stringify(s)}: ${t} should be ${want}`);
        return true;
      });
    }),
    { numRuns: 60 },
  );
});

test('JSON.stringify output of any double in range is accepted', () => {
  fc.assert(
    fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.double({ noNaN: true, noDefaultInfinity: true }), (x, y) => {
      const [lo, hi] = x <= y ? [x, y] : [y, x];
      const ok = schema({ type: 'number', minimum: lo, maximum: hi });
      return ok(JSON.stringify(lo)) && ok(JSON.stringify(hi)) && ok(JSON.stringify(Math.min(Math.max(lo / 2 + hi / 2, lo), hi)));
    }),
    { numRuns: 40 },
  );
});

test('unbounded integers are plain digits, up to MAX_FREE_DIGITS past the first, never exponent forms', () => {
  const ok = schema({ type: 'integer' });
  for (const v of ['0', '-1', String(2 ** 53), '1' + '0'.repeat(MAX_FREE_DIGITS), '-1234567890123456789012345']) assert.ok(ok(v), v);
  for (const v of ['1' + '0'.repeat(MAX_FREE_DIGITS + 1), '1' + '0'.repeat(400), '1.5e1', '1.5e20', '1e+21', '-1.7976931348623157e+308', '1e999', '-0', '01']) assert.not.ok(ok(v), v);
});

test.run();
