// GRAMMAR.md §7 JSON cases 15-22 and the converter's options.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Grammar } from '../../compiler/index.js';
import { matcherFor, schema } from './helpers.js';

const test = suite('json-schema');

function expect(ok: (s: string) => boolean, cases: [string, boolean][]): void {
  for (const [text, want] of cases) assert.is(ok(text), want, JSON.stringify(text));
}

test('case 15: RFC 8259 whitespace, \\r included, a space or a line break and its indentation, none around the value; maxWhitespaceCount caps runs', () => {
  expect(schema({ type: 'object' }), [['{\r\n}', true], ['{\n\t}', true], ['{ \t}', false], ['{ }', true], ['\n{}', false], ['{}\n', false]]);
  expect(schema({ type: 'array', items: { type: 'integer' } }, { maxWhitespaceCount: 2 }), [['[  1]', true], ['[   1]', false]]);
});

test('case 16: integers and numbers, ranged too', () => {
  expect(schema({ type: 'integer' }), [['-0', false], ['01', false], ['0', true], ['-12', true], ['1.0', false]]);
  expect(schema({ type: 'number' }), [['-0', true], ['1.', false], ['1e5', true], ['-3.25e2', true], ['.5', false], ['1E+05', true]]);
  expect(schema({ type: 'integer', minimum: -5, maximum: 120 }), [['-5', true], ['-6', false], ['120', true], ['121', false], ['007', false], ['0', true]]);
  expect(schema({ type: 'integer', exclusiveMinimum: 0.5, exclusiveMaximum: 3 }), [['0', false], ['1', true], ['2', true], ['3', false]]);
  // Numbers with exponents stay valid in a range (xgrammar rejects 1e0 here).
  expect(schema({ type: 'number', minimum: 0.5, exclusiveMaximum: 2 }), [
    ['0.5', true], ['0.49', false], ['1.999999', true], ['2', false], ['1e0', true], ['5e-1', true],
    ['4.99e-1', false], ['2e0', false], ['1.99e+0', true], ['0.0', false], ['-1', false],
  ]);
  expect(schema({ type: 'number', minimum: -1e-7, maximum: 0 }), [['-1e-7', true], ['-1.1e-7', false], ['0', true], ['-0', true], ['1e-300', false], ['-0.00000001', true]]);
  expect(schema({ type: 'number', exclusiveMinimum: 0 }), [['0', false], ['-0', false], ['0.0', false], ['1e-30', true], ['1e300', true], ['0e5', false]]);
});

test('case 17: strings, escapes and lengths', () => {
  expect(schema({ type: 'string' }), [['"\\u00e9"', true], ['"é"', true], ['"\\ud800"', true], ['"\x7f"', true], ['"\t"', false], ['"\\x"', false]]);
  // Lengths count decoded characters: an escape is one; raw TAB is still not JSON.
  expect(schema({ type: 'string', maxLength: 5 }), [['"\t"', false], ['"a\\"b"', true], ['"好好好好好"', true], ['"好好好好好好"', false], ['"😀😀😀😀😀"', true], ['"\\ud83d\\ude00"', true]]);
  expect(schema({ type: 'string', minLength: 2, maxLength: 2 }), [['"\\ud83d\\ude00"', false], ['"\\ud83d"', false], ['"ab"', true]]);
  // Under a pattern the decoded value is matched; a character needing an escape is escaped.
  expect(schema({ type: 'string', pattern: '^a.c$' }), [['"abc"', true], ['"a\\"c"', true], ['"a"c"', false], ['"abcd"', false]]);
  expect(schema({ type: 'string', pattern: 'b+' }), [['"xbbx"', true], ['"xx"', false]]);
});

test('case 18: enum values in the grammar\'s own formatting', () => {
  const ok = schema({ enum: ['a"b', 1, null, { k: [1, 2] }] });
  expect(ok, [['"a\\"b"', true], ['1', true], ['null', true], ['{"k":[1,2]}', true], ['{ "k" : [ 1 , 2 ] }', true], ['2', false]]);
  expect(schema({ enum: [{ k: [1, 2] }] }, { anyWhitespace: false }), [['{"k": [1, 2]}', true], ['{"k":[1,2]}', false]]);
  expect(schema({ type: 'string', enum: ['x', 1] }), [['"x"', true], ['1', false]]);
  expect(schema({ const: 'only' }), [['"only"', true], ['"other"', false]]);
});

test('case 19: key order, strict mode and anyOrder', () => {
  const s = { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } }, required: ['a', 'b'] };
  expect(schema(s), [['{"b":1,"a":2}', false], ['{"a":1, "b":2}', true], ['{"a":1,"b":2,"c":3}', false], ['{"a":1}', false]]);
  expect(schema(s, { strictMode: false }), [['{"a":1,"b":2,"c":3}', true], ['{"a":1,"b":2,"a":3}', false]]);
  expect(schema(s, { anyOrder: true }), [['{"b":1,"a":2}', true], ['{"a":1,"a":2}', true], ['{"a":1}', false], ['{"a":1,"c":2}', false]]);
  const opt = { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' }, c: { type: 'integer' } }, required: ['b'] };
  expect(schema(opt), [['{"b":1}', true], ['{"a":1,"b":2}', true], ['{"b":1,"c":2}', true], ['{"a":1,"c":2}', false], ['{}', false]]);
});

