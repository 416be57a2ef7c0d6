// Every error path of the JSON Schema front end: each names the offending keyword by pointer.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Grammar, GrammarError, type JsonSchemaOptions } from '../../compiler/index.js';

const test = suite('json-schema-errors');

function fails(schema: unknown, pointer: string, message: RegExp, options: JsonSchemaOptions = {}): void {
  try {
    Grammar.fromJSONSchema(schema, options);
  } catch (e) {
    assert.instance(e, GrammarError);
    const err = e as GrammarError;
    assert.equal(err.location, { kind: 'pointer', pointer }, err.message);
    assert.match(err.message, message);
    assert.ok(err.message.startsWith(`${pointer || '/'}: `), err.message);
    return;
  }
  throw new Error(`expected ${JSON.stringify(schema)} to fail at ${pointer}`);
}

test('a GrammarError is the caller\'s: 400 invalid_grammar for a library user reading its fields, as the server answers it', () => {
  try {
    Grammar.fromJSONSchema({ type: 'intger' });
    assert.unreachable('an unknown type compiled');
  } catch (e) {
    assert.instance(e, GrammarError);
    const err = e as GrammarError;
    assert.equal([err.status, err.type, err.code, err.userFacing], [400, 'invalid_request_error', 'invalid_grammar', true]);
  }
});

test('a text front end given no string says so, not a TypeError from inside its parser', () => {
  assert.throws(() => Grammar.fromEBNF(undefined as unknown as string), (e: unknown) => e instanceof GrammarError && /Grammar.fromEBNF takes EBNF text as a string, got undefined/.test(e.message));
  assert.throws(() => Grammar.fromRegex(42 as unknown as string), (e: unknown) => e instanceof GrammarError && /Grammar.fromRegex takes a regular expression as a string, got number/.test(e.message));
});

test("a patternProperties pattern too large for an automaton, in a syntax only JavaScript's older mode reads (\\-), is the limit's error at /patternProperties, not a RegExp SyntaxError", () => {
  const name = `${'a'.repeat(17)}c-`;
  for (const pattern of ['(a|b)*a(a|b){16}c\\-', '(?i)(a|b)*A(a|b){16}c\\-']) {
    fails({ type: 'object', properties: { [name]: { type: 'string' } }, patternProperties: { [pattern]: { type: 'integer' } } }, '/patternProperties', /need more than 50000 automaton states/);
  }
});

test('assertions a grammar cannot enforce are named by pointer', () => {
  fails({ type: 'object', properties: { age: { type: 'integer', multipleOf: 1234567 } } }, '/properties/age/multipleOf', /'multipleOf' \(1234567\) needs more than 20000 automaton states/);
  fails({ type: 'integer', multipleOf: 9973, minimum: 0, maximum: 1e12 }, '/multipleOf', /together with the bounds needs more than 50000 automaton states/);
  fails({ not: { type: 'string' } }, '/not', /'not'/);
  fails({ if: { type: 'string' }, then: { minLength: 1 } }, '/if', /'if'/);
  fails({ type: 'array', items: { contains: { const: 1 } } }, '/items/contains', /'contains'/);
  // Any items (strict mode would allow none here: only [], distinct).
  fails({ type: 'array', uniqueItems: true }, '/uniqueItems', /'uniqueItems'/, { strictMode: false });
  // More distinct items than the items can take: an empty language before any output.
  fails({ type: 'array', items: { enum: [1, 2, 3, 4, 5, 6, 7, 8, 9] }, uniqueItems: true, minItems: 10 }, '', /'minItems' is 10, but with 'uniqueItems' the items take at most 9 distinct values/);
  fails({ type: 'array', items: { type: 'integer', minimum: 0, exclusiveMaximum: 10 }, uniqueItems: true, minItems: 11 }, '', /'minItems' is 11, but with 'uniqueItems' the items take at most 10 distinct values/);
  // Items that can be objects or arrays: the guard compares scalars only.
  fails({ type: 'array', items: { enum: [{ a: 1 }, { a: 2 }] }, uniqueItems: true }, '/uniqueItems', /only for items that are scalars/);
  fails({ type: 'array', items: { type: ['string', 'object'] }, uniqueItems: true }, '/uniqueItems', /only for items that are scalars/);
  fails({ type: 'array', prefixItems: [{ const: 1 }], items: { enum: [1, 2] }, uniqueItems: true }, '/uniqueItems', /beside leading items/);
  fails({ type: 'array', items: { enum: ['a', 'b'] }, uniqueItems: true, minItems: 3 }, '', /'minItems' is 3, but with 'uniqueItems' the items take only 2 distinct values/);
  fails({ properties: { a: { nullable: true, minLength: 1 } } }, '/properties/a/nullable', /'nullable' adds null to the 'type' beside it, and there is none here/);
  fails({ type: 'string', nullable: 'yes' }, '/nullable', /must be (true or false|boolean)/);
  fails({ type: ['string', 'null'], nullable: false }, '/nullable', /'nullable': false contradicts the 'type' beside it/);
  // A required discriminator parts objects only: without a type both branches match [], "s" or null (the grammar took them).
  const branch = (kind: string) => ({ properties: { kind: { const: kind } }, required: ['kind'] });
  fails({ oneOf: [branch('x'), branch('y')] }, '/oneOf', /branches 0 and 1 may both match a value/);
  fails({ type: 'object', nullable: true, oneOf: [branch('x'), branch('y')] }, '/oneOf', /branches 0 and 1 may both match a value/);
  fails({ type: 'object', anyOf: [{ properties: { a: { type: 'string' } } }, { required: ['b'] }], unevaluatedProperties: false }, '/unevaluatedProperties', /beside 'anyOf' or 'oneOf'/);
  fails({ allOf: [{ $ref: '#' }], type: 'string' }, '', /part of itself/);
  fails({ $defs: { a: { type: 'object', dependentRequired: { x: ['y'] } } } }, '/$defs/a/dependentRequired', /'dependentRequired'/);
  fails({ type: 'string', format: 'regex' }, '/format', /format 'regex' is not supported \(supported: .*, byte, int32, int64, float, double, binary, password\)/);
  fails({ type: 'integer', format: 'int32', minimum: 1e10 }, '/format', /the format 'int32' leaves no integer within the bounds beside it/);
  fails({ type: 'string', myKeyword: 1 }, '/myKeyword', /'myKeyword' cannot be enforced/);
});

