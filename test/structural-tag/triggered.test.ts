// triggered_tags and tags_with_separator at the byte level, with the flag semantics this
// front end chose (compiler/README.md, "Structural tags"; GRAMMAR.md §7 cases 2, 12, 14).
import { suite } from 'uvu';
import { check, tag } from './helpers.js';

const test = suite('structural-tag triggered formats');

const weatherTag = { begin: '<function=get_weather>', content: { type: 'const_string', value: 'X' }, end: '</function>' };
const triggered = (extra: object = {}) => tag({ type: 'triggered_tags', triggers: ['<function='], tags: [weatherTag], ...extra });
const call = '<function=get_weather>X</function>';

test('case 2: free text, a trigger, the tag, free text again; a partial trigger at the end is text', () => {
  check(triggered(), ['', 'hello', `hello ${call}`, `${call} bye ${call}`, 'text <functi', `${call}<function`], [
    'hello <function=get_time>X</function>',
    `hello <function=get_weather>Y</function>`,
    'hello <function=get_weather>X',
  ]);
});

test('case 12: at_least_one + stop_after_first is exactly one tag', () => {
  check(triggered({ at_least_one: true, stop_after_first: true }), [call], [`hi${call}`, `${call}hi`, '', 'hi', call + call]);
});

test('case 12: at_least_one alone starts with a tag; text and more tags may follow', () => {
  check(triggered({ at_least_one: true }), [call, `${call} later text ${call}`, `${call}hi`], [`hi${call}`, '', 'hi']);
});

test('case 12: stop_after_first alone allows leading text and text only, nothing after the tag', () => {
  check(triggered({ stop_after_first: true }), [`hi${call}`, 'hi', '', call], [`${call}hi`, `${call}${call}`]);
});

test('several tags per trigger, several triggers', () => {
  const ok = tag({
    type: 'triggered_tags',
    triggers: ['<f=', '<<'],
    tags: [
      { begin: '<f=a>', content: { type: 'const_string', value: '1' }, end: '</f>' },
      { begin: '<f=b>', content: { type: 'const_string', value: '2' }, end: '</f>' },
      { begin: '<<c', content: { type: 'const_string', value: '3' }, end: '>>' },
    ],
  });
  check(ok, ['x<f=a>1</f>y<f=b>2</f><<c3>>'], ['<f=a>2</f>', '<f=c>1</f>', '<<d3>>']);
});

test('excludes cannot appear in the free text; the enclosing tag end is excluded too', () => {
  check(triggered({ excludes: ['<|im_end|>'] }), ['hi', `hi${call}`], ['hi<|im_end|>', `${call}<|im_end|>`]);
  const inTag = tag({ type: 'tag', begin: '<r>', content: { type: 'triggered_tags', triggers: ['<function='], tags: [weatherTag] }, end: '</r>' });
  check(inTag, [`<r>a${call}b</r>`, '<r></r>'], ['<r>a</r>b</r>']);
});

test('when two triggers end at the same byte the longest one dispatches', () => {
  // "x<a" ends with the trigger "<a" too; the longer, more specific trigger wins.
  const ok = tag({
    type: 'triggered_tags',
    triggers: ['<a', 'x<a'],
    tags: [
      { begin: '<a1', content: { type: 'const_string', value: '' }, end: '!' },
      { begin: 'x<a2', content: { type: 'const_string', value: '' }, end: '?' },
    ],
  });
  check(ok, ['y<a1!', 'x<a2?', 'xx<a2?'], ['x<a1!', 'x<a2!']);
});

const sep = (extra: object = {}) =>
  tag({
    type: 'tags_with_separator',
    separator: ',',
    tags: [
      { begin: '<a>', content: { type: 'const_string', value: '1' }, end: '</a>' },
      { begin: '<b>', content: { type: 'any_text' }, end: '</b>' },
    ],
    ...extra,
  });

test('case 14: tags_with_separator: zero or more tags joined by the separator, nothing else', () => {
  check(sep(), ['', '<a>1</a>', '<a>1</a>,<b>x</b>', '<b>x</b>,<a>1</a>,<a>1</a>'], ['<a>1</a>,', ',<a>1</a>', 'x<a>1</a>', '<a>1</a><a>1</a>', '<a>1</a>, <a>1</a>']);
});

test('tags_with_separator flags: at_least_one drops "", stop_after_first allows one tag', () => {
  check(sep({ at_least_one: true }), ['<a>1</a>', '<a>1</a>,<a>1</a>'], ['']);
  check(sep({ stop_after_first: true }), ['', '<a>1</a>'], ['<a>1</a>,<a>1</a>']);
  check(sep({ stop_after_first: true, at_least_one: true }), ['<b>q</b>'], ['', '<a>1</a>,<a>1</a>']);
});

test('differences from the reference (compiler/README.md): a separator equal to the enclosing end, an empty enclosing end', () => {
  // The separator and the tag's end are the same text: both readings stay open, so a second
  // tag may follow (the reference stops after the first tag in this case).
  const same = tag({ type: 'tag', begin: '<r>', content: { type: 'tags_with_separator', separator: '</r>', tags: [{ begin: '<a>', content: { type: 'const_string', value: '1' }, end: '</a>' }] }, end: '</r>' });
  check(same, ['<r></r>', '<r><a>1</a></r>', '<r><a>1</a></r><a>1</a></r>'], ['<r><a>1</a>', '<r><a>1</a></r></r>']);
  // tags_with_separator is bounded by its own tags, so an enclosing tag may end with "" (the
  // reference refuses the empty end).
  const bare = tag({ type: 'tag', begin: '<s>', content: { type: 'tags_with_separator', separator: ';', tags: [{ begin: '<a>', content: { type: 'const_string', value: '1' }, end: '</a>' }] }, end: '' });
  check(bare, ['<s>', '<s><a>1</a>;<a>1</a>'], ['<s><a>1</a>;', '<s>x']);
});

test.run();
