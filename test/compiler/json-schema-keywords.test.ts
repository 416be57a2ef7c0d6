// The keywords enforced through conjunctions and built languages, against ajv as the oracle:
// for each schema, many candidate values (objects over a pool of keys that do and do not
// match its patterns, arrays, strings, numbers), written compactly with declared properties
// first in the schema's order; the grammar must accept exactly those ajv validates. The
// grammar runs with strictMode off, so both read absent keywords as JSON Schema does.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { ajvFor, dialectOf } from '../../compiler/json-schema/dialect.js';
import { schema as grammarFor } from './helpers.js';

const test = suite('json-schema-keywords');
const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';

const KEYS = ['a', 'ab', 'b', 'ba', 'abc', 'abcd', 'xy', 'xay', 'x', 'y', 'id', 'name', 'k', 'é', 'aé', 'Ab', 'a b', 'a"', 'a\\', 'z', 'az', '', '\n', 'xyz', 'k2'];
const SCALARS: unknown[] = [-3, 0, 5, 7, 12, 2.5, '', 'x', 'ab', 'bb', 'a', 'hello', 'a"b', true, false, null];
const scalar = fc.constantFrom(...SCALARS);
const value: fc.Arbitrary<unknown> = fc.oneof({ weight: 4, arbitrary: scalar }, fc.array(scalar, { maxLength: 3 }), fc.dictionary(fc.constantFrom('a', 'b'), scalar, { maxKeys: 2 }));
const object = fc.dictionary(fc.constantFrom(...KEYS), value, { maxKeys: 4 });
const array = fc.array(value, { maxLength: 5 });
const string = fc.oneof(fc.constantFrom('', 'a', 'ab', 'abc', 'abcd', 'xyz', 'a1', '2024-02-29', '2023-02-29', '2024-02-01', 'é', 'aé', 'a"b', 'a@b.co', 'ab@c.de', 'x@y', 'a@bc.de.f'), fc.string({ unit: fc.constantFrom('a', 'b', '1', 'é', '"', '-'), maxLength: 5 }));
const candidate = fc.oneof({ weight: 3, arbitrary: object }, array, string, scalar);

