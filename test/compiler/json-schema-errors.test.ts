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

test('assertions a grammar cannot enforce are named by pointer', () => {
  fails({ type: 'object', properties: { age: { type: 'integer', multipleOf: 5 } } }, '/properties/age/multipleOf', /'multipleOf' cannot be enforced/);
  fails({ allOf: [{ type: 'integer' }] }, '/allOf', /'allOf'/);
  fails({ not: { type: 'string' } }, '/not', /'not'/);
  fails({ if: { type: 'string' }, then: { minLength: 1 } }, '/if', /'if'/);
  fails({ type: 'array', items: { contains: { const: 1 } } }, '/items/contains', /'contains'/);
  fails({ type: 'array', uniqueItems: true }, '/uniqueItems', /'uniqueItems'/);
  fails({ type: 'object', propertyNames: { maxLength: 3 } }, '/propertyNames', /'propertyNames'/);
  fails({ $defs: { a: { type: 'object', dependentRequired: { x: ['y'] } } } }, '/$defs/a/dependentRequired', /'dependentRequired'/);
  fails({ anyOf: [{ type: 'string', unevaluatedProperties: false }] }, '/anyOf/0/unevaluatedProperties', /cannot be enforced/);
  fails({ type: 'string', format: 'hostname' }, '/format', /format 'hostname' is not supported/);
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
  fails({ type: 'object', properties: { a: { $ref: '#/$defs/b', minimum: 1 } }, $defs: { b: { type: 'integer' } } }, '/properties/a/minimum', /next to '\$ref'/);
});

test('combinators', () => {
  fails({ anyOf: [{ type: 'string' }], oneOf: [{ type: 'string' }] }, '/oneOf', /cannot be combined/);
  fails({ oneOf: [{ type: 'integer' }, { type: 'number' }] }, '/oneOf', /branches 0 and 1 may both match/);
  fails({ oneOf: [{ type: 'object', properties: { a: { type: 'string' } } }, { type: 'object' }] }, '/oneOf', /may both match/);
  fails({ type: 'string', anyOf: [{ type: 'integer' }] }, '/type', /clashes/);
  fails({ type: 'object', additionalProperties: false, anyOf: [{ properties: { a: { type: 'string' } } }] }, '/additionalProperties', /interacts with 'properties'/);
});

test('strings', () => {
  fails({ type: 'string', pattern: '^a$', format: 'date' }, '/format', /together with 'pattern'/);
  fails({ type: 'string', pattern: '^a+$', maxLength: 3 }, '/maxLength', /length limit together with 'pattern'/);
  fails({ type: 'string', format: 'email', minLength: 3 }, '/minLength', /together with 'format'/);
  fails({ type: 'object', properties: { p: { type: 'string', pattern: '(a)\\1' } } }, '/properties/p/pattern', /back-reference/);
  fails({ type: 'string', pattern: '(?=a)b' }, '/pattern', /lookahead/);
});

test('objects', () => {
  fails({ type: 'object', patternProperties: { '^x': { type: 'integer' } }, additionalProperties: true }, '/additionalProperties', /next to 'patternProperties'/);
  fails({ type: 'object', patternProperties: { '^x': { type: 'integer' }, '^y': { type: 'string' } } }, '/patternProperties', /different schemas/);
  fails({ type: 'object', properties: { xa: { type: 'string' } }, patternProperties: { '^x': { type: 'integer' } } }, '/patternProperties/^x', /matches the declared property 'xa'/);
});

test('XML styles', () => {
  fails({ type: 'string' }, '', /needs an object schema/, { style: 'qwen_xml' });
  fails({ type: 'object', patternProperties: { '^a': { type: 'string' } } }, '/patternProperties', /not supported with the 'glm_xml' style/, { style: 'glm_xml' });
  fails({ type: 'object' }, '', /unknown style 'yaml'/, { style: 'yaml' as 'json' });
});

test.run();
