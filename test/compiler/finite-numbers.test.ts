// Integers in exponent form, and numbers with a bound, stay finite for parsers that read
// doubles: pydantic refused `"rating": 1e999` (Infinity) from the default model under an
// `Optional[int]` field. The exponent of such forms is at most MAX_FINITE_EXPONENT.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Grammar, GrammarCompiler, GrammarMatcher } from '../../compiler/index.js';
import { MAX_FINITE_EXPONENT } from '../../compiler/json-schema/numbers.js';

function accepts(schema: object, text: string): boolean {
  const matcher = new GrammarMatcher(new GrammarCompiler().compile(Grammar.fromJSONSchema(schema)));
  return matcher.acceptString(text) && matcher.isCompleted();
}

const largest = JSON.stringify(Number.MAX_VALUE); // 1.7976931348623157e+308

test('integers: exponent forms up to the largest double, not beyond', () => {
  assert.is(MAX_FINITE_EXPONENT, 308);
  for (const text of ['9.9e307', largest, `-${largest}`, '1.7e308', '-2e30']) assert.ok(accepts({ type: 'integer' }, text), text);
  for (const text of ['1.8e308', '9e308', '1e309', '1e999', '-1e400', '1E+0400']) assert.not.ok(accepts({ type: 'integer' }, text), text);
});

test('numbers with a bound on one side: finite on the unbounded side', () => {
  for (const text of ['9.5e307', largest]) assert.ok(accepts({ type: 'number', minimum: 5 }, text), text);
  for (const text of ['1.8e308', '1e999']) assert.not.ok(accepts({ type: 'number', minimum: 5 }, text), text);
  assert.ok(accepts({ type: 'number', maximum: 5 }, `-${largest}`));
  assert.not.ok(accepts({ type: 'number', maximum: 5 }, '-1e999'));
});

test.run();