test('minProperties / maxProperties with additional properties', () => {
  const s = { type: 'object', properties: { a: { type: 'integer' } }, additionalProperties: { type: 'boolean' }, minProperties: 2, maxProperties: 3 };
  expect(schema(s), [
    ['{"a":1}', false], ['{"a":1,"x":true}', true], ['{"x":true,"y":false}', true], ['{"a":1,"x":true,"y":true,"z":true}', false],
    ['{"a":1,"x":1}', false], ['{"x":true,"a":1}', false],
  ]);
  expect(schema({ type: 'object', patternProperties: { '^x_': { type: 'integer' } } }), [['{"x_1":1}', true], ['{"y":1}', false], ['{}', true]]);
});

test('case 20: formatting without whitespace, with an indent, custom separators', () => {
  const s = { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'array', items: { type: 'integer' } } }, required: ['a', 'b'] };
  expect(schema({ type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] }, { anyWhitespace: false }), [['{"a": 1}', true], ['{"a":1}', false]]);
  expect(schema(s, { anyWhitespace: false, indent: 2 }), [['{\n  "a": 1,\n  "b": [\n    1,\n    2\n  ]\n}', true], ['{"a": 1, "b": [1, 2]}', false], ['{\n  "a": 1,\n  "b": []\n}', true]]);
  expect(schema(s, { anyWhitespace: false, separators: [';', '='] }), [['{"a"=1;"b"=[1;2]}', true], ['{"a": 1, "b": [1, 2]}', false]]);
});

test('case 21: maxItems 300 and maxLength 1000 enforce exact counts', () => {
  const arr = schema({ type: 'array', items: { type: 'integer' }, minItems: 1, maxItems: 300 });
  const list = (n: number): string => `[${Array.from({ length: n }, (_, i) => i % 10).join(',')}]`;
  for (const [n, ok] of [[0, false], [1, true], [127, true], [128, true], [129, true], [299, true], [300, true], [301, false]] as const) {
    assert.is(arr(list(n)), ok, `${n} items`);
  }
  const str = schema({ type: 'string', maxLength: 1000 });
  for (const [n, ok] of [[127, true], [128, true], [129, true], [999, true], [1000, true], [1001, false]] as const) {
    assert.is(str(`"${'é'.repeat(n)}"`), ok, `${n} chars`);
  }
});

test('arrays: prefixItems, items, strict mode', () => {
  const s = { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }] };
  expect(schema(s), [['[]', true], ['["a"]', true], ['["a",1]', true], ['["a",1,2]', false], ['[1]', false]]);
  expect(schema({ ...s, items: { type: 'boolean' }, minItems: 3 }), [['["a",1]', false], ['["a",1,true]', true], ['["a",1,true,false]', true]]);
  expect(schema({ type: 'array' }), [['[]', true], ['[1]', false]]);
  expect(schema({ type: 'array' }, { strictMode: false }), [['[1,"x",{"a":[]}]', true]]);
});

test('$ref, recursion, anyOf, oneOf, type arrays', () => {
  const tree = { $defs: { node: { type: 'object', properties: { v: { type: 'integer' }, kids: { type: 'array', items: { $ref: '#/$defs/node' } } }, required: ['v'] } }, $ref: '#/$defs/node' };
  expect(schema(tree), [['{"v":1,"kids":[{"v":2},{"v":3,"kids":[]}]}', true], ['{"v":1,"kids":[{}]}', false]]);
  expect(schema({ type: 'object', properties: { next: { $ref: '#' } } }), [['{"next":{"next":{}}}', true]]);
  expect(schema({ anyOf: [{ type: 'integer' }, { type: 'string', maxLength: 1 }] }), [['5', true], ['"a"', true], ['"ab"', false]]);
  expect(schema({ oneOf: [{ type: 'integer' }, { type: 'boolean' }] }), [['5', true], ['true', true], ['null', false]]);
  expect(schema({ type: ['string', 'null'] }), [['null', true], ['"x"', true], ['1', false]]);
  expect(schema({ type: 'object', required: ['a'], anyOf: [{ properties: { a: { const: 1 } } }, { properties: { a: { const: 2 } } }] }), [['{"a":1}', true], ['{"a":3}', false]]);
});

