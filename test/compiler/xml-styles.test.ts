// The XML tool-call styles at string level: string values written raw wherever the schema
// makes them strings (enum and const without `type`, string branches of anyOf and of type
// arrays, conjunctions), the other branches as JSON; kimi_k3_xml and cohere_xml with their
// type attributes (cohere_xml recursively); patternProperties and propertyNames keys.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { JsonSchemaStyle } from '../../compiler/index.js';
import { schema } from './helpers.js';

const test = suite('xml-styles');

function expect(ok: (s: string) => boolean, cases: [string, boolean][]): void {
  for (const [text, want] of cases) assert.is(ok(text), want, JSON.stringify(text));
}

const one = (property: unknown, style: JsonSchemaStyle = 'qwen_xml') => schema({ type: 'object', properties: { v: property }, required: ['v'] }, { style });
const q = (value: string) => `<parameter=v>${value}</parameter>`;

test('qwen_xml: enum and const strings without a type are raw, as Qwen3-Coder writes them', () => {
  expect(one({ enum: ['red', 'green'] }), [[q('red'), true], [q('\nred\n'), true], [q('"red"'), false], [q('blue'), false], [q(' red'), false]]);
  expect(one({ const: 'x' }), [[q('x'), true], [q('"x"'), false]]);
  expect(one({ enum: ['a"b', 'c\\d'] }), [[q('a"b'), true], [q('c\\d'), true], [q('"a\\"b"'), false]]);
});

test('qwen_xml: a string branch of anyOf is raw, the other branches JSON', () => {
  const auto = one({ anyOf: [{ type: 'string', enum: ['auto'] }, { type: 'integer', minimum: 0 }] });
  expect(auto, [[q('auto'), true], [q('\nauto\n'), true], [q('5'), true], [q('\n5\n'), true], [q('"auto"'), false], [q('x'), false], [q('-1'), false]]);
  const nullable = one({ anyOf: [{ type: 'string', maxLength: 3 }, { type: 'null' }] });
  expect(nullable, [[q('abc'), true], [q('null'), true], [q('abcd'), false], [q(' null '), true]]);
  const typeArray = one({ type: ['string', 'integer'], minLength: 2 });
  expect(typeArray, [[q('ab'), true], [q('7'), true], [q('x'), false]]);
  const mixed = one({ enum: ['auto', 1, null, [1, 2]] });
  expect(mixed, [[q('auto'), true], [q('1'), true], [q(' 1 '), true], [q('null'), true], [q('[1, 2]'), true], [q('"auto"'), false], [q('2'), false]]);
  // A string whose schema is a conjunction (allOf, $ref with keywords) is raw too.
  expect(one({ allOf: [{ type: 'string' }, { maxLength: 3 }] }), [[q('abc'), true], [q('abcd'), false], [q('"ab"'), false]]);
  const viaRef = schema({ type: 'object', properties: { v: { $ref: '#/$defs/c', maxLength: 2 } }, required: ['v'], $defs: { c: { type: 'string', pattern: '^[a-z]+$' } } }, { style: 'qwen_xml' });
  expect(viaRef, [[q('ab'), true], [q('abc'), false], [q('a1'), false]]);
});

test('the other untyped styles write enum strings raw too, without newline framing', () => {
  const m = (value: string) => `<parameter name="v">${value}</parameter>`;
  expect(one({ enum: ['red', 'green'] }, 'minimax_xml'), [[m('red'), true], [m('"red"'), false], [m('\nred\n'), false]]);
  const g = (value: string) => `<arg_key>v</arg_key><arg_value>${value}</arg_value>`;
  expect(one({ anyOf: [{ const: 'none' }, { type: 'integer' }] }, 'glm_xml'), [[g('none'), true], [g('3'), true], [g('"none"'), false]]);
  const d = (value: string, s: string) => `<｜DSML｜parameter name="v" string="${s}">${value}</｜DSML｜parameter>`;
  expect(one({ enum: ['red'] }, 'deepseek_xml'), [[d('red', 'true'), true], [d('"red"', 'false'), false]]);
});

const k = (key: string, type: string, value: string) => `<|open|>argument key="${key}" type="${type}"<|sep|>${value}<|close|>argument<|sep|>`;

