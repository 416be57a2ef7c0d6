// Digit runs that no bound fixes are bounded (MAX_FREE_DIGITS), so a model cannot write digits
// until max_tokens: under a JSON schema's integer and number, ranged or not, with multipleOf,
// in any-value positions, and in the built-in JSON grammars. Every 64-bit integer and every
// double as JavaScript and Python spell it still fits.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type CompiledGrammar, Grammar, GrammarCompiler, GrammarMatcher } from '../../compiler/index.js';
import { MAX_FREE_DIGITS } from '../../compiler/json-schema/numbers.js';

const compiler = new GrammarCompiler();
const schema = (s: object): CompiledGrammar => compiler.compile(Grammar.fromJSONSchema(s));

/** How many `digit`s the grammar takes in a row after `prefix`; `limit` means it never refused. */
function longestRun(grammar: CompiledGrammar, prefix: string, digit: string, limit = 200): number {
  const matcher = new GrammarMatcher(grammar);
  assert.ok(matcher.acceptString(prefix), `the prefix ${JSON.stringify(prefix)}`);
  for (let n = 0; n < limit; n++) if (!matcher.acceptString(digit)) return n;
  return limit;
}

function accepts(grammar: CompiledGrammar, text: string): boolean {
  const matcher = new GrammarMatcher(grammar);
  return matcher.acceptString(text) && matcher.isCompleted();
}

test('every free digit run ends: integers, fractions, exponents, zeros', () => {
  assert.is(MAX_FREE_DIGITS, 24);
  const cases: [object | 'json' | 'json_object', string, string][] = [
    [{ type: 'integer' }, '1', '0'],
    [{ type: 'integer' }, '-9', '9'],
    [{ type: 'integer', minimum: 0 }, '7', '7'],
    [{ type: 'integer', maximum: 5 }, '-1', '1'],
    [{ type: 'integer', multipleOf: 3 }, '1', '2'],
    [{ type: 'number' }, '1', '0'],
    [{ type: 'number' }, '0.', '3'],
    [{ type: 'number' }, '1e', '0'],
    [{ type: 'number', minimum: 0, maximum: 1 }, '0.', '3'],
    [{ type: 'number', exclusiveMinimum: 0 }, '0.', '0'],
    [{ type: 'number', minimum: 5 }, '12.', '5'],
    [{ type: 'number', minimum: 5 }, '1.5e', '0'],
    [{ type: 'number', maximum: 0 }, '-0.', '0'],
    [{ type: 'number', multipleOf: 0.5 }, '2.', '0'],
    [{ type: 'object', properties: { rating: { type: ['integer', 'null'] } }, required: ['rating'] }, '{"rating": 1', '0'],
    [{}, '[1.', '5'],
    ['json', '1', '0'],
    ['json', '0.', '1'],
    ['json_object', '{"a": 1e', '1'],
  ];
  for (const [s, prefix, digit] of cases) {
    const grammar = s === 'json' ? compiler.compile(Grammar.builtinJSON()) : s === 'json_object' ? compiler.compile(Grammar.builtinJSONObject()) : schema(s);
    const run = longestRun(grammar, prefix, digit);
    const what = `${JSON.stringify(s)} after ${JSON.stringify(prefix)}`;
    assert.ok(run <= MAX_FREE_DIGITS + 1, `${what}: ${run} '${digit}' in a row`);
    assert.ok(run >= MAX_FREE_DIGITS - 4, `${what}: only ${run} '${digit}' in a row`);
  }
});

test('every 64-bit integer and every double as JavaScript and Python write it still fits', () => {
  const integer = schema({ type: 'integer' });
  for (const text of ['-9223372036854775808', '9223372036854775807', '18446744073709551615', '0', '-1']) assert.ok(accepts(integer, text), text);
  const doubles = [Number.MAX_VALUE, -Number.MAX_VALUE, Number.MIN_VALUE, 0.1 + 0.2, 1e21 - 65536, 123456789012345680000, 1.2345678901234567e-6, 1e-7, Number.MAX_SAFE_INTEGER, Math.PI];
  const python = ['1e-05', '1.2345678901234567e+16', '0.00012345678901234567', '1.7976931348623157e+308', '5e-324', '3.141592653589793'];
  const spellings = [...doubles.map((x) => JSON.stringify(x)), ...python];
  for (const grammar of [schema({ type: 'number' }), compiler.compile(Grammar.builtinJSON()), schema({})]) {
    for (const text of spellings) assert.ok(accepts(grammar, text), text);
  }
  const ranged = schema({ type: 'number', minimum: -Number.MAX_VALUE, maximum: Number.MAX_VALUE });
  for (const text of spellings) assert.ok(accepts(ranged, text), `ranged: ${text}`);
});

test.run();
