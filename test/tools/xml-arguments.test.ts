// Reading XML-style parameters back: where the grammar let both a string and another type
// through (anyOf, type arrays, enums without type), the text is the other type when it is JSON
// of it that the schema allows as the grammar reads it, else the string as written; typed
// styles read their type attributes, cohere_xml recursively, attribute values with their
// entities decoded.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Grammar, GrammarCompiler, GrammarMatcher, type JsonSchemaStyle, xmlParameterSchema } from '../../compiler/index.js';
import { XML_READERS } from '../../runtime/chat-format/xml-arguments.js';

const test = suite('xml arguments');

const read = (style: string, text: string, schema: unknown, root: unknown = {}) => XML_READERS[style]!.read(text, 0, () => schema, root);
const q = (v: string) => `<parameter=v>${v}</parameter>`;

test('untyped styles: the schema decides between a string and another type', () => {
  const intOrAll = { anyOf: [{ type: 'integer' }, { const: 'all' }] };
  assert.is(read('qwen_xml', q('\n5\n'), intOrAll)?.value, 5);
  assert.is(read('qwen_xml', q('\nall\n'), intOrAll)?.value, 'all');
  const nullable = { type: ['string', 'null'] };
  assert.is(read('qwen_xml', q('null'), nullable)?.value, null);
  assert.is(read('qwen_xml', q('"Paris"'), nullable)?.value, '"Paris"', 'a JSON string is a string as written, quotes included');
  // OpenAPI's nullable, as OpenAI's SDKs write a zod .nullable(): null is null, as with the type list ("null" before).
  for (const type of ['integer', 'boolean', 'object', 'string']) assert.is(read('qwen_xml', q('null'), { type, nullable: true })?.value, null, type);
  assert.is(read('minimax_xml', '<parameter name="v">null</parameter>', { type: 'boolean', nullable: true })?.value, null);
  assert.is(read('glm_xml', '<arg_key>v</arg_key><arg_value>null</arg_value>', { allOf: [{ type: 'integer', nullable: true }, { type: ['null', 'string'] }] })?.value, null);
  assert.is(read('qwen_xml', q('null'), { type: 'string', nullable: false })?.value, 'null');
  assert.is(read('qwen_xml', q('5'), { type: 'string' })?.value, '5', 'a string schema keeps digits a string');
  assert.is(read('qwen_xml', q('true'), { type: ['string', 'integer'] })?.value, 'true', 'JSON of a type the schema does not allow is the string');
  assert.is(read('qwen_xml', q('2.5'), { anyOf: [{ type: 'string' }, { type: 'integer' }] })?.value, '2.5');
  assert.is(read('qwen_xml', q('\nred\n'), { enum: ['red', 'green'] })?.value, 'red', 'an enum without type, framed');
  assert.equal(read('minimax_xml', '<parameter name="v">[1, 2]</parameter>', {})?.value, [1, 2]);
  const viaRef = { $ref: '#/$defs/n' };
  assert.is(read('glm_xml', '<arg_key>v</arg_key><arg_value>7</arg_value>', viaRef, { $defs: { n: { type: 'integer' } } })?.value, 7);
  assert.is(read('glm_xml', '<arg_key>v</arg_key><arg_value>7</arg_value>', viaRef, { $defs: { n: { type: 'string' } } })?.value, '7');
  assert.is(read('qwen_xml', '<parameter=v>unfinished', {}), null, 'an unfinished parameter is not read');
});

