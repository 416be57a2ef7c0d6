// The token-level cases of GRAMMAR.md section 7 on small raw vocabularies, each also checked
// against the brute-force mask: UTF-8 split across tokens (4), subtree skipping (30), byte sort
// order around 4-byte characters (31), rollback and fork (32), token dispatch (23), jump-forward
// at token alternatives (24), special and stop tokens (25), termination.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type Expr, Grammar, GrammarCompiler, type GrammarIR, GrammarMatcher, TokenizerInfo } from '../../compiler/index.js';
import { allowedIds, bruteForceMask, differences, fastMask } from './token-oracle.js';

const test = suite('token-cases');
const enc = new TextEncoder();
const lit = (s: string): Expr => ({ kind: 'bytes', bytes: enc.encode(s) });
const rule = (name: string, body: Expr) => ({ name, body, lookahead: null, exactLookahead: false });

/** A raw vocabulary: strings are UTF-8, number arrays raw bytes; `</s>` is the stop token. */
function vocab(tokens: (string | number[])[], special: number[] = []): TokenizerInfo {
  const bytes = tokens.map((t) => (typeof t === 'string' ? enc.encode(t) : Uint8Array.from(t)));
  const stop = tokens.indexOf('</s>');
  return TokenizerInfo.fromTokenBytes({ tokens: bytes, stop: stop >= 0 ? [stop] : [], special });
}

function setup(info: TokenizerInfo, grammar: Grammar): { m: GrammarMatcher; mask: () => number[] } {
  const m = new GrammarMatcher(new GrammarCompiler(info).compile(grammar));
  const mask = (): number[] => {
    const fast = fastMask(m, info);
    assert.equal(differences(fast, bruteForceMask(m, info)), [], 'fast mask equals brute force');
    return allowedIds(fast);
  };
  return { m, mask };
}

test('4: UTF-8 split across tokens', () => {
  const info = vocab([[0xce], [0xb1], [0xce, 0xb1], '</s>', 'a']);
  const { m, mask } = setup(info, Grammar.fromEBNF('root ::= [\\u03b1-\\u03c9]+'));
  assert.equal(mask(), [0, 2]);
  assert.ok(m.acceptToken(0));
  assert.equal(mask(), [1], 'after a lead byte only its continuation, no stop token');
  assert.ok(m.acceptToken(1));
  assert.equal(mask(), [0, 2, 3], 'after a whole character the stop token too');
});

test('30: subtree skipping uses a true prefix test', () => {
  const info = vocab(['a', 'bx', 'cbx', '</s>']);
  const { mask } = setup(info, Grammar.fromEBNF('root ::= "b" "y" | "cbx"'));
  assert.equal(mask(), [2]);
});

test('31: byte order around 4-byte characters, private-use characters and broken UTF-8', () => {
  const tokens: (string | number[])[] = ['😀', '😀x', '\uE000', '\uFFFD', '\uFFFF', 'x', '\u{1F600}\uE000', [0xf0], [0xf0, 0x9f], [0xf0, 0x9f, 0x98], [0x98, 0x80], [0x80], [0xef, 0xbf], [0xbf, 0xbf], '</s>', 'é', [0xc3]];
  const info = vocab(tokens);
  // Sorted by bytes, not by UTF-16 code units (where U+E000 sorts after a surrogate pair's 0xD83D).
  const keys = [...info.sorted].map((t) => Buffer.from(info.tokenBytes(t)).toString('hex'));
  assert.equal(keys, [...keys].sort());
  const { m, mask } = setup(info, Grammar.fromEBNF('root ::= ("😀" | [\\ue000-\\uffff] | "x" | "é")+'));
  mask();
  for (const id of [8, 10, 2, 15, 9, 11, 5, 0]) {
    assert.ok(m.acceptToken(id), `token ${id}`);
    mask();
  }
});

test('32: rollback and fork, through both the byte and the token path', () => {
  // Token 1 ("ab") matches by bytes and through Token(1): both rows merge.
  const info = vocab(['a', 'ab', 'b', '!', '</s>']);
  const ir: GrammarIR = { root: 0, rules: [rule('root', { kind: 'seq', items: [{ kind: 'choice', items: [lit('ab'), { kind: 'token', ids: [1] }] }, { kind: 'choice', items: [lit('!'), lit('b!')] }] })] };
  const { m, mask } = setup(info, Grammar.fromIR(ir));
  assert.equal(mask(), [0, 1]);
  assert.ok(m.acceptToken(1));
  assert.equal(mask(), [2, 3]);
  m.rollback(1);
  assert.equal(mask(), [0, 1], 'rolled back to the start');
  assert.ok(m.acceptToken(0) && m.acceptToken(2) && m.acceptToken(3));
  assert.equal(mask(), [4], 'complete: only the stop token');
  assert.ok(m.acceptToken(4));
  assert.ok(m.isTerminated());
  assert.not.ok(m.acceptToken(3), 'nothing after termination');
  assert.throws(() => m.fillNextTokenBitmask(new Uint32Array(1)));
  m.rollback(1);
  assert.not.ok(m.isTerminated(), 'rolling back the stop token un-terminates');
  assert.equal(mask(), [4]);
  const fork = m.fork();
  m.rollback(3);
  assert.equal(m.acceptedUnits, 0);
  assert.equal(mask(), [0, 1], 'rollback to 0 equals reset');
  assert.equal(fork.acceptedUnits, 3, 'the fork kept its history');
  assert.ok(fork.acceptToken(4) && fork.isTerminated());
  assert.not.ok(m.isTerminated());
});