test('formats', () => {
  expect(schema({ type: 'string', format: 'date' }), [['"2024-02-29"', true], ['"2023-02-29"', false], ['"2000-02-29"', true], ['"1900-02-29"', false], ['"2024-04-31"', false]]);
  expect(schema({ type: 'string', format: 'time' }), [['"23:59:59Z"', true], ['"24:00:00Z"', false], ['"10:00:00+05:30"', true], ['"10:00:00"', false]]);
  expect(schema({ type: 'string', format: 'date-time' }), [['"2024-01-01T10:00:00.5Z"', true], ['"2024-01-01 10:00:00Z"', false]]);
  expect(schema({ type: 'string', format: 'email' }), [['"a.b@c.io"', true], ['"a@b"', false]]);
  expect(schema({ type: 'string', format: 'uuid' }), [['"123e4567-e89b-12d3-a456-426614174000"', true], ['"123e4567"', false]]);
  expect(schema({ type: 'string', format: 'ipv4' }), [['"192.168.0.1"', true], ['"256.1.1.1"', false]]);
  expect(schema({ type: 'string', format: 'ipv6' }), [['"::1"', true], ['"2001:db8::8a2e:370:7334"', true], ['"1::2::3"', false]]);
  expect(schema({ type: 'string', format: 'uri' }), [['"https://example.com/a?b=c#d"', true], ['"not a uri"', false]]);
});

test('case 22: XML styles', () => {
  const s = { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' }, opts: { type: 'object', properties: { u: { type: 'string' } } } }, required: ['city'] };
  expect(schema(s, { style: 'qwen_xml' }), [
    ['<parameter=city>\nParis\n</parameter>', true],
    ['<parameter=city>"Paris"</parameter>', true],
    ['<parameter=city>Paris</parameter>\n<parameter=days> 3 </parameter><parameter=opts>{"u": "x"}</parameter>', true],
    ['<parameter=days>3</parameter>', false],
    ['<parameter=city>a</parameter></parameter>', false],
    ['<parameter=city>a</parameter><parameter=days>x</parameter>', false],
  ]);
  expect(schema(s, { style: 'minimax_xml' }), [['<parameter name="city">Paris</parameter>', true], ['<parameter=city>Paris</parameter>', false]]);
  expect(schema(s, { style: 'deepseek_xml' }), [
    ['<｜DSML｜parameter name="city" string="true">Paris</｜DSML｜parameter>', true],
    ['<｜DSML｜parameter name="city" string="false">Paris</｜DSML｜parameter>', true],
    ['<|DSML|parameter name="city" string="true">Paris</|DSML|parameter>', false],
  ]);
  expect(schema(s, { style: 'glm_xml' }), [['<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>', true], ['<arg_key>city</arg_key><arg_value>Paris</arg_value><arg_key>days</arg_key><arg_value>2</arg_value>', true]]);
  const e = { type: 'object', properties: { unit: { type: 'string', enum: ['c', 'f'] }, code: { type: 'string', pattern: '^[A-Z]{2}$' } }, required: ['unit'], additionalProperties: { type: 'integer' } };
  expect(schema(e, { style: 'qwen_xml' }), [['<parameter=unit>c</parameter>', true], ['<parameter=unit>\nc\n</parameter>', true], ['<parameter=unit>\nc</parameter>', false], ['<parameter=unit>"c"</parameter>', false], ['<parameter=unit>c</parameter><parameter=code>FR</parameter>', true], ['<parameter=unit>c</parameter><parameter=code>fr</parameter>', false], ['<parameter=unit>f</parameter><parameter=extra_1>7</parameter>', true], ['<parameter=unit>f</parameter><parameter=unit>7</parameter>', false]]);
  expect(schema(e, { style: 'minimax_xml' }), [['<parameter name="unit">c</parameter>', true], ['<parameter name="unit">\nc\n</parameter>', false]]);
  const anyValue = { type: 'object', properties: { v: {} }, required: ['v'] };
  expect(schema(anyValue, { style: 'qwen_xml' }), [['<parameter=v>12</parameter>', true], ['<parameter=v>[1, "a"]</parameter>', true], ['<parameter=v>{"k": 1}</parameter>', true]]);
});

test('case 5: the DeepSeek fullwidth bar matches byte by byte across accepts', () => {
  const m = matcherFor(Grammar.fromJSONSchema({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, { style: 'deepseek_xml' }));
  const bytes = new TextEncoder().encode('<｜DSML｜parameter name="a" string="true">v</｜DSML｜parameter>');
  for (const b of bytes) assert.ok(m.acceptBytes(new Uint8Array([b])));
  assert.ok(m.isCompleted());
  m.rollback(bytes.length - 1);
  assert.not.ok(m.acceptBytes(new TextEncoder().encode('|')), 'an ASCII bar is not the fullwidth one');
});

test('annotations are ignored; booleans and empty schemas mean anything', () => {
  expect(schema({ title: 't', description: 'd', examples: [1], default: 1, $comment: 'c', type: 'integer' }), [['1', true]]);
  expect(schema(true), [['{"a":[1,{"b":null}]}', true]]);
  expect(schema({}), [['"x"', true], ['[1,2]', true]]);
  expect(schema({ type: 'object', properties: { a: false } }), [['{}', true], ['{"a":1}', false]]);
});

test.run();
