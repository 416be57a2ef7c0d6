// multipleOf against exact decimal arithmetic (and ajv, which divides doubles, where that is
// exact: integers): integers and decimals, negative ones, with inclusive and exclusive bounds,
// steps from allOf parts combined, and the state limits that refuse the rest.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { GrammarError } from '../../compiler/index.js';
import { schema } from './helpers.js';

const test = suite('multiple-of');

/** A plain decimal as a whole number of units of 10^-scale. */
function decimal(text: string): { units: bigint; scale: number } {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text)!;
  const frac = m[3] ?? '';
  return { units: BigInt(`${m[1]}${m[2]}${frac}`), scale: frac.length };
}

function isMultiple(value: string, step: number): boolean {
  const v = decimal(value);
  const s = decimal(String(step));
  // v / s whole: v.units·10^s.scale divisible by s.units·10^v.scale.
  return (v.units * 10n ** BigInt(s.scale)) % (s.units * 10n ** BigInt(v.scale)) === 0n;
}

function compare(value: string, bound: number): number {
  const v = decimal(value);
  const b = decimal(String(bound));
  const scale = Math.max(v.scale, b.scale);
  const x = v.units * 10n ** BigInt(scale - v.scale);
  const y = b.units * 10n ** BigInt(scale - b.scale);
  return x < y ? -1 : x > y ? 1 : 0;
}

function orEmpty(s: unknown): ((text: string) => boolean) | null {
  try {
    return schema(s);
  } catch (error) {
    if (error instanceof GrammarError && /no (integer|number) in the range|greater than|leave no value|no integer lies/.test(error.message)) return null;
    throw error;
  }
}

const bounds = (lo: number | undefined, hi: number | undefined, ea: boolean, eb: boolean): Record<string, number> => ({
  ...(lo === undefined ? {} : { [ea ? 'exclusiveMinimum' : 'minimum']: lo }),
  ...(hi === undefined ? {} : { [eb ? 'exclusiveMaximum' : 'maximum']: hi }),
});

function inRange(t: string, lo: number | undefined, hi: number | undefined, ea: boolean, eb: boolean): boolean {
  return (lo === undefined || (ea ? compare(t, lo) > 0 : compare(t, lo) >= 0)) && (hi === undefined || (eb ? compare(t, hi) < 0 : compare(t, hi) <= 0));
}

test('integers: exactly the canonical multiples in range, negative ones too; ajv agrees', () => {
  const ajv = new Ajv2020({ strict: false });
  const bound = fc.option(fc.integer({ min: -400, max: 400 }), { nil: undefined });
  const divisor = fc.oneof(fc.integer({ min: 1, max: 40 }), fc.constantFrom(97, 125, 1000, 4096));
  const candidate = fc.oneof(fc.integer({ min: -5000, max: 5000 }).map(String), fc.constantFrom('-0', '00', '010', '1.0', '5e1', '+5', ''));
  fc.assert(
    fc.property(divisor, bound, bound, fc.boolean(), fc.boolean(), fc.array(candidate, { minLength: 15, maxLength: 15 }), (d, lo, hi, ea, eb, texts) => {
      const s = { type: 'integer', multipleOf: d, ...bounds(lo, hi, ea, eb) };
      const ok = orEmpty(s);
      const validate = ajv.compile(s);
      const expected = (t: string): boolean => /^(0|-?[1-9]\d*)$/.test(t) && isMultiple(t, d) && inRange(t, lo, hi, ea, eb);
      if (ok === null) return texts.every((t) => !expected(t));
      return texts.every((t) => ok(t) === expected(t) && (!expected(t) || validate(Number(t))));
    }),
    { numRuns: 80 },
  );
});

test('numbers: plain decimals that are exact multiples of a decimal step', () => {
  const step = fc.constantFrom(0.5, 0.25, 0.1, 0.01, 1.5, 2.5, 0.125, 3, 0.3, 7, 0.05, 12);
  const bound = fc.option(fc.integer({ min: -4000, max: 4000 }).map((x) => x / 100), { nil: undefined });
  const digits = (n: number): fc.Arbitrary<string> => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 1, maxLength: n });
  const candidate = fc.oneof(
    fc.tuple(fc.constantFrom('', '-'), fc.integer({ min: 0, max: 60 }), fc.option(digits(4), { nil: undefined })).map(([sign, int, frac]) => `${sign}${int}${frac === undefined ? '' : '.' + frac}`),
    fc.integer({ min: -200, max: 200 }).map((x) => String(x / 4)),
    fc.constantFrom('-0', '0.0', '1.', '.5', '01.5', '1e1', '2.5E0', '-0.00'),
  );
  fc.assert(
    fc.property(step, bound, bound, fc.boolean(), fc.boolean(), fc.array(candidate, { minLength: 15, maxLength: 15 }), (m, lo, hi, ea, eb, texts) => {
      const ok = orEmpty({ type: 'number', multipleOf: m, ...bounds(lo, hi, ea, eb) });
      const expected = (t: string): boolean => /^-?(0|[1-9]\d*)(\.\d+)?$/.test(t) && isMultiple(t, m) && inRange(t, lo, hi, ea, eb);
      if (ok === null) return texts.every((t) => !expected(t));
      return texts.every((t) => ok(t) === expected(t));
    }),
    { numRuns: 80 },
  );
});

test('examples: decimal steps, integers under a fractional step, steps of allOf parts', () => {
  const cases: [unknown, string[], string[]][] = [
    [{ type: 'number', multipleOf: 0.1 }, ['0.3', '0.30', '-1.7', '5', '0'], ['0.35', '0.01', '1e-1']],
    [{ type: 'number', multipleOf: 0.5, minimum: -1, maximum: 1 }, ['-1', '-0.5', '0', '0.50', '1.0'], ['1.5', '-1.5', '0.25']],
    [{ type: 'integer', multipleOf: 0.5 }, ['1', '-3', '0'], ['1.5', '-0']],
    [{ type: 'integer', multipleOf: 2.5 }, ['5', '-10', '0'], ['2', '7']],
    [{ allOf: [{ type: 'integer', multipleOf: 4 }, { multipleOf: 6, minimum: 0 }] }, ['0', '12', '36'], ['8', '6', '-12']],
    [{ type: ['integer', 'string'], multipleOf: 3 }, ['9', '"x"'], ['10']],
    [{ type: 'integer', multipleOf: 1000000 }, ['0', '3000000', '-1000000'], ['100000', '1000001']],
  ];
  for (const [s, yes, no] of cases) {
    const ok = schema(s);
    for (const t of yes) assert.ok(ok(t), `${JSON.stringify(s)} accepts ${t}`);
    for (const t of no) assert.not.ok(ok(t), `${JSON.stringify(s)} refuses ${t}`);
  }
});

test('a range without a multiple is an empty schema, named with its step', () => {
  assert.throws(() => schema({ type: 'integer', minimum: 1, maximum: 4, multipleOf: 5 }), /no integer in the range is a multiple of \(5\)/);
  assert.throws(() => schema({ type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 0.5, multipleOf: 0.5 }), /no number in the range is a multiple of \(0\.5\)/);
});

test.run();