test('kimi_k3_xml: the type attribute names the branch the value is written in', () => {
  const s = {
    type: 'object',
    properties: { city: { type: 'string' }, days: { type: 'integer' }, note: { type: ['string', 'null'] }, opts: { type: 'object', properties: { u: { type: 'string' } } }, unit: { enum: ['c', 'f'] } },
    required: ['city'],
  };
  const ok = schema(s, { style: 'kimi_k3_xml' });
  expect(ok, [
    [k('city', 'string', 'Paris'), true],
    [k('city', 'string', 'Paris') + '\n' + k('days', 'number', '3'), true],
    [k('city', 'string', 'Paris') + k('days', 'string', '3'), false],
    [k('city', 'number', '3'), false],
    [k('city', 'string', 'Paris') + k('note', 'null', 'null'), true],
    [k('city', 'string', 'Paris') + k('note', 'string', 'null'), true],
    [k('city', 'string', 'Paris') + k('note', 'null', 'x'), false],
    [k('city', 'string', 'Paris') + k('opts', 'object', '{"u": "x"}'), true],
    [k('city', 'string', 'Paris') + k('unit', 'string', 'c'), true],
    [k('city', 'string', 'Paris') + k('unit', 'string', '"c"'), false],
    [k('days', 'number', '3'), false],
  ]);
  // Attribute values as Kimi-K3's template writes them: & and " escaped.
  const quoted = schema({ type: 'object', properties: { 'a"&b': { type: 'string' } }, required: ['a"&b'] }, { style: 'kimi_k3_xml' });
  expect(quoted, [[k('a&quot;&amp;b', 'string', 'x'), true], [k('a"&b', 'string', 'x'), false]]);
  const anything = one({}, 'kimi_k3_xml');
  expect(anything, [[k('v', 'string', 'hi'), true], [k('v', 'boolean', 'true'), true], [k('v', 'array', '[1]'), true], [k('v', 'boolean', 'x'), false]]);
});

test('kimi_k3_xml: a whole number is called "number", as Kimi-K3\'s template and xgrammar write it; a value of any type may say "integer"', () => {
  const s = { type: 'object', properties: { days: { type: 'integer' }, ids: { type: 'array', items: { type: 'integer' } }, n: { const: 2 } }, additionalProperties: true };
  expect(schema(s, { style: 'kimi_k3_xml' }), [
    [k('days', 'number', '3'), true],
    [k('days', 'integer', '3'), false],
    [k('days', 'number', '1.5'), false],
    [k('ids', 'array', '[1, 2]'), true],
    [k('n', 'number', '2'), true],
    [k('n', 'integer', '2'), false],
    // Free-form keys keep every type name, each with its own value.
    [k('extra', 'integer', '7'), true],
    [k('extra', 'number', '7.5'), true],
    [k('extra', 'integer', '7.5'), false],
    [k('extra', 'string', 'v'), true],
  ]);
  const patterned = { type: 'object', patternProperties: { '^x_[a-z]+$': { type: 'integer' } }, additionalProperties: false };
  expect(schema(patterned, { style: 'kimi_k3_xml', anyWhitespace: false, separators: [',', ':'] }), [[k('x_key', 'number', '3'), true], [k('x_key', 'integer', '3'), false], [k('x_key', 'string', '3'), false]]);
});

const c = (key: string | null, type: string, body: string) => `<cofl:value${key === null ? '' : ` name="${key}"`} type="${type}">${body}</cofl:value>`;

