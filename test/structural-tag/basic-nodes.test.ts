// Leaf nodes at the byte level: const_string, json_schema (styles, any_order), the deprecated
// qwen_xml_parameter, any_text (with excludes), grammar and regex; the top-level wrapper.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Grammar } from '../../compiler/index.js';
import { check, tag } from './helpers.js';

const test = suite('structural-tag basic nodes');

test('the top-level object, a bare node and a top level without type are the same grammar', () => {
  const node = { type: 'const_string', value: 'hi' };
  const a = Grammar.fromStructuralTag({ type: 'structural_tag', format: node }).toString();
  assert.is(Grammar.fromStructuralTag(node).toString(), a);
  assert.is(Grammar.fromStructuralTag({ format: node }).toString(), a);
});

test('const_string: exactly the value; the empty value matches only ""', () => {
  check(tag({ type: 'const_string', value: 'héllo 好' }), ['héllo 好'], ['', 'héllo', 'héllo 好!']);
  check(tag({ type: 'const_string', value: '' }), [''], ['a']);
});

test('json_schema: a value valid against the schema, with free whitespace', () => {
  const ok = tag({ type: 'json_schema', json_schema: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'string' } }, required: ['a', 'b'] } });
  check(ok, ['{"a": 1, "b": "x"}', '{"a":1,"b":"x"}', '{\n  "a": 1,\n  "b": "x"\n}'], [' {"a": 1, "b": "x"}', '{"a":  1, "b": "x"}', '{"b": "x", "a": 1}', '{"a": 1}', '{"a": 1, "b": "x", "c": 2}', '{"a": "1", "b": "x"}']);
  check(tag({ type: 'json_schema', json_schema: true }), ['1', '[{"x": null}]'], ['', 'nope']);
});

test('json_schema any_order (case 19): order free, keys may repeat, the count is bounded', () => {
  const schema = { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } }, required: ['a', 'b'] };
  check(tag({ type: 'json_schema', json_schema: schema, any_order: true }), ['{"b":1,"a":2}', '{"a":1,"a":2}', '{"a":1, "b":2}'], ['{"a":1}', '{"a":1,"c":2}']);
  check(tag({ type: 'json_schema', json_schema: schema }), ['{"a":1, "b":2}'], ['{"b":1,"a":2}']);
});

const weather = { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city'] };

test('json_schema styles write the parameters as XML (case 22)', () => {
  check(tag({ type: 'json_schema', json_schema: weather, style: 'qwen_xml' }), ['<parameter=city>\nParis\n</parameter>', '<parameter=city>"Paris"</parameter>', '<parameter=city>Paris</parameter>\n<parameter=days>3</parameter>'], ['<parameter=days>3</parameter>', '{"city": "Paris"}']);
  check(tag({ type: 'json_schema', json_schema: weather, style: 'minimax_xml' }), ['<parameter name="city">Paris</parameter>'], ['<parameter=city>Paris</parameter>']);
  check(tag({ type: 'json_schema', json_schema: weather, style: 'glm_xml' }), ['<arg_key>city</arg_key><arg_value>Paris</arg_value>', '<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>'], ['<arg_key>town</arg_key><arg_value>Paris</arg_value>']);
  check(tag({ type: 'json_schema', json_schema: weather, style: 'deepseek_xml' }), ['<｜DSML｜parameter name="city" string="true">Paris</｜DSML｜parameter>'], ['<|DSML|parameter name="city" string="true">Paris</|DSML|parameter>']);
});

test('qwen_xml_parameter is json_schema with the qwen_xml style', () => {
  const a = Grammar.fromStructuralTag({ type: 'qwen_xml_parameter', json_schema: weather }).toString();
  assert.is(a, Grammar.fromStructuralTag({ type: 'json_schema', json_schema: weather, style: 'qwen_xml' }).toString());
});

test('any_text: any text, or any text in which no exclude occurs', () => {
  check(tag({ type: 'any_text' }), ['', 'any string', '好', '</end>'], []);
  check(tag({ type: 'any_text', excludes: ['end', 'stop'] }), ['', 'any text', 'en', 'sto'], ['the end', 'endaaa', 'a stop here', 'sstopp']);
});

test('grammar: an EBNF grammar with its own root', () => {
  check(tag({ type: 'grammar', grammar: 'root ::= "a" b+\nb ::= [0-9]' }), ['a1', 'a123'], ['a', 'b1']);
});

test('regex: the whole text matches the pattern', () => {
  check(tag({ type: 'regex', pattern: '[a-c]+\\d{2}' }), ['abc12', 'a00'], ['abc1', 'd12', 'abc123']);
});

test('the same sub-format used twice shares one embedded grammar', () => {
  const schema = { type: 'json_schema', json_schema: weather };
  const once = Grammar.fromStructuralTag(schema).ir.rules.length;
  const twice = Grammar.fromStructuralTag({ type: 'sequence', elements: [schema, { type: 'const_string', value: ';' }, schema] }).ir.rules.length;
  assert.is(twice, once, 'the same rules: no second copy of the schema');
});

test.run();
