// Every validation error, with the JSON pointer it carries. Validation runs before lowering,
// so a malformed node deep in the tree fails even next to valid siblings.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { GrammarError } from '../../compiler/index.js';
import { errorOf, rejects } from './helpers.js';

const test = suite('structural-tag validation');
const c = (value: string) => ({ type: 'const_string', value });
const top = (format: unknown) => ({ type: 'structural_tag', format });

test('the input and its format must be objects; the top level needs format and nothing else', () => {
  rejects('text', '', /a structural tag must be an object, not the string "text"/);
  rejects({ type: 'structural_tag' }, '', /a structural_tag node needs the field 'format'/);
  rejects({ type: 'structural_tag', format: c('a'), extra: 1 }, '/extra', /unknown field 'extra' in a structural_tag node/);
  rejects(top([c('a')]), '/format', /a format node must be an object, not an array/);
});

test('unknown, missing or mistyped type', () => {
  rejects(top({ type: 'const' }), '/format/type', /unknown format type 'const' \(expected one of const_string, json_schema/);
  rejects(top({ value: 'a' }), '/format', /a format node needs the field 'type'/);
  rejects(top({ type: 3 }), '/format/type', /'type' must be a string, not number 3/);
});

test('missing required fields, wrong field types and unknown fields point at the node or field', () => {
  rejects(top({ type: 'const_string' }), '/format', /a const_string node needs the field 'value'/);
  rejects(top({ type: 'const_string', value: 1 }), '/format/value', /'value' of a const_string node must be a string, not number 1/);
  rejects(top({ type: 'const_string', value: 'a', excludes: [] }), '/format/excludes', /unknown field 'excludes' in a const_string node \(its fields: value\)/);
  rejects(top({ type: 'sequence', elements: [c('a'), { type: 'const_string', value: null }] }), '/format/elements/1/value', /must be a string, not null/);
  rejects(top({ type: 'any_text', excludes: 'x' }), '/format/excludes', /'excludes' of an any_text node must be a list/);
  rejects(top({ type: 'any_text', excludes: ['x', 2] }), '/format/excludes/1', /items of 'excludes' must be strings/);
  rejects(top({ type: 'any_text', excludes: [''] }), '/format/excludes/0', /an empty string cannot be excluded/);
  rejects(top({ type: 'json_schema', json_schema: 'x' }), '/format/json_schema', /must be a JSON schema \(an object or a boolean\)/);
  rejects(top({ type: 'json_schema', json_schema: {}, style: 'yaml' }), '/format/style', /unknown style 'yaml'/);
  rejects(top({ type: 'json_schema', json_schema: {}, any_order: 'yes' }), '/format/any_order', /must be true or false/);
  rejects(top({ type: 'optional' }), '/format', /an optional node needs the field 'content'/);
  rejects(top({ type: 'dispatch', rules: [], loop: 1 }), '/format/loop', /must be true or false/);
});

test('empty or and sequence are rejected', () => {
  rejects(top({ type: 'or', elements: [] }), '/format/elements', /an empty or matches nothing/);
  rejects(top({ type: 'sequence', elements: [] }), '/format/elements', /an empty sequence/);
});

test('repeat bounds: negative, min > max, max below -1, non-integers', () => {
  rejects(top({ type: 'repeat', min: -1, max: 2, content: c('a') }), '/format/min', /'min' of a repeat must be 0 or more/);
  rejects(top({ type: 'repeat', min: 3, max: 2, content: c('a') }), '/format/max', /'max' \(2\) of a repeat is less than 'min' \(3\)/);
  rejects(top({ type: 'repeat', min: 0, max: -2, content: c('a') }), '/format/max', /or -1 for unbounded/);
  rejects(top({ type: 'repeat', min: 1.5, max: 2, content: c('a') }), '/format/min', /must be an integer/);
  rejects(top({ type: 'repeat', min: 1, content: c('a') }), '/format', /needs the field 'max'/);
});

test('tag: begin and end kinds, an empty end list, an empty end with unlimited content', () => {
  rejects(top({ type: 'tag', begin: 5, content: c('a'), end: 'x' }), '/format/begin', /a tag's begin must be a string or a token node/);
  rejects(top({ type: 'tag', begin: { type: 'const_string', value: 'a' }, content: c('a'), end: 'x' }), '/format/begin', /must be a string or a token node/);
  rejects(top({ type: 'tag', begin: 'a', content: c('a'), end: [] }), '/format/end', /an empty list of ends/);
  rejects(top({ type: 'tag', begin: 'a', content: c('a'), end: ['x', 3] }), '/format/end/1', /items of 'end' must be strings/);
  rejects(top({ type: 'tag', begin: 'a', content: { type: 'any_text' }, end: '' }), '/format/end', /is unlimited text, so the tag needs a non-empty end/);
  rejects(top({ type: 'tag', begin: 'a', content: { type: 'sequence', elements: [{ type: 'dispatch', rules: [] }, c('!')] }, end: ['x', ''] }), '/format/end', /the dispatch at \/format\/content\/elements\/0/);
  // Bounded content, or unlimited content with its own excludes, is fine with an empty end.
  errorFree({ type: 'tag', begin: 'a', content: c('b'), end: '' });
  errorFree({ type: 'tag', begin: 'a', content: { type: 'any_text', excludes: ['!'] }, end: '' });
});

function errorFree(format: unknown): void {
  try {
    errorOf(format);
  } catch (error) {
    if (error instanceof assert.Assertion) return; // not rejected: what we want
    throw error;
  }
  assert.unreachable(`${JSON.stringify(format)} was rejected`);
}

const weather = { begin: '<function=get_weather>', content: c('X'), end: '</function>' };

test('triggered_tags: each begin starts with exactly one trigger; each trigger leads to a tag', () => {
  rejects(top({ type: 'triggered_tags', triggers: ['<tool>'], tags: [weather] }), '/format/tags/0/begin', /no trigger starts the begin "<function=get_weather>"/);
  rejects(top({ type: 'triggered_tags', triggers: ['<f', '<function='], tags: [weather] }), '/format/tags/0/begin', /starts with more than one trigger \("<f" and "<function="\)/);
  rejects(top({ type: 'triggered_tags', triggers: ['<function=', '<x>'], tags: [weather] }), '/format/triggers/1', /no tag begins with the trigger "<x>"/);
  rejects(top({ type: 'triggered_tags', triggers: [], tags: [weather] }), '/format/triggers', /at least one trigger/);
  rejects(top({ type: 'triggered_tags', triggers: ['<function='], tags: [] }), '/format/tags', /at least one tag/);
  rejects(top({ type: 'triggered_tags', triggers: [''], tags: [weather] }), '/format/triggers/0', /an empty string cannot be a trigger/);
  rejects(top({ type: 'triggered_tags', triggers: ['<function=', '<function='], tags: [weather] }), '/format/triggers/1', /listed twice/);
  rejects(top({ type: 'triggered_tags', triggers: ['<function='], tags: [{ ...weather, begin: { type: 'token', token: 3 } }] }), '/format/tags/0/begin', /must be a string \(tags that begin with a token belong in token_triggered_tags\)/);
  rejects(top({ type: 'triggered_tags', triggers: ['<function='], tags: [{ ...weather, type: 'const_string' }] }), '/format/tags/0/type', /expected a tag node here, not const_string/);
  rejects(top({ type: 'triggered_tags', triggers: ['<function='], tags: [weather], excludes: ['func'] }), '/format/triggers/0', /contains the excluded string "func"/);
  rejects(top({ type: 'triggered_tags', triggers: ['<function='], tags: [{ ...weather, content: { type: 'or' } }] }), '/format/tags/0/content', /needs the field 'elements'/);
});

test('token_triggered_tags: begins must be trigger tokens', () => {
  const t = (id: number) => ({ type: 'token', token: id });
  const tg = (begin: unknown) => ({ begin, content: c('x'), end: t(9) });
  rejects(top({ type: 'token_triggered_tags', trigger_tokens: [1], tags: [tg('<tool>')] }), '/format/tags/0/begin', /must be a token node .* not the string "<tool>"/);
  rejects(top({ type: 'token_triggered_tags', trigger_tokens: [1], tags: [tg(t(2))] }), '/format/tags/0/begin', /the begin token 2 is not one of the trigger tokens \(1\)/);
  rejects(top({ type: 'token_triggered_tags', trigger_tokens: [1, 2], tags: [tg(t(1))] }), '/format/trigger_tokens/1', /no tag begins with the trigger token 2/);
  rejects(top({ type: 'token_triggered_tags', trigger_tokens: [1], tags: [tg(t(1))], exclude_tokens: [1] }), '/format/exclude_tokens/0', /both a trigger and excluded/);
  rejects(top({ type: 'token_triggered_tags', trigger_tokens: ['<x>'], tags: [tg(t(1))] }), '/format/trigger_tokens/0', /needs a vocabulary/);
});

test('dispatch and token_dispatch: rules are [pattern, format] pairs', () => {
  rejects(top({ type: 'dispatch', rules: [['@', c('a'), 'extra']] }), '/format/rules/0', /a dispatch rule must be a pair \[pattern, format\], not a list of 3 items/);
  rejects(top({ type: 'dispatch', rules: [{ pattern: '@' }] }), '/format/rules/0', /must be a pair .* not an object/);
  rejects(top({ type: 'dispatch', rules: [[1, c('a')]] }), '/format/rules/0/0', /a dispatch pattern must be a string/);
  rejects(top({ type: 'dispatch', rules: [['', c('a')]] }), '/format/rules/0/0', /must not be empty/);
  rejects(top({ type: 'dispatch', rules: [['@', c('a')], ['@', c('b')]] }), '/format/rules/1/0', /the pattern "@" has two rules/);
  rejects(top({ type: 'dispatch', rules: [['@', { type: 'nope' }]] }), '/format/rules/0/1/type', /unknown format type 'nope'/);
  rejects(top({ type: 'dispatch', rules: [['<end>', c('a')]], excludes: ['end'] }), '/format/rules/0/0', /contains the excluded string "end"/);
  rejects(top({ type: 'tag', begin: '<r>', content: { type: 'dispatch', rules: [['</r>!', c('a')]] }, end: '</r>' }), '/format/content/rules/0/0', /contains the excluded string "<\/r>"/);
  rejects(top({ type: 'token_dispatch', rules: [[1]] }), '/format/rules/0', /a token_dispatch rule must be a pair \[token, format\], not a list of 1 items/);
  rejects(top({ type: 'token_dispatch', rules: [[1, c('a')], [1, c('b')]] }), '/format/rules/1/0', /the token 1 has two rules/);
  rejects(top({ type: 'token_dispatch', rules: [[1, c('a')]], exclude_tokens: [1] }), '/format/exclude_tokens/0', /both a rule's token and excluded/);
  rejects(top({ type: 'token_dispatch', rules: [[true, c('a')]] }), '/format/rules/0/0', /a token must be an integer id or a string, not boolean true/);
});

test('errors of embedded front ends point into the structural tag', () => {
  rejects(top({ type: 'json_schema', json_schema: { type: 'object', properties: { a: { type: 'string', format: 'nope' } } } }), '/format/json_schema/properties/a/format', /the format 'nope' is not supported/);
  rejects(top({ type: 'sequence', elements: [c('a'), { type: 'grammar', grammar: 'root ::= "a" b' }] }), '/format/elements/1/grammar', /EBNF line 1, column 14: the rule 'b' is not defined/);
  rejects(top({ type: 'regex', pattern: 'a(?<=b)' }), '/format/pattern', /regex: the lookbehind .*offset 1/);
  assert.instance(errorOf(top({ type: 'regex', pattern: '(' })), GrammarError);
});

test.run();
