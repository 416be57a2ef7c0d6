import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Grammar, GrammarError } from '../../compiler/index.js';
import { regex } from './helpers.js';

const test = suite('regex');

test('literals, dot, classes and escapes', () => {
  const ok = regex(String.raw`a.c[x-z]\d\w\s\D\W\S\u00e9\u{1F600}\x41\.`);
  assert.ok(ok('abcy1_ a!xé😀A.'));
  assert.not.ok(ok('abcy1_ 1!xé😀A.'), '\\D rejects a digit');
  assert.ok(regex('.')('好'));
  assert.not.ok(regex('.')('\n'), 'dot excludes line terminators, as in JavaScript');
  assert.ok(regex('[^abc]')('d'));
  assert.not.ok(regex('[^abc]')('a'));
  assert.ok(regex(String.raw`[\d\s]+`)('1 2\t3'));
});

test('groups, non-capturing and named groups, alternation', () => {
  const ok = regex('(ab|cd)(?:e|f)(?<n>g)?');
  assert.ok(ok('abe'));
  assert.ok(ok('cdfg'));
  assert.not.ok(ok('abg'));
});

test('quantifiers including lazy and large bounds', () => {
  assert.ok(regex('a*?b+c?')('bb'));
  const big = regex('x{2,300}');
  assert.not.ok(big('x'));
  assert.ok(big('xx'));
  assert.ok(big('x'.repeat(127)));
  assert.ok(big('x'.repeat(128)));
  assert.ok(big('x'.repeat(129)));
  assert.ok(big('x'.repeat(300)));
  assert.not.ok(big('x'.repeat(301)));
  const exact = regex('y{1000}');
  assert.ok(exact('y'.repeat(1000)));
  assert.not.ok(exact('y'.repeat(999)));
  assert.not.ok(exact('y'.repeat(1001)));
  assert.ok(regex('z{130,}')('z'.repeat(500)));
  assert.not.ok(regex('z{130,}')('z'.repeat(129)));
});

test("flags: a leading (?i) (Python's spelling) makes the pattern caseless; modifier groups (?i:..), (?s:..), (?-i:..) set flags inside (they were read without them)", () => {
  const hello = regex('(?i)hello');
  for (const text of ['hello', 'HELLO', 'HeLlO']) assert.ok(hello(text), text);
  assert.not.ok(hello('hellø'));
  assert.ok(regex('(?i)^[a-c]+É$')('AbCé'), 'classes and non-ASCII letters fold too');
  assert.not.ok(regex('(?i)[^a]')('A'), 'a caseless negated class leaves out every case of what it lists');
  assert.ok(regex('(?i)[^a]')('b'));
  assert.ok(regex('a(?i:b)c')('aBc'));
  assert.not.ok(regex('a(?i:b)c')('aBC'), 'only inside the group');
  assert.not.ok(regex('(?i)a(?-i:b)')('AB'));
  assert.ok(regex('(?i)a(?-i:b)')('Ab'));
  assert.ok(regex('a(?s:.)b')('a\nb'), '(?s:.) takes a line break');
  assert.not.ok(regex('a.b')('a\nb'));
  assert.ok(regex('(?i)\\d+x')('12X'));
  // pydantic's constr(pattern=...) users write (?i); JSON Schema's search semantics keep it.
  assert.ok(Grammar.fromJSONSchema({ type: 'string', pattern: '(?i)^ab' }) instanceof Grammar);
});

test("caseless matches what JavaScript's /iu matches, no more: both ways of a case mapping (K, the Kelvin sign and k), \\w and \\W as /iu reads them, and ı apart from I", () => {
  const cases: [string, RegExp, string][] = [
    ['(?i)[^k]', /^[^k]$/iu, '\u212a'],
    ['(?i)k', /^k$/iu, '\u212a'],
    ['(?i)[^s]', /^[^s]$/iu, 'ſ'],
    ['(?i)ς', /^ς$/iu, 'σ'],
    ['(?i)[^ß]', /^[^ß]$/iu, 'ẞ'],
    ['(?i)[\\W]', /^[\W]$/iu, 'k'],
    ['(?i)[\\W]', /^[\W]$/iu, 'S'],
    ['(?i)\\W', /^\W$/iu, 'ſ'],
    ['(?i)\\w', /^\w$/iu, '\u212a'],
    ['(?i)[^\\w]', /^[^\w]$/iu, 'ſ'],
    ['(?i)ı', /^ı$/iu, 'I'],
    ['(?i)[a-z]', /^[a-z]$/iu, '\u212a'],
  ];
  for (const [pattern, js, text] of cases) assert.is(regex(pattern)(text), js.test(text), `${pattern} on ${JSON.stringify(text)}`);
  // A sample of every cased code point and what its case mappings reach, against /iu.
  for (let cp = 0x41; cp <= 0x1e943; cp += 97) {
    const t = String.fromCodePoint(cp);
    if (t.toLowerCase() === t && t.toUpperCase() === t) continue;
    const reached = new Set([t, t.toLowerCase(), t.toUpperCase(), t.toLowerCase().toUpperCase(), t.toUpperCase().toLowerCase()].filter((s) => [...s].length === 1));
    const escaped = `\\u{${cp.toString(16)}}`;
    for (const [pattern, js] of [[`(?i)${escaped}`, new RegExp(`^${escaped}$`, 'iu')], [`(?i)[^${escaped}]`, new RegExp(`^[^${escaped}]$`, 'iu')]] as const) {
      const ok = regex(pattern);
      for (const text of reached) assert.is(ok(text), js.test(text), `${pattern} on ${JSON.stringify(text)}`);
    }
  }
});

test('anchors at the ends are accepted; the match is always whole', () => {
  const ok = regex('^ab$|^cd');
  assert.ok(ok('ab'));
  assert.ok(ok('cd'));
  assert.not.ok(ok('abx'));
  assert.not.ok(regex('b')('ab'));
});

function errorOf(pattern: string): GrammarError {
  try {
    Grammar.fromRegex(pattern);
  } catch (e) {
    assert.instance(e, GrammarError);
    return e as GrammarError;
  }
  throw new Error(`expected ${pattern} to fail`);
}

test('unsupported features are errors naming the feature and its offset', () => {
  const cases: [string, RegExp, number][] = [
    ['(a)\\1', /back-reference '\\1' at offset 3/, 3],
    ['(?:a(?=b))b', /lookahead inside a group or quantifier .*'\(\?=b\)' at offset 4/, 4],
    ['(?<!x)a', /lookbehind/, 0],
    ['a\\bc', /word boundary '\\b' at offset 1/, 1],
    ['\\p{L}', /Unicode property escape/, 0],
    ['a^b', /anchor .* at offset 1/, 1],
    ['[a\\p{L}]', /class element '\\p\{L\}' at offset 2/, 2],
    ['(a$)b', /anchor/, 2],
    // Inline flags other than a leading (?i) are named as such (it said 'Invalid group').
    ['a(?i)b', /the inline flags '\(\?i\)' at offset 1: only a leading \(\?i\) is taken/, 1],
    ['(?x)a b', /the inline flags '\(\?x\)' at offset 0/, 0],
  ];
  for (const [pattern, message, offset] of cases) {
    const e = errorOf(pattern);
    assert.match(e.message, message, pattern);
    assert.equal(e.location, { kind: 'regex', offset }, pattern);
  }
});

test('syntax errors carry the offset', () => {
  const e = errorOf('ab(c');
  assert.match(e.message, /^regex: .*at offset \d+/);
  assert.equal(e.location.kind, 'regex');
});

test.run();