test('a schema that is not valid JSON Schema', () => {
  fails({ type: 'object', properties: { age: { minimum: 'ten' } } }, '/properties/age/minimum', /not a valid JSON schema: must be number/);
  fails({ type: 'strange' }, '/type', /not a valid JSON schema/);
  fails([1, 2], '', /must be an object or a boolean/);
  fails('text', '', /must be an object or a boolean/);
});

test('references', () => {
  fails({ $ref: 'http://example.com/s.json' }, '/$ref', /only local references/);
  fails({ properties: { a: { $ref: '#/$defs/missing' } }, type: 'object' }, '/properties/a/$ref', /does not resolve/);
  fails({ $ref: '#/$defs/a', $defs: { a: { $ref: '#/$defs/a' } } }, '/$defs/a/$ref', /leads to itself/, { style: 'qwen_xml' });
  fails({ type: 'object', properties: { a: { $ref: '#/$defs/b', minimum: 5 } }, required: ['a'], $defs: { b: { type: 'integer', maximum: 3 } } }, '/properties/a', /'minimum' \(5\) is greater than 'maximum' \(3\)/);
});

test('combinators', () => {
  fails({ oneOf: [{ type: 'integer' }, { type: 'number' }] }, '/oneOf', /branches 0 and 1 may both match/);
  fails({ oneOf: [{ type: 'object', properties: { a: { type: 'string' } } }, { type: 'object' }] }, '/oneOf', /may both match/);
  fails({ type: 'string', anyOf: [{ type: 'integer' }] }, '/anyOf/0', /have no type in common/);
  const tenWays = { anyOf: Array.from({ length: 10 }, (_, i) => ({ properties: { [`k${i}`]: { minimum: i } } })) };
  fails({ allOf: [tenWays, tenWays, tenWays, tenWays] }, '/allOf/0/anyOf', /multiply out to 10000 branches \(the limit is 1024\)/);
});

test('strings', () => {
  fails({ type: 'string', pattern: '^a$', format: 'date' }, '', /'pattern' "\^a\$", 'format' "date" leave no string/);
  fails({ type: 'string', pattern: '^a+$', minLength: 3, maxLength: 2 }, '', /'minLength' \(3\) is greater than 'maxLength' \(2\)/);
  // A maximum is counted by the matcher (ir.ts UnitCount); a minimum is still built into the automaton.
  fails({ type: 'string', pattern: 'a', minLength: 20000 }, '/pattern', /together need more than 50000 automaton states/);
  fails({ type: 'object', properties: { p: { type: 'string', pattern: '(a)\\1' } } }, '/properties/p/pattern', /back-reference/);
  fails({ type: 'string', pattern: '(?:(?=a)b)' }, '/pattern', /lookahead inside a group/);
});

test('objects', () => {
  fails({ type: 'object', properties: { xa: { type: 'string' } }, required: ['xa'], patternProperties: { '^x': { type: 'integer' } } }, '/properties/xa', /the parts' 'type' keywords \("string", "integer"\) have no type in common/);
  fails({ type: 'object', required: ['ab'], propertyNames: { maxLength: 1 } }, '', /the property 'ab' is required, but 'propertyNames' does not accept it/);
});

test('XML styles', () => {
  fails({ type: 'string' }, '', /needs an object schema/, { style: 'qwen_xml' });
  fails({ type: 'object', anyOf: [{ required: ['a'] }, { required: ['b'] }] }, '/anyOf', /'anyOf' on the top-level object is not supported with the 'glm_xml' style/, { style: 'glm_xml' });
  fails({ type: 'object', properties: { t: { type: 'array', prefixItems: [{ type: 'string' }] } } }, '/properties/t/prefixItems', /not supported inside a 'cohere_xml' value/, { style: 'cohere_xml' });
  fails({ type: 'object', properties: { t: { type: 'array', items: { type: 'string' }, minItems: 2, maxItems: 1 } }, required: ['t'] }, '/properties/t', /'minItems' \(2\) is greater than 'maxItems' \(1\)/, { style: 'cohere_xml' });
  fails({ type: 'object', required: ['ab'], propertyNames: { maxLength: 1 } }, '', /the property 'ab' is required, but 'propertyNames' does not accept it/, { style: 'kimi_k3_xml' });
  fails({ type: 'object' }, '', /unknown style 'yaml'/, { style: 'yaml' as 'json' });
});

test.run();
