import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Grammar, GrammarCompiler, GrammarError } from '../../compiler/index.js';
import { ebnf } from './helpers.js';

const test = suite('ebnf');

test('rules, groups, alternation and every quantifier', () => {
  const ok = ebnf(String.raw`
    # a comment
    root ::= greeting ("," ws name)+ "!"? tail{2} more{1,} few{0,2}  # trailing comment
    greeting ::= "hi" | "hello"
    name ::= [A-Z] [a-z]*
    ws ::= " "*
    tail ::= "."
    more ::= "m"
    few ::= "f"
  `);
  assert.ok(ok('hi, Ann..m'));
  assert.ok(ok('hello,Bob,  Cy!..mmmff'));
  assert.not.ok(ok('hi..m'), '+ needs one name');
  assert.not.ok(ok('hi, Ann.m'), '{2} is exact');
  assert.not.ok(ok('hi, Ann..'), '{1,} needs one');
  assert.not.ok(ok('hi, Ann..mfff'), '{0,2} caps');
});

test('string escapes', () => {
  const ok = ebnf(String.raw`root ::= "\n\t\"\\\x41\u00e9\U0001F600\r\/"`);
  assert.ok(ok('\n\t"\\Aé😀\r/'));
  assert.not.ok(ok('\n\t"\\A'));
});

test('character classes: ranges, negation, escapes, any', () => {
  const cls = ebnf(String.raw`root ::= [a-c\-\]x] [^0-9\n] [^]`);
  assert.ok(cls('-]好'));
  assert.ok(cls('bz\n'));
  assert.not.ok(cls('d z'));
  assert.not.ok(cls('a5z'));
  assert.not.ok(cls('a\nz'));
  const utf = ebnf(String.raw`root ::= [\u03b1-\u03c9]+`);
  assert.ok(utf('αβω'));
  assert.not.ok(utf('αa'));
});

test('empty groups and empty alternatives are ""', () => {
  const ok = ebnf('root ::= "a" () ("b" | ) "c"');
  assert.ok(ok('ac'));
  assert.ok(ok('abc'));
});

test('a chosen root, left and right recursion, nullable rules', () => {
  const ok = ebnf('expr ::= expr "+" term | term\nterm ::= [0-9]+ | "(" expr ")"\nunused ::= "x"', 'expr');
  assert.ok(ok('1+2+(3+4)'));
  assert.not.ok(ok('1+'));
  const nested = ebnf('root ::= "(" root ")" root | ""');
  assert.ok(nested(''));
  assert.ok(nested('(()())()'));
  assert.not.ok(nested('(()'));
});

test('lookahead assertions are parsed and kept on the rule', () => {
  const g = Grammar.fromEBNF('root ::= item ";"\nitem ::= [a-z]+ (= ";")');
  assert.equal(g.ir.rules[1]!.lookahead, { kind: 'seq', items: [{ kind: 'bytes', bytes: new TextEncoder().encode(';') }] });
  // After the passes: a single non-last occurrence makes the written lookahead exact.
  const item = new GrammarCompiler().compile(g).ir.rules.find((r) => r.name === 'item')!;
  assert.ok(item.exactLookahead);
  assert.ok(ebnf('root ::= item ";"\nitem ::= [a-z]+ (= ";")')('abc;'));
});

function errorOf(fn: () => unknown): GrammarError {
  try {
    fn();
  } catch (e) {
    assert.instance(e, GrammarError);
    return e as GrammarError;
  }
  throw new Error('expected a GrammarError');
}

test('parse errors name line, column and what was expected', () => {
  const e = errorOf(() => Grammar.fromEBNF('root ::= "a"\nb ::= "x" |* "y"'));
  assert.equal(e.location, { kind: 'text', line: 2, column: 12 });
  assert.match(e.message, /line 2, column 12: the repetition '\*' has nothing before it to repeat/);
  const missing = errorOf(() => Grammar.fromEBNF('root ::= ("a"'));
  assert.match(missing.message, /expected .*'\)'.*found the end of the grammar/);
  const noDef = errorOf(() => Grammar.fromEBNF('root "a"'));
  assert.match(noDef.message, /line 1, column 6: expected '::='/);
});

test('lexical errors: unterminated string or class, stray character', () => {
  assert.match(errorOf(() => Grammar.fromEBNF('root ::= "abc')).message, /line 1, column 10: unterminated string/);
  assert.match(errorOf(() => Grammar.fromEBNF('root ::= [abc')).message, /unterminated character class/);
  assert.match(errorOf(() => Grammar.fromEBNF('root ::= "a" @')).message, /column 14: unexpected '@'/);
});

test('semantic errors point at the offending token', () => {
  const undef = errorOf(() => Grammar.fromEBNF('root ::= "a" other'));
  assert.equal(undef.location, { kind: 'text', line: 1, column: 14 });
  assert.match(undef.message, /'other' is not defined/);
  assert.match(errorOf(() => Grammar.fromEBNF('root ::= "a"\nroot ::= "b"')).message, /line 2, column 1: the rule 'root' is defined twice/);
  assert.match(errorOf(() => Grammar.fromEBNF('start ::= "a"')).message, /root rule 'root' is not defined/);
  assert.match(errorOf(() => Grammar.fromEBNF('start ::= "a"', { root: 'main' })).message, /'main' is not defined/);
  assert.match(errorOf(() => Grammar.fromEBNF('')).message, /grammar is empty/);
});

test('bad quantifiers and escapes', () => {
  assert.match(errorOf(() => Grammar.fromEBNF('root ::= "a"{,3}')).message, /needs a lower bound/);
  assert.match(errorOf(() => Grammar.fromEBNF('root ::= "a"{3,2}')).message, /upper bound below its lower bound/);
  assert.match(errorOf(() => Grammar.fromEBNF('root ::= "a"++')).message, /line 1, column 14: the repetition '\+' follows the repetition '\+' \(to repeat a repetition, group it: \(x\+\)\?\)/);
  assert.match(errorOf(() => Grammar.fromEBNF('root ::= "a" |* "b"')).message, /line 1, column 15: the repetition '\*' has nothing before it to repeat/);
  assert.match(errorOf(() => Grammar.fromEBNF('root ::= "a"{2}?')).message, /the repetition '\?' follows the repetition '\{2\}'/);
  assert.match(errorOf(() => Grammar.fromEBNF('root ::= "a"{99999999999}')).message, /too large/);
  const esc = errorOf(() => Grammar.fromEBNF('root ::= "ab\\q"'));
  assert.match(esc.message, /line 1, column 13: unknown escape '\\q'/);
  assert.match(errorOf(() => Grammar.fromEBNF('root ::= "\\["')).message, /unknown escape '\\\['/);
  assert.match(errorOf(() => Grammar.fromEBNF('root ::= "\\x"')).message, /needs at least 1 hex digits/);
  assert.match(errorOf(() => Grammar.fromEBNF('root ::= [\\d]')).message, /\\d, \\w and \\s are not supported/);
  assert.match(errorOf(() => Grammar.fromEBNF('root ::= "\\u12"')).message, /needs 4 hex digits/);
  assert.match(errorOf(() => Grammar.fromEBNF('root ::= [z-a]')).message, /range ends before it starts/);
  assert.match(errorOf(() => Grammar.fromEBNF('root ::= "\\x110000"')).message, /beyond U\+10FFFF/);
});

test.run();
