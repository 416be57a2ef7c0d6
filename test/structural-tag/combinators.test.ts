// sequence, or, tag (string, list and automatic end exclusion), optional, plus, star and
// repeat (GRAMMAR.md §7 cases 1, 3, 28, 29).
import { suite } from 'uvu';
import { check, tag } from './helpers.js';

const test = suite('structural-tag combinators');
const c = (value: string) => ({ type: 'const_string', value });

test('sequence and or', () => {
  check(tag({ type: 'sequence', elements: [c('a'), c('b'), c('c')] }), ['abc'], ['ab', 'abcc', '']);
  check(tag({ type: 'or', elements: [c('a'), c('bb'), { type: 'sequence', elements: [c('c'), c('d')] }] }), ['a', 'bb', 'cd'], ['', 'abb', 'c']);
});

test('tag: begin, content, end; a list end accepts any one of its strings', () => {
  check(tag({ type: 'tag', begin: '<a>', content: c('x'), end: '</a>' }), ['<a>x</a>'], ['<a>x', 'x</a>', '<a>x</b>']);
  check(tag({ type: 'tag', begin: '<a>', content: { type: 'any_text' }, end: ['</a>', '<|end|>'] }), ['<a>hi</a>', '<a>hi<|end|>', '<a></a>'], ['<a>hi', '<a>hi</a>x']);
});

test('case 1: free text inside a tag stops at its end, so the sequence can go on', () => {
  const ok = tag({ type: 'sequence', elements: [{ type: 'tag', begin: '<think>', content: { type: 'any_text' }, end: '</think>' }, c('\n\nAnswer:')] });
  check(ok, ['<think>thinking</think>\n\nAnswer:', '<think></think>\n\nAnswer:', '<think>a </thin b</think>\n\nAnswer:'], ['<think>a</think>b</think>\n\nAnswer:', '<think>thinking</think>', '<think>thinking']);
});

test('the end is excluded inside nested content too, and each tag excludes its own end', () => {
  const inner = { type: 'tag', begin: '[', content: { type: 'any_text' }, end: ']' };
  const ok = tag({ type: 'tag', begin: '<r>', content: { type: 'sequence', elements: [{ type: 'any_text' }, inner] }, end: '</r>' });
  check(ok, ['<r>x[y</r]</r>', '<r>[]</r>'], ['<r>x</r>[y]</r>', '<r>x[y]z</r>']);
});

test('case 3: a JSON string content closes with its quote and the tag end', () => {
  check(tag({ type: 'tag', begin: '<r>', content: { type: 'json_schema', json_schema: { type: 'string' } }, end: '</r>' }), ['<r>"abc"</r>', '<r> "a</r>" </r>'], ['<r>"abc</r>', '<r>abc</r>']);
});

test('optional, plus and star', () => {
  check(tag({ type: 'optional', content: c('ab') }), ['', 'ab'], ['abab', 'a']);
  check(tag({ type: 'plus', content: c('ab') }), ['ab', 'ababab'], ['', 'aba']);
  check(tag({ type: 'star', content: c('ab') }), ['', 'ab', 'ababab'], ['aba', 'b']);
});

test('case 28: repeat with large bounds counts exactly; max -1 is unbounded', () => {
  const ok = tag({ type: 'repeat', min: 200, max: 300, content: c('a') });
  check(ok, ['a'.repeat(200), 'a'.repeat(256), 'a'.repeat(300)], ['a'.repeat(199), 'a'.repeat(301), '']);
  check(tag({ type: 'repeat', min: 2, max: -1, content: c('ab') }), ['abab', 'ab'.repeat(50)], ['ab', '']);
  check(tag({ type: 'repeat', min: 0, max: 0, content: c('a') }), [''], ['a']);
  check(tag({ type: 'repeat', min: 1, max: 3, content: c('a') }), ['a', 'aaa'], ['', 'aaaa']);
});

test('case 29: a nullable repeat body relaxes the minimum', () => {
  check(tag({ type: 'repeat', min: 2, max: 3, content: { type: 'optional', content: c('a') } }), ['', 'a', 'aaa'], ['aaaa']);
});

test.run();
