import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { Grammar } from '../../compiler/index.js';
import { ebnf, matcherFor, regex } from './helpers.js';

const test = suite('matcher');

test('acceptString is atomic: a failing string changes nothing', () => {
  const m = matcherFor(Grammar.fromEBNF('root ::= "ab" "cd"'));
  assert.ok(m.acceptString('a'));
  assert.not.ok(m.acceptString('bx'));
  assert.equal(m.acceptedUnits, 1);
  assert.ok(m.acceptString('bc'));
  assert.not.ok(m.isCompleted());
  assert.ok(m.acceptString('d'));
  assert.ok(m.isCompleted());
  assert.not.ok(m.acceptString('x'), 'nothing may follow a complete root here');
});

test('rollback by units, reset, and rollback(all) equals reset', () => {
  const m = matcherFor(Grammar.fromEBNF('root ::= [a-z]+ "!"'));
  m.acceptString('ab');
  m.acceptString('');
  m.acceptString('c!');
  assert.ok(m.isCompleted());
  m.rollback(1);
  assert.not.ok(m.isCompleted());
  assert.equal(m.acceptedUnits, 2);
  assert.ok(m.acceptString('zz!'));
  m.rollback(3);
  assert.equal(m.acceptedUnits, 0);
  assert.not.ok(m.acceptString('!'), 'back at the start');
  assert.ok(m.acceptString('q!'));
  m.reset();
  assert.equal(m.acceptedUnits, 0);
  assert.throws(() => m.rollback(1), (e: unknown) => e instanceof RangeError);
  assert.throws(() => m.rollback(-1), (e: unknown) => e instanceof RangeError);
});

test('forks diverge independently', () => {
  const a = matcherFor(Grammar.fromEBNF('root ::= "x" ("1" | "2") "y"'));
  a.acceptString('x');
  const b = a.fork();
  assert.ok(a.acceptString('1'));
  assert.ok(b.acceptString('2'));
  assert.not.ok(a.acceptString('2'));
  assert.ok(a.acceptString('y') && a.isCompleted());
  b.rollback(1);
  assert.ok(b.acceptString('1y') && b.isCompleted());
});

test('UTF-8 split across accepts (case 4)', () => {
  const m = matcherFor(Grammar.fromEBNF('root ::= [\\u03b1-\\u03c9]+'));
  assert.ok(m.acceptBytes(new Uint8Array([0xce])));
  assert.not.ok(m.isCompleted(), 'half a character cannot end');
  assert.not.ok(m.acceptBytes(new Uint8Array([0xce])));
  assert.ok(m.acceptBytes(new Uint8Array([0xb1])));
  assert.ok(m.isCompleted());
});

test('case 28: large repeats at the 127/128/129 and n-1/n/n+1 boundaries', () => {
  const r = ebnf('root ::= "a"{200,300}');
  for (const [n, ok] of [[199, false], [200, true], [201, true], [299, true], [300, true], [301, false]] as const) {
    assert.is(r('a'.repeat(n)), ok, `${n}`);
  }
  const s = ebnf('root ::= "ab"{2,}');
  assert.not.ok(s('ab'));
  assert.ok(s('abab'));
  assert.ok(s('ab'.repeat(50)));
  const z = ebnf('root ::= "a"{0,300}');
  for (const n of [0, 126, 127, 128, 129, 255, 256, 300]) assert.ok(z('a'.repeat(n)), `${n}`);
  assert.not.ok(z('a'.repeat(301)));
  const t = ebnf('root ::= [a-z]{130,1000} "!"');
  for (const [n, ok] of [[129, false], [130, true], [999, true], [1000, true], [1001, false]] as const) {
    assert.is(t('q'.repeat(n) + '!'), ok, `${n}`);
  }
  const m = matcherFor(Grammar.fromEBNF('root ::= [a-z]{130,1000} "!"'));
  for (let i = 0; i < 999; i++) m.acceptString('k');
  assert.ok(m.acceptString('k'), 'the 1000th letter');
  assert.not.ok(m.acceptString('k'), 'no 1001st');
  assert.ok(m.acceptString('!') && m.isCompleted());
});

test('large repeats of a rule with nested structure', () => {
  const r = ebnf('root ::= item{126,130}\nitem ::= "(" [0-9]* ")"');
  assert.not.ok(r('()'.repeat(125)));
  for (const n of [126, 127, 128, 129, 130]) assert.ok(r('(1)'.repeat(n)), `${n}`);
  assert.not.ok(r('()'.repeat(131)));
});

test('case 29: a nullable repeat body relaxes the minimum', () => {
  const r = ebnf('root ::= ("a"?){2,3}');
  assert.ok(r(''));
  assert.ok(r('aaa'));
  assert.not.ok(r('aaaa'));
  const big = ebnf('root ::= x{200,300}\nx ::= "a" | ""');
  assert.ok(big(''));
  assert.ok(big('a'.repeat(300)));
  assert.not.ok(big('a'.repeat(301)));
});

test('ambiguous and left-recursive grammars', () => {
  const amb = ebnf('root ::= a a\na ::= "x"* ');
  assert.ok(amb(''));
  assert.ok(amb('xxxx'));
  const left = ebnf('root ::= root "," item | item\nitem ::= [0-9]+');
  assert.ok(left('1,22,333'));
  assert.not.ok(left('1,,2'));
});

test('differential: regexes against JavaScript RegExp on random strings', () => {
  const patterns = ['(a|ab)(c|bcd)(d*)', '[a-c]{2,4}b?', '(?:ab|ba)+c{0,2}', 'a{3}|b{1,2}|(ab)*', '[^b]+b[ab]?', '(a*)*b', 'x{0,130}'];
  for (const p of patterns) {
    const ours = regex(p);
    const js = new RegExp(`^(?:${p})$`, 'u');
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'd', 'x'), maxLength: 12 }), (s) => ours(s) === js.test(s)),
      { numRuns: 300 },
    );
    assert.is(ours('x'.repeat(130)), js.test('x'.repeat(130)));
  }
});

test.run();
