// GRAMMAR.md §7 cases 7-11 and 13: tag dispatch through the Aho-Corasick automaton.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Grammar, GrammarCompiler, GrammarError, GrammarMatcher, type Expr, type GrammarIR } from '../../compiler/index.js';
import { accepts } from './helpers.js';

const test = suite('aho-corasick');
const utf8 = new TextEncoder();
const lit = (s: string): Expr => ({ kind: 'bytes', bytes: utf8.encode(s) });

/** root ::= TagDispatch((trigger, rule)...); each rule is a literal. */
function dispatch(tags: [string, string][], loop: boolean, excludes: string[] = []): (s: string) => boolean {
  const ir: GrammarIR = {
    root: 0,
    rules: [
      {
        name: 'root',
        body: { kind: 'tagDispatch', tags: tags.map(([t], i) => ({ trigger: utf8.encode(t), rule: i + 1 })), loop, excludes: excludes.map((e) => utf8.encode(e)) },
        lookahead: null,
        exactLookahead: false,
      },
      ...tags.map(([, body], i) => ({ name: `t${i}`, body: lit(body), lookahead: null, exactLookahead: false })),
    ],
  };
  return accepts(Grammar.fromIR(ir));
}

test('case 7: an exclude ending inside a longer exclude is still found', () => {
  const ok = dispatch([], false, ['bc', 'abcd']);
  assert.not.ok(ok('abcx'));
  assert.not.ok(ok('xbcx'));
  assert.ok(ok('abdx'));
});

test('case 8: overlapping excludes', () => {
  const ok = dispatch([], false, ['bcd', 'abce']);
  assert.not.ok(ok('abcd'));
  assert.not.ok(ok('abcbcd'));
  assert.ok(ok('abc'));
});

test('case 9: a trigger inside a longer trigger dispatches', () => {
  const ok = dispatch([['ab', 'R'], ['xabc', 'S']], false);
  assert.not.ok(ok('xabQ'));
  assert.ok(ok('zabR'));
  assert.ok(ok('xabR'));
  assert.ok(ok('xabcS'), 'the longer trigger can still complete');
  assert.not.ok(ok('zabRmore'), 'loop=false ends after the first dispatch');
});

test('case 10: triggers that are prefixes of each other', () => {
  const ok = dispatch([['<a', 'X'], ['<ab', 'Y']], true);
  assert.ok(ok('<aX'));
  assert.ok(ok('<abY'));
  assert.not.ok(ok('<abX'));
  assert.ok(ok('text <aX more <abY end'), 'loop=true returns to free text');
});

test('when two triggers end at once the longest dispatches', () => {
  const ok = dispatch([['b', 'short'], ['ab', 'long']], false);
  assert.ok(ok('ablong'));
  assert.not.ok(ok('abshort'));
  assert.ok(ok('xbshort'));
});

test('case 11: an empty dispatch is any text, minus excludes', () => {
  const any = dispatch([], false);
  assert.ok(any(''));
  assert.ok(any('any string'));
  assert.ok(any('好'));
  const ex = dispatch([], false, ['end']);
  assert.not.ok(ex('any stringend'));
  assert.not.ok(ex('endaaa'));
  assert.ok(ex('en'), 'a partial exclude at the end is free text');
});

test('case 13: dispatch inside a tag, closed by an excluded end', () => {
  const ir: GrammarIR = {
    root: 0,
    rules: [
      { name: 'root', body: { kind: 'seq', items: [lit('<r>'), { kind: 'ref', rule: 1 }, lit('</r>')] }, lookahead: null, exactLookahead: false },
      { name: 'd', body: { kind: 'tagDispatch', tags: [{ trigger: utf8.encode('@'), rule: 2 }], loop: true, excludes: [utf8.encode('</r>')] }, lookahead: null, exactLookahead: false },
      { name: 'a1', body: lit('a1'), lookahead: null, exactLookahead: false },
    ],
  };
  const ok = accepts(Grammar.fromIR(ir));
  assert.ok(ok('<r>x@a1y@a1</r>'));
  assert.not.ok(ok('<r>x@a2</r>'));
  assert.not.ok(ok('<r>x</r>y</r>'));
});

test('free text is well-formed UTF-8, with or without excludes and triggers', () => {
  for (const [tags, excludes] of [[[], ['end']], [[['→', 'x']], []]] as [[string, string][], string[]][]) {
    const ir: GrammarIR = {
      root: 0,
      rules: [
        { name: 'root', body: { kind: 'tagDispatch', tags: tags.map(([t]) => ({ trigger: utf8.encode(t), rule: 1 })), loop: false, excludes: excludes.map((e) => utf8.encode(e)) }, lookahead: null, exactLookahead: false },
        { name: 't', body: lit('x'), lookahead: null, exactLookahead: false },
      ],
    };
    const base = new GrammarMatcher(new GrammarCompiler().compile(Grammar.fromIR(ir)));
    const text = (bytes: number[]): 'complete' | 'prefix' | 'rejected' => {
      const m = base.fork();
      return !m.acceptBytes(Uint8Array.from(bytes)) ? 'rejected' : m.isCompleted() ? 'complete' : 'prefix';
    };
    const label = JSON.stringify({ tags, excludes });
    assert.is(text([0x61, 0xff]), 'rejected', `${label}: a byte no UTF-8 text has`);
    assert.is(text([0x80]), 'rejected', `${label}: a lone continuation byte`);
    assert.is(text([0xc0, 0x80]), 'rejected', `${label}: an overlong form`);
    assert.is(text([0xed, 0xa0, 0x80]), 'rejected', `${label}: a surrogate`);
    assert.is(text([0xe5]), 'prefix', `${label}: half a character is not text yet`);
    assert.is(text([0xe5, 0xa5, 0xbd]), 'complete', `${label}: 好`);
  }
  const ex = dispatch([], false, ['é']);
  assert.not.ok(ex('café'));
  assert.ok(ex('cafe e\u0301'));
  const tag = dispatch([['→', 'x']], false);
  assert.ok(tag('a→x'));
  assert.not.ok(tag('a→'));
  assert.ok(tag('a←'));
});

test('a trigger containing an exclude is an error', () => {
  assert.throws(() => dispatch([['<end>', 'x']], true, ['end']), (e: unknown) => e instanceof GrammarError && /can never fire/.test(e.message));
  assert.throws(() => dispatch([['', 'x']], true), (e: unknown) => e instanceof GrammarError && /trigger must not be empty/.test(e.message));
  assert.throws(() => dispatch([['a', 'x']], true, ['']), (e: unknown) => e instanceof GrammarError && /exclude must not be empty/.test(e.message));
});

test.run();