test('cohere_xml: nested values, dicts and lists written as values too', () => {
  const s = {
    type: 'object',
    properties: {
      query: { type: 'string' },
      limit: { type: 'integer' },
      filters: { type: 'object', properties: { fresh: { type: 'boolean' }, tags: { type: 'array', items: { type: 'string' }, maxItems: 2 } }, required: ['fresh'] },
      mode: { enum: ['fast', 'slow'] },
    },
    required: ['query'],
  };
  const ok = schema(s, { style: 'cohere_xml' });
  const query = c('query', 'raw', 'echo "Hello"');
  expect(ok, [
    [query, true],
    [`${query}\n${c('limit', 'json', '3')}`, true],
    [`${query}${c('limit', 'raw', '3')}`, false],
    [`${query}${c('filters', 'dict', `\n  ${c('fresh', 'json', 'true')}\n  ${c('tags', 'list', `${c(null, 'raw', 'music')}${c(null, 'raw', 'jazz')}`)}\n`)}`, true],
    [`${query}${c('filters', 'dict', c('fresh', 'json', 'true') + c('tags', 'list', c(null, 'raw', 'a') + c(null, 'raw', 'b') + c(null, 'raw', 'c')))}`, false],
    [`${query}${c('filters', 'dict', c('fresh', 'json', 'true') + c('tags', 'list', c(null, 'json', '3')))}`, false],
    [`${query}${c('filters', 'dict', c('tags', 'list', ''))}`, false],
    [`${query}${c('filters', 'json', '{"fresh": true}')}`, false],
    [`${query}${c('mode', 'raw', 'fast')}`, true],
    [`${query}${c('mode', 'raw', 'medium')}`, false],
    [c('limit', 'json', '3'), false],
  ]);
  // Declared names are written with XML's entities in the attribute.
  const amp = schema({ type: 'object', properties: { 'a&b': { type: 'string' } }, required: ['a&b'] }, { style: 'cohere_xml' });
  expect(amp, [[c('a&amp;b', 'raw', 'x'), true], [c('a&b', 'raw', 'x'), false]]);
});

test('cohere_xml: a value no schema describes is any JSON value under type="json", as xgrammar writes it', () => {
  const json = ['"extra"', '2', 'true', 'null', '[1, "two"]', '{"id": 2}', ' {"a": [{}]} '];
  for (const schemaOf of [{}, true, { description: 'anything' }]) {
    const anything = one(schemaOf, 'cohere_xml');
    for (const v of json) {
      assert.ok(anything(c('v', 'json', v)), `json ${v}`);
      assert.not.ok(anything(c('v', 'raw', v)), `raw ${v}`);
    }
    expect(anything, [[c('v', 'json', 'extra'), false], [c('v', 'dict', c('k', 'json', '1')), false], [c('v', 'list', c(null, 'json', '1')), false]]);
  }
  // Keys without a schema of their own: additionalProperties true, propertyNames alone (open as
  // in a tool call's structural tag, where an object that names no key takes any).
  const extra = schema({ type: 'object', properties: { foo: { type: 'integer' } }, required: ['foo'], additionalProperties: true }, { style: 'cohere_xml' });
  expect(extra, [[c('foo', 'json', '1') + c('text', 'json', '"extra"'), true], [c('foo', 'json', '1') + c('items', 'json', '[1, "two"]'), true], [c('foo', 'json', '1') + c('text', 'raw', 'extra'), false]]);
  const named = schema({ type: 'object', propertyNames: { pattern: '^[a-z_]+$' } }, { style: 'cohere_xml', openBareObjects: true });
  expect(named, [[c('x_key', 'json', '"v"'), true], [c('metadata', 'json', '{"id": 2}'), true], [c('text', 'raw', 'extra'), false], [c('Bad', 'json', '"extra"'), false]]);
  // Inside a dict and a list too.
  const nested = schema({ type: 'object', properties: { config: { type: 'object', propertyNames: { pattern: '^item_[a-z]+$' } }, all: { type: 'array', items: true } } }, { style: 'cohere_xml', openBareObjects: true });
  expect(nested, [[c('config', 'dict', c('item_data', 'json', '{"id": 1}')), true], [c('all', 'list', c(null, 'json', '"a"') + c(null, 'json', '[2]')), true], [c('all', 'list', c(null, 'raw', 'a')), false]]);
});

