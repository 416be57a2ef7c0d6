// Numbers stay finite for parsers that read doubles: on an unbounded side an exponent form
// goes no higher than the largest double. (Integers have no exponent forms at all: pydantic
// refused `"rating": 4.99e204` from the default model under an `Optional[int]` field.)
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Grammar, GrammarCompiler, GrammarMatcher } from '../../compiler/index.js';
import { MAX_FINITE_EXPONENT } from '../../compiler/json-schema/numbers.js';

function accepts(schema: object, text: string): boolean {
  const matcher = new GrammarMatcher(new GrammarCompiler().compile(Grammar.fromJSONSchema(schema)));
  return matcher.acceptString(text) && matcher.isCompleted();
}

const largest = JSON.stringify(Number.MAX_VALUE); // 1.7976931348623157e+308

test('integers: never an exponent form, so never a float or Infinity', () => {
  assert.is(MAX_FINITE_EXPONENT, 308);
  for (const text of ['9.9e307', largest, '1e999', '-1e400', '2e30']) assert.not.ok(accepts({ type: 'integer' }, text), text);
  assert.ok(accepts({ type: 'integer', minimum: 5 }, '12345678901234567890123'));
});

test('numbers with a bound on one side: finite on the unbounded side', () => {
  for (const text of ['9.5e307', largest]) assert.ok(accepts({ type: 'number', minimum: 5 }, text), text);
  for (const text of ['1.8e308', '1e999']) assert.not.ok(accepts({ type: 'number', minimum: 5 }, text), text);
  assert.ok(accepts({ type: 'number', maximum: 5 }, `-${largest}`));
  assert.not.ok(accepts({ type: 'number', maximum: 5 }, '-1e999'));
});

test.run();
