// The mask compiler's flat DFA: recursion is entered only on the bytes the callee can start
// with (rule FIRST sets), and string-like states that take every whole UTF-8 character are
// recognised, so their tokens are accepted without a walk.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Grammar, GrammarCompiler } from '../../compiler/index.js';
import type { GrammarFsm } from '../../compiler/fsm/grammar-fsm.js';
import { ruleFirstBytes } from '../../compiler/fsm/first-bytes.js';
import { FlatDfa } from '../../compiler/mask/flat-dfa.js';

const test = suite('flat-dfa');
const code = (c: string): number => c.charCodeAt(0);

function bytesOf(flags: Uint8Array): string {
  let out = '';
  for (let b = 0; b < 256; b++) if (flags[b] === 1) out += String.fromCharCode(b);
  return out;
}

/** The local state of `rule` reached from its start by `text`'s bytes (one edge each). */
function localAfter(fsm: GrammarFsm, rule: number, text: string): number {
  let s = fsm.ruleStart[rule]!;
  for (const ch of Buffer.from(text)) {
    let next = -1;
    for (let e = fsm.edgeStart[s]!; e < fsm.edgeStart[s + 1]!; e++) if (fsm.edgeKind[e] === 0 && fsm.edgeLo[e]! <= ch && ch <= fsm.edgeHi[e]!) next = fsm.edgeTarget[e]!;
    assert.ok(next >= 0, `no edge on ${ch}`);
    s = next;
  }
  return s - fsm.ruleStart[rule]!;
}

test('FIRST bytes through nullable prefixes and nested rules', () => {
  const fsm = new GrammarCompiler().compile(Grammar.builtinJSON()).fsm;
  const first = ruleFirstBytes(fsm);
  assert.is(bytesOf(first[fsm.ruleNames.indexOf('value')]!), '"-0123456789[fnt{');
  assert.is(bytesOf(first[fsm.root]!), '"-0123456789[fnt{', 'the root is the value alone: no leading whitespace');
  const g = new GrammarCompiler().compile(Grammar.fromEBNF('root ::= a b\na ::= "x"?\nb ::= c | "y"\nc ::= [0-1] c | ""'));
  assert.is(bytesOf(ruleFirstBytes(g.fsm)[g.fsm.root]!), '01xy');
});

test('a recursive reference is opaque only after a byte that enters it', () => {
  const fsm = new GrammarCompiler().compile(Grammar.builtinJSON()).fsm;
  const array = fsm.ruleNames.indexOf('array');
  const dfa = FlatDfa.build(fsm, array, 'cut')!;
  const d = dfa.start(localAfter(fsm, array, '['));
  assert.is(dfa.opaque[d], 0);
  assert.is(dfa.opaque[dfa.next(d, code('['))], 1, 'a nested array goes to the Earley matcher');
  let o = d;
  for (const ch of '{"k":') {
    o = dfa.next(o, code(ch));
    assert.is(dfa.opaque[o], 0, 'an object is copied in, up to its values');
  }
  assert.is(dfa.opaque[dfa.next(o, code('['))], 1, 'where the value recurses');
  const t = dfa.next(d, code('t'));
  assert.ok(t >= 0 && dfa.opaque[t] === 0, '"true" is walked in the DFA');
  assert.is(dfa.next(d, code('x')), -1);
});

test('states that take every whole character', () => {
  const fsm = new GrammarCompiler().compile(Grammar.builtinJSON()).fsm;
  const value = fsm.ruleNames.indexOf('value');
  const json = FlatDfa.build(fsm, value, 'exact')!;
  assert.ok(json.loopsOnWholeChars(json.start(localAfter(fsm, value, '"'))), 'inside a JSON string');
  assert.not.ok(json.loopsOnWholeChars(json.start(0)), 'the start of a value');
  const check = (ebnf: string, expected: boolean): void => {
    const g = new GrammarCompiler().compile(Grammar.fromEBNF(ebnf)).fsm;
    const dfa = FlatDfa.build(g, g.root, 'exact')!;
    assert.is(dfa.loopsOnWholeChars(dfa.start(localAfter(g, g.root, '"'))), expected, ebnf);
  };
  check('root ::= "\\"" [^"]* "\\""', true);
  check('root ::= "\\"" [^"\\u00e9]* "\\""', false);
  check('root ::= "\\"" [a-z\\u0080-\\U0010ffff]* "\\""', true);
  check('root ::= "\\"" [\\u0000-\\uffff]* "\\""', false);
});

test.run();