test('untyped styles: a number the schema\'s numeric branches refuse, where a string is allowed, is the string the grammar let through', () => {
  const cases: [unknown, string, unknown][] = [
    [{ anyOf: [{ type: 'string' }, { type: 'integer', minimum: 10 }] }, '5', '5'],
    [{ anyOf: [{ type: 'string' }, { type: 'integer', minimum: 10 }] }, '12', 12],
    [{ anyOf: [{ type: 'string' }, { type: 'number', exclusiveMaximum: 1 }] }, '1', '1'],
    [{ anyOf: [{ type: 'string' }, { type: 'number', exclusiveMaximum: 1 }] }, '0.5', 0.5],
    [{ anyOf: [{ type: 'string' }, { type: 'integer', multipleOf: 5 }] }, '7', '7'],
    [{ anyOf: [{ type: 'string' }, { type: 'integer', multipleOf: 5 }] }, '15', 15],
    [{ anyOf: [{ type: 'string' }, { enum: [1, 2] }] }, '3', '3'],
    [{ anyOf: [{ type: 'string' }, { enum: [1, 2] }] }, '2', 2],
    // Bounds beside a $ref, and in an allOf member.
    [{ type: ['string', 'integer'], allOf: [{ maximum: 3 }] }, '4', '4'],
    [{ type: ['string', 'integer'], allOf: [{ maximum: 3 }] }, '3', 3],
  ];
  for (const [property, value, expected] of cases) {
    const args = { type: 'object', properties: { v: property }, required: ['v'] };
    const text = q(value);
    const m = new GrammarMatcher(new GrammarCompiler().compile(Grammar.fromJSONSchema(args, { style: 'qwen_xml' })));
    assert.ok(m.acceptString(text) && m.isCompleted(), `the grammar takes ${text}`);
    assert.equal(read('qwen_xml', text, property, args)?.value, expected, `${JSON.stringify(property)}: ${value}`);
  }
  // Without a string to fall back on, the number stays (the grammar took it as one).
  assert.is(read('qwen_xml', q('4'), { type: 'integer', maximum: 3 })?.value, 4);
});

/** The arguments schema with `v` of this schema, required. */
const withV = (v: unknown) => ({ type: 'object', properties: { v }, required: ['v'] });

/**
 * Each text is taken by the tool grammar (a structural tag, as a tool call compiles: strict
 * mode, open bare objects), and `v` reads back as the value expected, its schema as the tool
 * call parser gives it (xmlParameterSchema).
 */
function readsAsTheGrammarTook(cases: [args: Record<string, unknown>, value: string, expected: unknown][]): void {
  for (const [args, value, expected] of cases) {
    const text = q(value);
    const m = new GrammarMatcher(new GrammarCompiler().compile(Grammar.fromStructuralTag({ type: 'structural_tag', format: { type: 'json_schema', json_schema: args, style: 'qwen_xml' } })));
    assert.ok(m.acceptString(text) && m.isCompleted(), `the grammar takes ${text} under ${JSON.stringify(args)}`);
    assert.equal(XML_READERS.qwen_xml!.read(text, 0, (key) => xmlParameterSchema(args, key), args)?.value, expected, `${JSON.stringify(args)}: ${value}`);
  }
}