test('arguments that may be anything (true, {}): any parameters, in every XML style', () => {
  for (const args of [true, {}]) {
    expect(schema(args, { style: 'qwen_xml' }), [['<parameter=name>\nvalue\n</parameter>', true], ['<parameter=abc>\n[1, 2, 3]\n</parameter>', true], ['<parameter=cdef>\n{"name": "Tom"}\n</parameter>', true], ['', true], ['anything', false]]);
    expect(schema(args, { style: 'minimax_xml' }), [['<parameter name="a">x</parameter><parameter name="b">2</parameter>', true], ['<parameter name="1a">x</parameter>', false]]);
    expect(schema(args, { style: 'glm_xml' }), [['<arg_key>a</arg_key><arg_value>x</arg_value>', true]]);
    expect(schema(args, { style: 'deepseek_xml' }), [['<｜DSML｜parameter name="a" string="true">x</｜DSML｜parameter>', true]]);
    expect(schema(args, { style: 'kimi_k3_xml' }), [[k('a', 'string', 'x') + k('b', 'integer', '2') + k('c', 'object', '{"d": null}'), true], [k('a', 'number', 'x'), false]]);
    expect(schema(args, { style: 'cohere_xml' }), [[c('a', 'json', '"x"') + c('b', 'json', '{"c": [1]}'), true], [c('a', 'raw', 'x'), false]]);
  }
  // A $ref to such a schema reads the same; false is still no arguments at all.
  expect(schema({ $ref: '#/$defs/any', $defs: { any: true } }, { style: 'qwen_xml' }), [['<parameter=a>x</parameter>', true]]);
});

test('cohere_xml: a recursive schema nests as deep as the value does', () => {
  const tree = { type: 'object', properties: { root: { $ref: '#/$defs/node' } }, required: ['root'], $defs: { node: { type: 'object', properties: { label: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } }, required: ['label'] } } };
  const ok = schema(tree, { style: 'cohere_xml' });
  const leaf = (label: string) => c(null, 'dict', c('label', 'raw', label));
  expect(ok, [
    [c('root', 'dict', c('label', 'raw', 'a')), true],
    [c('root', 'dict', c('label', 'raw', 'a') + c('children', 'list', leaf('b') + c(null, 'dict', c('label', 'raw', 'c') + c('children', 'list', leaf('d'))))), true],
    [c('root', 'dict', c('label', 'raw', 'a') + c('children', 'list', c(null, 'dict', c('children', 'list', '')))), false],
  ]);
});

test('patternProperties and propertyNames in the XML styles: keys of the style, values of every pattern they match', () => {
  const s = { type: 'object', properties: { id: { type: 'integer' } }, patternProperties: { '^x_': { type: 'integer' }, '_s$': { type: 'string' } }, required: ['id'] };
  const p = (key: string, value: string) => `<parameter=${key}>${value}</parameter>`;
  expect(schema(s, { style: 'qwen_xml' }), [
    [p('id', '1') + p('x_a', '2'), true],
    [p('id', '1') + p('x_a', 'b'), false],
    [p('id', '1') + p('b_s', 'hi there'), true],
    [p('id', '1') + p('zz', '1'), false],
    [p('id', '1') + p('x_s', '1'), false], // integer and string at once: no value
  ]);
  expect(schema(s, { style: 'kimi_k3_xml' }), [[k('id', 'number', '1') + k('x_a', 'number', '2'), true], [k('id', 'number', '1') + k('b_s', 'string', 'x'), true], [k('id', 'number', '1') + k('b_s', 'number', '1'), false]]);
  expect(schema(s, { style: 'cohere_xml' }), [[c('id', 'json', '1') + c('x_b', 'json', '2'), true], [c('id', 'json', '1') + c('x_b', 'raw', '2'), false]]);
  const names = { type: 'object', propertyNames: { maxLength: 2 }, additionalProperties: { type: 'integer' } };
  const m = (key: string, value: string) => `<parameter name="${key}">${value}</parameter>`;
  expect(schema(names, { style: 'minimax_xml' }), [[m('ab', '1'), true], [m('a-', '1'), true], [m('abc', '1'), false], [m('a"', '1'), false], ['', true]]);
  const g = (key: string, value: string) => `<arg_key>${key}</arg_key><arg_value>${value}</arg_value>`;
  expect(schema({ type: 'object', propertyNames: { enum: ['lat', 'lon'] }, additionalProperties: { type: 'number' } }, { style: 'glm_xml' }), [[g('lat', '1.5') + g('lon', '2'), true], [g('alt', '1'), false]]);
});

test('the top-level object may be a conjunction: allOf members and their keys together', () => {
  const s = { allOf: [{ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, { properties: { b: { type: 'integer' } } }] };
  expect(schema(s, { style: 'qwen_xml' }), [[q('x').replace('=v', '=a') + '<parameter=b>1</parameter>', true], ['<parameter=a>x</parameter>', true], ['<parameter=b>1</parameter>', false], ['<parameter=a>x</parameter><parameter=c>1</parameter>', false]]);
});

test.run();
