// dispatch at the byte level: the Aho-Corasick cases of GRAMMAR.md §7 (7-11, 13) written as
// structural tags, loop on and off, and excludes as terminators of the node.
import { suite } from 'uvu';
import { check, tag } from './helpers.js';

const test = suite('structural-tag dispatch');
const c = (value: string) => ({ type: 'const_string', value });
const dispatch = (rules: [string, unknown][], extra: object = {}) => ({ type: 'dispatch', rules, ...extra });

test('case 7: an exclude ending inside a longer exclude is still found', () => {
  check(tag(dispatch([], { excludes: ['bc', 'abcd'] })), ['abx', 'xb'], ['abcx', 'xbcx']);
});

test('case 8: overlapping excludes', () => {
  check(tag(dispatch([], { excludes: ['bcd', 'abce'] })), ['abc', 'abcb'], ['abcd', 'abcbcd', 'abce']);
});

test('case 9: a trigger ending inside a longer trigger dispatches', () => {
  check(tag(dispatch([['ab', c('R')], ['xabc', c('S')]], { loop: false })), ['zabR', 'xabcS'], ['xabQ', 'abQ']);
});

test('case 10: triggers that are prefixes of each other', () => {
  check(tag(dispatch([['<a', c('X')], ['<ab', c('Y')]], { loop: false })), ['<aX', '<abY'], ['<abX', '<aY']);
});

test('case 11: an empty dispatch is free text; an exclude is never produced', () => {
  check(tag(dispatch([])), ['', 'any string', '好'], []);
  check(tag(dispatch([], { excludes: ['end'] })), ['any string', 'en'], ['any stringend', 'endaaa']);
});

test('loop: free text and more patterns after a rule; without loop the node ends', () => {
  check(tag(dispatch([['@', c('1')]])), ['a@1b@1c', '@1@1'], ['a@2', 'a@']);
  check(tag(dispatch([['@', c('1')]], { loop: false })), ['a@1', 'abc'], ['a@1b', '@1@1']);
});

test('case 13: dispatch inside a tag, with the end as an exclude', () => {
  const ok = tag({ type: 'tag', begin: '<r>', content: dispatch([['@a', c('1')]], { excludes: ['</r>'] }), end: '</r>' });
  check(ok, ['<r>x@a1y@a1</r>', '<r>x@</r>', '<r></r>'], ['<r>x@a2</r>', '<r>x</r>y</r>']);
});

test('the enclosing end is excluded automatically (unlike the reference), so the tag can always close', () => {
  const ok = tag({ type: 'tag', begin: '<r>', content: dispatch([['@a', c('1')]]), end: '</r>' });
  check(ok, ['<r>x@a1y</r>', '<r>x</r'.concat('</r>')], ['<r>x</r>y</r>']);
});

test('an exclude terminates the node: the next element of a sequence matches it', () => {
  const ok = tag({ type: 'sequence', elements: [dispatch([['@', c('1')]], { excludes: ['STOP'] }), c('STOP'), c('!')] });
  check(ok, ['ab@1cSTOP!', 'STOP!'], ['ab@1c!', 'abSTOPxSTOP!']);
});

test('a rule format can be any node, e.g. a JSON schema', () => {
  const ok = tag(dispatch([['<call>', { type: 'tag', begin: '', content: { type: 'json_schema', json_schema: { type: 'integer' } }, end: '</call>' }]]));
  check(ok, ['text <call>12</call> more'], ['text <call>x</call>']);
});

test.run();