/** JSON with the declared keys of the top-level object first, in the given order. */
function write(v: unknown, order: string[]): string {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return JSON.stringify(v);
  const o = v as Record<string, unknown>;
  const keys = [...order.filter((k) => k in o), ...Object.keys(o).filter((k) => !order.includes(k))];
  return `{${keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify(o[k])}`).join(',')}}`;
}

/** `keys`: objects are drawn over these keys (and one more) too, so ones with all required keys come up. */
function agrees(name: string, s: Record<string, unknown>, order: string[] = [], extra: unknown[] = [], keys: string[] = []): void {
  const accepts = grammarFor(s, { strictMode: false });
  const validate = ajvFor(dialectOf(s)).compile(s);
  const own = keys.length > 0 ? fc.dictionary(fc.constantFrom(...keys, 'z'), value, { minKeys: 1, maxKeys: keys.length + 1 }) : candidate;
  const values = [...extra, ...fc.sample(fc.oneof(candidate, own), { numRuns: 400, seed: name.length * 7919 })];
  let valid = 0;
  for (const v of values) {
    const text = write(v, order);
    const expected = validate(v) as boolean;
    if (expected) valid++;
    assert.is(accepts(text), expected, `${name}: ${text} is ${expected ? 'valid' : 'invalid'} (ajv)`);
  }
  if (process.env.KEYWORD_STATS) console.log(`${name}: ${valid}/${values.length} valid`);
  assert.ok(valid >= 2 && values.length - valid >= 2, `${name}: both valid and invalid values must come up (${valid} of ${values.length} valid)`);
}

test('patternProperties with different schemas, with additionalProperties', () => {
  const s = { type: 'object', patternProperties: { '^a': { type: 'integer' }, 'b$': { type: 'integer', minimum: 0 }, '^x.*y$': { type: 'string' } }, additionalProperties: { type: 'boolean' } };
  agrees('patterns', s, [], [{ a: 1, ab: 5, xay: 's', z: true }, { ab: -3 }, { b: 0, x: false }, {}]);
});

test("a pattern property's (?i) applies to declared names too, as the grammar reads it (JavaScript's RegExp threw on it)", () => {
  const ok = grammarFor({ type: 'object', properties: { A: { type: 'string' }, b: { type: 'string' } }, patternProperties: { '(?i)^a': { type: 'integer' } } });
  assert.not.ok(ok('{"A": "x"}'), 'A matches the pattern too: a string and an integer at once');
  assert.not.ok(ok('{"A": 1}'));
  for (const text of ['{"b": "x"}', '{"AB": 3}', '{"ab": 3}', '{}']) assert.ok(ok(text), text);
  assert.not.ok(ok('{"ab": "s"}'));
});

test('properties, patterns matching declared names, additionalProperties false', () => {
  const s = { type: 'object', properties: { ab: { type: 'number', maximum: 10 }, name: { type: 'string' } }, patternProperties: { '^a': { type: 'integer' }, 'e$': { minLength: 2 } }, additionalProperties: false };
  agrees('declared+patterns', s, ['ab', 'name'], [{ ab: 5 }, { ab: 2.5 }, { name: 'x' }, { name: 'hello', a: 7 }, { abc: 12 }]);
});

test("keys named like Object.prototype's members (toString, constructor) are declared only where properties names them", () => {
  // They were read as declared with the prototype's function as their schema, which took any value.
  // (ajv is no oracle here: its `required` finds the prototype's toString on `{}`.)
  const ok = grammarFor({ type: 'object', required: ['toString', 'constructor'], properties: { a: { type: 'string' } }, additionalProperties: { type: 'integer' } });
  for (const text of ['{"toString": 1, "constructor": 2}', '{"a": "x", "toString": 1, "constructor": 2}']) assert.ok(ok(text), text);
  for (const text of ['{"toString": "x", "constructor": 2}', '{"toString": 1, "constructor": [3]}', '{"toString": 1}', '{}']) assert.not.ok(ok(text), text);
});

test('propertyNames: pattern and lengths, enum, const, anyOf', () => {
  agrees('names pattern', { type: 'object', properties: { id: { type: 'integer' } }, propertyNames: { pattern: '^[a-z]', maxLength: 3 }, additionalProperties: { type: 'string' } }, ['id'], [{ id: 5, ab: 'x' }, { abc: '' }, { abcd: '' }]);
  agrees('names enum', { type: 'object', propertyNames: { enum: ['a', 'b', 'é', 7] } }, [], [{ a: 1, é: null }, { b: [] }]);
  agrees('names const', { type: 'object', propertyNames: { const: 'k' }, additionalProperties: { type: 'integer' } }, [], [{ k: 5 }, { k: 'x' }]);
  agrees('names anyOf', { type: 'object', propertyNames: { minLength: 2, anyOf: [{ pattern: '^a' }, { pattern: 'z$' }] } }, [], [{ ab: 1, az: 2 }, { xyz: 0 }]);
  agrees('names false', { type: 'object', propertyNames: false }, [], [{}]);
});

test('unevaluatedProperties through allOf and $ref', () => {
  const s = {
    $defs: { withC: { properties: { k: { type: 'integer' } } } },
    type: 'object',
    allOf: [{ properties: { a: { type: 'integer' } } }, { $ref: '#/$defs/withC' }],
    properties: { b: { type: 'string' } },
    patternProperties: { '^x': true },
    unevaluatedProperties: { type: 'boolean' },
  };
  agrees('unevaluatedProperties', s, ['k', 'a', 'b'], [{ a: 5, b: 'x', xy: [], z: true }, { k: 7, y: false }]);
});

test('allOf: objects, types, enums, numeric bounds, $ref and anyOf with siblings', () => {
  agrees('allOf objects', { allOf: [{ type: 'object', properties: { a: { type: 'integer', minimum: 0 } }, required: ['a'] }, { properties: { a: { maximum: 5 }, b: { type: 'boolean' } }, additionalProperties: false }] }, ['a', 'b'], [{ a: 5 }, { a: 0, b: true }, { a: 7 }], ['a', 'b']);
  agrees('allOf types', { allOf: [{ type: ['integer', 'string'] }, { type: ['string', 'null'] }, { minLength: 2 }] }, [], ['ab', 'x']);
  agrees('allOf enum', { allOf: [{ enum: [1, 'a', 'bb', null] }, { type: 'string' }, { maxLength: 1 }] }, [], ['a', 'bb']);
  agrees('allOf bounds', { allOf: [{ type: 'number', minimum: 0 }, { exclusiveMaximum: 7 }, { multipleOf: 2.5 }] }, [], [0, 2.5, 5, 7.5]);
  agrees('$ref siblings', { $defs: { pos: { type: 'integer', minimum: 0 } }, $ref: '#/$defs/pos', maximum: 9 }, [], [0, 5, 12, -3]);
  agrees('anyOf siblings', { type: 'object', properties: { k: {} }, required: ['k'], additionalProperties: false, anyOf: [{ properties: { k: { const: 5 } } }, { properties: { k: { type: 'string' } } }] }, ['k'], [{ k: 5 }, { k: 'x' }, { k: 7 }], ['k']);
  agrees('anyOf beside anyOf', { allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }, { anyOf: [{ minimum: 5 }, { maxLength: 1 }] }], anyOf: [{ maximum: 7 }, { type: 'string' }] }, [], [5, 7, 12, 'a', 'ab', -3]);
  agrees('uniqueItems false, contentSchema', { type: 'array', uniqueItems: false, items: { type: 'string', contentMediaType: 'application/json', contentSchema: { type: 'object' } } }, [], [['x', 'x'], [1]]);
  agrees('oneOf siblings', { type: 'object', properties: { k: {}, a: {} }, oneOf: [{ properties: { k: { const: 'x' } }, required: ['k'] }, { properties: { k: { const: 'ab' }, a: { type: 'integer' } }, required: ['k', 'a'] }] }, ['k', 'a'], [{ k: 'x' }, { k: 'ab', a: 5 }, { k: 'ab' }], ['k', 'a']);
});

test('uniqueItems over a short list of values (a set of an Enum or of Literals): every order of distinct items, within the counts', () => {
  const perms = [['x'], ['x', 'ab'], ['ab', 'x'], ['x', 'x'], ['a', 'x', 'ab'], ['ab', 'ab', 'x'], ['a', 'ab', 'x', 'a'], [], ['hello']];
  agrees('unique enum', { type: 'array', items: { enum: ['x', 'ab', 'a'] }, uniqueItems: true }, [], perms);
  agrees('unique $ref enum, counted', { $defs: { Color: { title: 'Color', type: 'string', enum: ['x', 'ab', 'a', 'bb'] } }, type: 'array', items: { $ref: '#/$defs/Color' }, uniqueItems: true, minItems: 2, maxItems: 3 }, [], perms);
  agrees('unique booleans and null', { type: 'array', items: { type: ['boolean', 'null'] }, uniqueItems: true, minItems: 1 }, [], [[true], [true, false], [false, null, true], [true, true], [null, null], []]);
  // 5 and 5.0 are one value to JSON Schema: one of them, once.
  agrees('unique numbers, equal spellings', { type: 'array', items: { enum: [5, 5.0, 7, 'a'] }, uniqueItems: true }, [], [[5, 7], [7, 5], [5, 5], ['a', 5, 7]]);
  agrees('unique enum filtered by the item schema', { type: 'array', items: { enum: ['x', 'ab', 7], type: 'string', maxLength: 1 }, uniqueItems: true }, [], [['x'], ['ab'], [7], ['x', 'x']]);
  agrees('unique in an object, beside other properties', { type: 'object', properties: { tags: { type: 'array', items: { enum: ['a', 'b'] }, uniqueItems: true }, k: { type: 'integer' } }, required: ['tags'] }, ['tags', 'k'], [{ tags: ['a', 'b'], k: 5 }, { tags: ['b', 'b'] }, { tags: [] }], ['tags', 'k']);
  agrees('one item is always distinct', { type: 'array', items: { type: 'string' }, uniqueItems: true, maxItems: 1 }, [], [['x'], [], ['x', 'x']]);
});

test("OpenAPI 3.0's nullable, as OpenAI's SDKs write a zod .nullable(): null joins the type beside it, an enum still decides", () => {
  agrees('nullable property', { type: 'object', properties: { city: { type: 'string' }, mayor: { type: 'string', nullable: true } }, required: ['city', 'mayor'], additionalProperties: false }, ['city', 'mayor'], [{ city: 'x', mayor: null }, { city: 'x', mayor: 'a' }, { city: null, mayor: 'a' }], ['city', 'mayor']);
  agrees('nullable type list', { type: ['integer', 'boolean'], nullable: true }, [], [null, 5, true, 'x']);
  agrees('nullable enum without null', { type: 'string', enum: ['a', 'ab'], nullable: true }, [], [null, 'a', 'x']);
  agrees('nullable enum with null', { type: 'string', enum: ['a', null], nullable: true }, [], [null, 'a', 'ab']);
  agrees('nullable false', { type: 'string', nullable: false, maxLength: 2 }, [], [null, 'a', 'abc']);
  agrees('nullable in allOf', { allOf: [{ type: 'string', nullable: true }, { type: ['string', 'null'], maxLength: 1 }] }, [], [null, 'a', 'ab']);
});

test("OpenAPI's discriminator, as pydantic writes a discriminated union, is an annotation: the branches' consts decide", () => {
  const branch = (kind: string, field: string) => ({ type: 'object', properties: { kind: { const: kind }, [field]: { type: 'integer' } }, required: ['kind', field], additionalProperties: false });
  agrees('discriminator', { oneOf: [branch('a', 'x'), branch('b', 'y')], discriminator: { propertyName: 'kind', mapping: { a: '#/oneOf/0', b: '#/oneOf/1' } } }, ['kind', 'x', 'y'], [{ kind: 'a', x: 5 }, { kind: 'b', y: 5 }, { kind: 'a', y: 5 }], ['kind', 'x', 'y']);
});

test('arrays: draft-07 tuples with additionalItems, unevaluatedItems, allOf of arrays', () => {
  agrees('tuple draft-07', { $schema: DRAFT_07, type: 'array', items: [{ type: 'integer' }, { type: 'string' }], additionalItems: { type: 'boolean' }, maxItems: 4 }, [], [[5, 'x', true], [5], [5, 'x', 5]]);
  agrees('tuple without $schema', { type: 'array', items: [{ type: 'integer' }], additionalItems: false }, [], [[], [5], [5, 7]]);
  agrees('draft-07 items schema', { $schema: DRAFT_07, type: 'array', items: { type: 'integer' }, additionalItems: false }, [], [[5, 7], ['x']]);
  agrees('unevaluatedItems', { type: 'array', prefixItems: [{ type: 'integer' }], allOf: [{ prefixItems: [true, { type: 'string' }] }], unevaluatedItems: { type: 'null' } }, [], [[5, 'x', null, null], [5, 'x', 5]]);
  agrees('allOf arrays', { allOf: [{ type: 'array', items: { type: 'integer' } }, { maxItems: 2 }, { prefixItems: [{ minimum: 5 }] }] }, [], [[5, 0], [0], [7, 7, 7]]);
});

test('strings: pattern, format and length together', () => {
  agrees('pattern+length', { type: 'string', pattern: '^[a-z]+$', maxLength: 3 }, [], ['abc', 'abcd', '']);
  agrees('two patterns', { allOf: [{ type: 'string', pattern: 'a' }, { pattern: 'b' }] }, [], ['ab', 'ba', 'a']);
  agrees('format+pattern', { type: 'string', format: 'date', pattern: '-02-' }, [], ['2024-02-29', '2023-02-29']);
  agrees('format+length', { type: 'string', format: 'email', maxLength: 8 }, [], ['a@b.co', 'ab@c.de', 'abc@d.com']);
});

test('XML styles: a raw string value meets its pattern and length together', () => {
  const accepts = grammarFor({ type: 'object', properties: { s: { type: 'string', pattern: '^a+$', maxLength: 3 } }, required: ['s'] }, { style: 'qwen_xml' });
  assert.ok(accepts('<parameter=s>aaa</parameter>'));
  assert.not.ok(accepts('<parameter=s>aaaa</parameter>'));
  assert.not.ok(accepts('<parameter=s>ab</parameter>'));
  // A value two parts constrain is JSON, meeting both.
  const both = grammarFor({ type: 'object', properties: { n: { allOf: [{ type: 'integer' }, { minimum: 5 }] } }, required: ['n'] }, { style: 'qwen_xml' });
  assert.ok(both('<parameter=n>7</parameter>'));
  assert.not.ok(both('<parameter=n>3</parameter>'));
  assert.not.ok(both('<parameter=n>x</parameter>'));
});

test.run();