test('untyped styles: an object, array or constant the schema refuses, where a string is allowed, is the string the grammar let through', () => {
  const needsA = { type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] };
  const closed = { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false };
  const pair = { type: 'array', items: { type: 'integer' }, minItems: 2 };
  readsAsTheGrammarTook([
    [withV({ anyOf: [{ type: 'string' }, needsA] }), '{}', '{}'],
    [withV({ anyOf: [{ type: 'string' }, needsA] }), '{"a": 1}', { a: 1 }],
    [withV({ anyOf: [{ type: 'string' }, needsA] }), '{"a": "x"}', '{"a": "x"}'],
    [withV({ anyOf: [{ type: 'string' }, pair] }), '[1]', '[1]'],
    [withV({ anyOf: [{ type: 'string' }, pair] }), '[1, 2]', [1, 2]],
    [withV({ anyOf: [{ type: 'string' }, closed] }), '{"b": 1}', '{"b": 1}'],
    [withV({ anyOf: [{ type: 'string' }, closed] }), '{"a": "x"}', { a: 'x' }],
    [withV({ anyOf: [{ type: 'string' }, { type: 'boolean', const: true }] }), 'false', 'false'],
    [withV({ anyOf: [{ type: 'string' }, { type: 'boolean', const: true }] }), 'true', true],
    [withV({ anyOf: [{ type: 'string' }, { const: null }] }), 'null', null],
    [withV({ type: ['string', 'array'], items: { type: 'object', properties: { n: { type: 'integer', maximum: 3 } } } }), '[{"n": 4}]', '[{"n": 4}]'],
    [withV({ type: ['string', 'array'], items: { type: 'object', properties: { n: { type: 'integer', maximum: 3 } } } }), '[{"n": 3}]', [{ n: 3 }]],
    // Patterns as the grammar reads them: a leading (?i), and one only JavaScript's older mode takes.
    [withV({ anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string', pattern: '(?i)^x\\-' } }] }), '["X-a"]', ['X-a']],
    [withV({ anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string', pattern: '(?i)^x\\-' } }] }), '["y"]', '["y"]'],
    // OpenAPI's nullable: null joins the object's type, and the object keeps its keywords.
    [withV({ anyOf: [{ type: 'string' }, { ...needsA, nullable: true }] }), 'null', null],
    [withV({ anyOf: [{ type: 'string' }, { ...needsA, nullable: true }] }), '{}', '{}'],
  ]);
});

test('untyped styles: strict mode closes objects and arrays as the tool grammar does', () => {
  readsAsTheGrammarTook([
    // Keys beyond those named, without additionalProperties, went through as a string.
    [withV({ anyOf: [{ type: 'string' }, { type: 'object', properties: { a: { type: 'integer' } } }] }), '{"a": 1, "b": 2}', '{"a": 1, "b": 2}'],
    [withV({ anyOf: [{ type: 'string' }, { type: 'object', properties: { a: { type: 'integer' } }, patternProperties: { '^x-': { type: 'integer' } } }] }), '{"a": 1, "x-b": 2}', { a: 1, 'x-b': 2 }],
    // An object that names no key takes any (open bare objects); an array without items takes none.
    [withV({ anyOf: [{ type: 'string' }, { type: 'object' }] }), '{"b": 2}', { b: 2 }],
    [withV({ anyOf: [{ type: 'string' }, { type: 'array' }] }), '[1]', '[1]'],
    [withV({ anyOf: [{ type: 'string' }, { type: 'array' }] }), '[]', []],
    [withV({ anyOf: [{ type: 'string' }, { type: 'array', prefixItems: [{ type: 'integer' }] }] }), '[1, 2]', '[1, 2]'],
    [withV({ anyOf: [{ type: 'string' }, { type: 'array', prefixItems: [{ type: 'integer' }] }] }), '[1]', [1]],
    // Key patterns as the grammar reads them.
    [withV({ anyOf: [{ type: 'string' }, { type: 'object', patternProperties: { '(?i)^x\\-': { type: 'integer' } } }] }), '{"X-a": 1}', { 'X-a': 1 }],
    [withV({ anyOf: [{ type: 'string' }, { type: 'object', patternProperties: { '(?i)^x\\-': { type: 'integer' } } }] }), '{"y": 1}', '{"y": 1}'],
    // Listed values are as they are listed.
    [withV({ anyOf: [{ type: 'string' }, { enum: [[1, 2], { b: 1 }] }] }), '[1, 2]', [1, 2]],
    [withV({ anyOf: [{ type: 'string' }, { type: 'object', properties: { a: {} }, enum: [{ b: 1 }] }] }), '{"b": 1}', { b: 1 }],
    [withV({ anyOf: [{ type: 'string' }, { enum: [[1, 2], { b: 1 }] }] }), '[1]', '[1]'],
    // A branch is closed together with the keys beside the anyOf.
    [withV({ properties: { a: { type: 'integer' } }, anyOf: [{ type: 'string' }, { type: 'object', properties: { b: { type: 'integer' } } }] }), '{"a": 1, "b": 2}', { a: 1, b: 2 }],
    [withV({ properties: { a: { type: 'integer' } }, anyOf: [{ type: 'string' }, { type: 'object', properties: { b: { type: 'integer' } } }] }), '{"c": 1}', '{"c": 1}'],
  ]);
});

test("untyped styles: references in a parameter's schema are read in the arguments schema", () => {
  const needsA = { type: 'object', properties: { a: { type: 'integer', minimum: 1 } }, required: ['a'] };
  const viaDefs = { ...withV({ anyOf: [{ type: 'string' }, { $ref: '#/$defs/A' }] }), $defs: { A: needsA } };
  const viaDefinitions = { $schema: 'http://json-schema.org/draft-07/schema#', ...withV({ anyOf: [{ type: 'string' }, { $ref: '#/definitions/A' }] }), definitions: { A: needsA } };
  const viaProperty = { type: 'object', properties: { w: needsA, v: { anyOf: [{ type: 'string' }, { $ref: '#/properties/w' }] } }, required: ['v'] };
  // Arguments built from allOf members (as pydantic writes them), each giving v a part: the keys
  // of both parts are v's.
  const viaRootAllOf = {
    allOf: [{ $ref: '#/$defs/Base' }, { type: 'object', properties: { v: { properties: { b: { type: 'integer' } } } } }],
    $defs: { Base: { type: 'object', properties: { v: { anyOf: [{ type: 'string' }, { $ref: '#/$defs/A' }] } }, required: ['v'] }, A: needsA },
  };
  readsAsTheGrammarTook([
    [viaDefs, '{}', '{}'],
    [viaDefs, '{"a": 0}', '{"a": 0}'],
    [viaDefs, '{"a": 1}', { a: 1 }],
    [viaDefinitions, '{"a": 0}', '{"a": 0}'],
    [viaDefinitions, '{"a": 1}', { a: 1 }],
    [viaProperty, '{"a": 0}', '{"a": 0}'],
    [viaProperty, '{"a": 1}', { a: 1 }],
    [viaRootAllOf, '{"a": 0}', '{"a": 0}'],
    [viaRootAllOf, '{"a": 1, "b": 2}', { a: 1, b: 2 }],
    [viaRootAllOf, '{"a": 1, "c": 2}', '{"a": 1, "c": 2}'],
  ]);
});

test('untyped styles: a schema ajv cannot compile is read by its types, without throwing', () => {
  const needsA = { type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] };
  // A modifier group (ECMAScript 2025), which the grammar reads and Node 20's RegExp does not.
  const modifier = withV({ anyOf: [{ type: 'string', pattern: '^(?i:ab)$' }, needsA] });
  readsAsTheGrammarTook([
    [modifier, 'aB', 'aB'],
    [modifier, '{"a": 1}', { a: 1 }],
  ]);
  // Schemas the grammar refuses, read without it (a parameter is read whatever compiled).
  const readAlone = (v: unknown, value: string, root: Record<string, unknown> = withV(v)) => XML_READERS.qwen_xml!.read(q(value), 0, () => v, root)?.value;
  assert.equal(readAlone({ anyOf: [{ type: 'string' }, { type: 'integer', minimum: 3, exclusiveMinimum: true }] }, '5'), 5, "draft 4's boolean exclusiveMinimum: the type decides");
  assert.equal(readAlone({ anyOf: [{ type: 'string' }, { $ref: '#/$defs/missing' }] }, '{}'), {}, 'a reference to nothing');
  assert.equal(readAlone({ anyOf: [{ type: 'string', format: 'no-such-format' }, needsA] }, '{}'), '{}', 'an unknown format is left out');
  const intoBadArguments = { anyOf: [{ type: 'string' }, { $ref: '#/$defs/A' }] };
  const badArguments = { type: 'object', properties: { v: intoBadArguments, w: { type: 'integer', minimum: 3, exclusiveMinimum: true } }, $defs: { A: needsA } };
  assert.equal(readAlone(intoBadArguments, '{}', badArguments), {}, 'a reference into arguments that do not compile');
});

test('typed styles: the type attribute decides', () => {
  const k = (type: string, v: string) => `<|open|>argument key="a&quot;b" type="${type}"<|sep|>${v}<|close|>argument<|sep|>`;
  assert.equal(read('kimi_k3_xml', k('string', '5'), {}), { key: 'a"b', value: '5', end: k('string', '5').length });
  assert.is(read('kimi_k3_xml', k('number', '5'), {})?.value, 5);
  assert.equal(read('kimi_k3_xml', k('object', '{"u": 1}'), {})?.value, { u: 1 });
  const nested = '<cofl:value name="f" type="dict"> <cofl:value name="fresh" type="json">true</cofl:value><cofl:value name="tags" type="list"><cofl:value type="raw"> a </cofl:value><cofl:value type="json">2</cofl:value></cofl:value></cofl:value>';
  assert.equal(read('cohere_xml', nested, {}), { key: 'f', value: { fresh: true, tags: [' a ', 2] }, end: nested.length });
  assert.is(read('cohere_xml', nested.slice(0, -5), {}), null, 'an unclosed dict is not read yet');
  assert.is(read('cohere_xml', '<cofl:value name="a&amp;b" type="raw">x</cofl:value>', {})?.key, 'a&b');
});

test("deepseek_xml: string=\"true\" makes the value the string written where the schema allows strings, and decides nothing more (the grammar does not check the flag against the type)", () => {
  const d = (flag: string, v: string) => `<｜DSML｜parameter name="v" string="${flag}">${v}</｜DSML｜parameter>`;
  const cases: [unknown, string, unknown][] = [
    [{ type: 'integer' }, d('true', '5'), 5], // was "5"
    [{ type: 'string', pattern: '^[0-9]+$' }, d('false', '145'), '145'], // was 145
    [{ type: 'string', minLength: 3 }, d('false', '"x"'), '"x"'], // the three characters the grammar counted (was "x")
    [{ type: ['string', 'integer'] }, d('true', '5'), '5'],
    [{ type: ['string', 'integer'] }, d('false', '5'), 5],
    [{ type: 'string' }, d('true', 'Paris'), 'Paris'],
    [{ type: 'object', additionalProperties: true }, d('false', '{"a": 1}'), { a: 1 }],
  ];
  for (const [property, text, value] of cases) {
    const args = { type: 'object', properties: { v: property }, required: ['v'] };
    const m = new GrammarMatcher(new GrammarCompiler().compile(Grammar.fromJSONSchema(args, { style: 'deepseek_xml' })));
    assert.ok(m.acceptString(text) && m.isCompleted(), `the grammar takes ${text}`);
    assert.equal(read('deepseek_xml', text, property, args)?.value, value, text);
  }
});

test('what the typed styles write for integers and for values of any type reads back as the value', () => {
  const roundTrip = (style: JsonSchemaStyle, args: unknown, text: string, value: unknown): void => {
    const m = new GrammarMatcher(new GrammarCompiler().compile(Grammar.fromJSONSchema(args, { style })));
    assert.ok(m.acceptString(text) && m.isCompleted(), `${style} writes ${text}`);
    assert.equal(XML_READERS[style]!.read(text, 0, () => true, args)?.value, value, text);
  };
  const k = (type: string, v: string) => `<|open|>argument key="v" type="${type}"<|sep|>${v}<|close|>argument<|sep|>`;
  const integer = { type: 'object', properties: { v: { type: 'integer' } } };
  roundTrip('kimi_k3_xml', integer, k('number', '3'), 3);
  roundTrip('kimi_k3_xml', true, k('integer', '7'), 7);
  roundTrip('kimi_k3_xml', true, k('number', '7.5'), 7.5);
  roundTrip('kimi_k3_xml', true, k('string', '7'), '7');
  const c = (v: string) => `<cofl:value name="v" type="json">${v}</cofl:value>`;
  for (const value of ['extra', 2, null, [1, 'two'], { id: 2 }]) roundTrip('cohere_xml', true, c(JSON.stringify(value)), value);
  roundTrip('cohere_xml', { type: 'object', properties: { v: {} } }, c(' "a b" '), 'a b');
});

test.run();
