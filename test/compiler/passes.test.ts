// The normalisation and optimisation passes, checked on the optimised IR.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Grammar, GrammarCompiler, type GrammarIR, GrammarMatcher } from '../../compiler/index.js';
import { GrammarBuilder } from '../../compiler/ir.js';
import { accepts } from './helpers.js';
import { grammarText } from '../../compiler/print.js';

const test = suite('passes');
const compile = (text: string): GrammarIR => new GrammarCompiler({ cache: false }).compile(Grammar.fromEBNF(text)).ir;
const ruleText = (ir: GrammarIR, name: string): string => grammarText(ir).split('\n').find((l) => l.startsWith(`${name} ::=`)) ?? '';

test('normal form: flattening, string fusion, one-character classes, "" first', () => {
  const ir = compile('root ::= ("a" ("b" "c")) [d] | ("x" | "" | ("y" | "z"))');
  assert.is(ruleText(ir, 'root'), 'root ::= "" | "abcd" | "x" | "y" | "z"');
});

test('inlining small rules without references; dead rules removed', () => {
  const ir = compile('root ::= digit+ sign\ndigit ::= [0-9]\nsign ::= "+" | "-"\nunused ::= "u"\nrec ::= rec "x"');
  assert.equal(ir.rules.map((r) => r.name), ['root']);
  assert.is(ruleText(ir, 'root'), 'root ::= [0-9]{1,} ("+" | "-")');
});

test('repetition expansion: small bounds stay inline, large ones count, identical ones are shared', () => {
  assert.is(ruleText(compile('root ::= "a"{3,128}'), 'root'), 'root ::= "a"{3,128}');
  const ir = compile('root ::= x "," x\nx ::= [a-z]{0,200}');
  const text = grammarText(ir);
  assert.match(text, /::= \[a-z\]\{0,127\} \| Repeat\(\w+, 0, 72\) \[a-z\]\{128,128\}/);
  assert.is((text.match(/Repeat\(/g) ?? []).length, 1, 'one shared expansion');
  const item = ir.rules.find((r) => r.name.endsWith('_item'))!;
  assert.ok(item.exactLookahead, 'the counted rule has an exact 128-copy lookahead');
  assert.match(grammarText(compile('root ::= "ab"{300,}')), /Repeat\(\w+, 172, -1\) "ab"\{128,128\}/);
});

test('lookahead derivation only where sound', () => {
  const ir = compile('root ::= key ":" value | other\nkey ::= "k" name\nname ::= "n" name | "n"\nvalue ::= "v" value | "v"\nother ::= value "!" | "o" other');
  const rule = (n: string) => ir.rules.find((r) => r.name === n)!;
  assert.ok(rule('key').exactLookahead, 'one non-last occurrence');
  assert.is(ruleText(ir, 'key'), 'key ::= "k" name (= ":" value) exact');
  assert.is(rule('name').lookahead, null, 'name occurs last in a sequence');
  assert.is(rule('value').lookahead, null, 'value also occurs last in a sequence');
  assert.is(rule('other').lookahead, null, 'other occurs last (its own tail)');
  assert.is(rule('root').lookahead, null, 'never for the root');
});

test('nullable analysis relaxes counted repeats of nullable bodies', () => {
  const compiled = new GrammarCompiler().compile(Grammar.fromEBNF('root ::= x{150,200}\nx ::= "a" | ""'));
  assert.ok(compiled.fsm.repMin.every((m) => m === 0));
  assert.ok(compiled.fsm.repRule.length > 0);
  for (const r of compiled.fsm.repRule) assert.is(compiled.fsm.ruleNullable[r], 1);
});

test('grammars embed into a builder with renumbered rules', () => {
  const builder = new GrammarBuilder();
  const root = builder.declare('root');
  const json = builder.embed(Grammar.fromJSONSchema({ type: 'array', items: { type: 'integer' } }).ir, 'args');
  const word = builder.embed(Grammar.fromEBNF('root ::= w+\nw ::= [a-z]').ir, 'name');
  builder.define(root, { kind: 'seq', items: [{ kind: 'ref', rule: word }, { kind: 'bytes', bytes: new TextEncoder().encode('=') }, { kind: 'ref', rule: json }] });
  const ok = accepts(Grammar.fromIR(builder.build(root)));
  assert.ok(ok('abc=[1, 2]'));
  assert.not.ok(ok('abc=["x"]'));
  assert.ok(builder.rules.some((r) => r.name === 'name_w'));
});

test('the compiler caches by source text', () => {
  const compiler = new GrammarCompiler();
  const a = compiler.compile(Grammar.fromEBNF('root ::= "a"'));
  assert.is(compiler.compile(Grammar.fromEBNF('root ::= "a"')), a);
  assert.is.not(new GrammarCompiler({ cache: false }).compile(Grammar.fromEBNF('root ::= "a"')), a);
});

test('without a cache, the compiler does not print the grammar (its text is only a cache key)', () => {
  let printed = 0;
  const watched = (): Grammar => {
    const g = Grammar.fromEBNF('root ::= "a" | "b"+');
    const print = g.toString.bind(g);
    g.toString = () => {
      printed++;
      return print();
    };
    return g;
  };
  const uncached = new GrammarCompiler({ cache: false }).compile(watched());
  assert.is(printed, 0);
  assert.ok(new GrammarMatcher(uncached).acceptString('bbb'));
  new GrammarCompiler().compile(watched());
  assert.is(printed, 1, 'a compiler with a cache keys it by the text');
});

test.run();
