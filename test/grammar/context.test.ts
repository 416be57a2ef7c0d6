// What provably follows a rule (mask/context.ts): the rest of the one place it occurs, through
// sequences and choices, then what follows that rule's parent, up to a root nothing refers to.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Grammar } from '../../compiler/index.js';
import { addContextRules } from '../../compiler/mask/context.js';
import { exprText } from '../../compiler/print.js';

const test = suite('mask context');

/** Each named rule's context as text, with `closed` marked, or '-' when it has none. */
function contexts(ebnf: string, names: string[]): string[] {
  const ir = Grammar.fromEBNF(ebnf).ir;
  const { ir: withContext, context, closed } = addContextRules(ir);
  const name = (r: number) => withContext.rules[r]!.name;
  return names.map((n) => {
    const r = ir.rules.findIndex((rule) => rule.name === n);
    assert.ok(r >= 0, `rule ${n}`);
    if (context[r]! < 0) return '-';
    return `${exprText(withContext.rules[context[r]!]!.body, name)}${closed[r] ? ' (closed)' : ''}`;
  });
}

test('the rest of a sequence inside a choice, then the parent, up to the root', () => {
  const [x] = contexts('root ::= "a" ("b" x "c" | "d") "e"\nx ::= [0-9]+', ['x']);
  assert.is(x, '"c" "e" (closed)');
});

test('a rule ending its parent is followed by what follows the parent', () => {
  const [y, x] = contexts('root ::= "[" y "]"\ny ::= "a" x\nx ::= [0-9]+', ['y', 'x']);
  assert.is(x, y);
  assert.is(x, '"]" (closed)');
  const [z] = contexts('root ::= "a" z\nz ::= [0-9]+', ['z']);
  assert.is(z, '"" (closed)', 'nothing at all follows the end of the root');
});

test('no context where what follows varies', () => {
  const [inRepeat, twice] = contexts('root ::= ("a" x)* "b" y "c" y\nx ::= [0-9]+\ny ::= [a-z]+', ['x', 'y']);
  assert.is(inRepeat, '-', 'inside a repeat');
  assert.is(twice, '-', 'two occurrences');
  const [open] = contexts('root ::= "a" x | "(" root ")"\nx ::= [0-9]+', ['x']);
  assert.is(open, '-', 'a root that is referenced may be followed by anything');
});

test.run();