test('23: token dispatch with an excluded token', () => {
  const info = vocab(['<|tool|>', 'x', 'hello', 'y', '</s>']);
  const ir: GrammarIR = { root: 0, rules: [rule('root', { kind: 'tokenDispatch', tags: [{ token: 0, rule: 1 }], loop: false, excludes: [2] }), rule('x', lit('x'))] };
  const { m, mask } = setup(info, Grammar.fromIR(ir));
  assert.equal(mask(), [0, 1, 3, 4], 'every token but the excluded one, and the stop token');
  assert.not.ok(m.fork().acceptString('<|tool|>x'), 'the trigger as text does not dispatch');
  assert.ok(m.acceptToken(0));
  assert.equal(mask(), [1]);
});

test('24: jump-forward stops at a token-level alternative', () => {
  const info = vocab(['a', 'abc', '!', '</s>', 'tok']);
  const alt: GrammarIR = { root: 0, rules: [rule('root', { kind: 'choice', items: [{ kind: 'seq', items: [{ kind: 'token', ids: [4] }, lit('!')] }, lit('abc')] })] };
  assert.is(new GrammarMatcher(new GrammarCompiler(info).compile(Grammar.fromIR(alt))).findJumpForwardString(), '');
  const m = new GrammarMatcher(new GrammarCompiler(info).compile(Grammar.fromEBNF('root ::= "ab" ("c" | "d") "é!" | "abé"')));
  assert.is(m.findJumpForwardString(), 'ab');
  m.acceptString('abc');
  assert.is(m.findJumpForwardString(), 'é!');
  assert.equal([...m.findJumpForwardBytes()], [0xc3, 0xa9, 0x21]);
  assert.ok(m.acceptString('é'), 'jump-forward left the matcher as it was');
});

test('25: special tokens are never allowed, stop tokens only where the root can end', () => {
  // Token 1 decodes to nothing; token 2 is marked special although it has text.
  const info = vocab(['a', [], '<|x|>', '</s>'], [2]);
  const ir: GrammarIR = { root: 0, rules: [rule('root', { kind: 'seq', items: [{ kind: 'token', ids: [1, 3] }, lit('a'), { kind: 'choice', items: [{ kind: 'token', ids: [2] }, lit('a')] }] })] };
  const { m, mask } = setup(info, Grammar.fromIR(ir));
  assert.equal(mask(), [], 'neither an empty token nor a stop token through Token()');
  const text = setup(info, Grammar.fromEBNF('root ::= "a" "<|x|>"?'));
  assert.equal(text.mask(), [0]);
  assert.ok(text.m.acceptToken(0));
  assert.equal(text.mask(), [3], 'a special token never matches its text');
  assert.not.ok(m.acceptToken(1));
  const viaToken = setup(info, Grammar.fromIR({ root: 0, rules: [rule('root', { kind: 'seq', items: [lit('a'), { kind: 'token', ids: [2] }] })] }));
  assert.ok(viaToken.m.acceptToken(0));
  assert.equal(viaToken.mask(), [2], 'a special token with text matches through Token()');
});

test('28: counted repeats beyond the unrolled range, checked against brute force at every step', () => {
  const info = vocab(['a', 'aa', 'aaaa', 'b', 'ab', '!', '</s>', 'x', 'xy', 'yz', 'z']);
  const { m, mask } = setup(info, Grammar.fromEBNF('root ::= "a"{200,300} "!"?'));
  for (let i = 0; i < 199; i++) {
    mask();
    assert.ok(m.acceptToken(0));
  }
  assert.equal(mask(), [0, 1, 2], '199 a: no stop, no "!" yet');
  assert.ok(m.acceptToken(0));
  assert.equal(mask(), [0, 1, 2, 5, 6], '200 a: more, "!", or the end');
  for (let i = 200; i < 296; i++) assert.ok(m.acceptToken(0));
  assert.equal(mask(), [0, 1, 2, 5, 6], '296 a: four more fit');
  assert.ok(m.acceptToken(1) && m.acceptToken(0));
  assert.equal(mask(), [0, 5, 6], '299 a: one more a, no "aa"');
  assert.ok(m.acceptToken(0));
  assert.equal(mask(), [5, 6], '300 a');
  const pairs = setup(info, Grammar.fromEBNF('root ::= ("x" [a-z]{130,132}){2}'));
  assert.ok(pairs.m.acceptToken(7));
  for (let i = 0; i < 130; i++) {
    if (i % 13 === 0) pairs.mask();
    assert.ok(pairs.m.acceptToken(10));
  }
  assert.equal(pairs.mask(), [0, 1, 3, 4, 7, 8, 9, 10], 'after 130 letters: up to two more letters ("aaaa" is too long), or the next x');
  assert.ok(pairs.m.acceptToken(8), '"xy": the next repetition starts inside a token');
  pairs.mask();
});

test('ids past the vocabulary (padding up to the logits width) are never allowed', () => {
  const info = TokenizerInfo.fromTokenBytes({ tokens: [enc.encode('a'), enc.encode('</s>')], stop: [1], logitsWidth: 70 });
  const { m, mask } = setup(info, Grammar.fromEBNF('root ::= "a"*'));
  assert.equal(mask(), [0, 1]);
  assert.not.ok(m.acceptToken(65));
  assert.throws(() => m.fillNextTokenBitmask(new Uint32Array(2)), (e: unknown) => e instanceof RangeError);
});

test('a grammar compiled without a vocabulary says so', () => {
  const m = new GrammarMatcher(new GrammarCompiler().compile(Grammar.fromEBNF('root ::= "a"')));
  assert.throws(() => m.acceptToken(0), /without a vocabulary/);
});

test.run();
