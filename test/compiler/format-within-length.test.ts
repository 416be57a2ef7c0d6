// A format or pattern beside a large maxLength: pydantic's HttpUrl sends `format: "uri"` with
// `maxLength: 2083`, and the automaton of both (a URI state beside a count of characters) is
// built directly (dfa/length-bounded.ts). It was refused past the state limit, after seconds
// of minimising. Lengths count code points, whatever their JSON spelling.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Grammar } from '../../compiler/index.js';
import type { Expr } from '../../compiler/ir.js';
import { accepts } from './helpers.js';

const test = suite('format-within-length');

const HTTP_URL = { type: 'string', format: 'uri', minLength: 1, maxLength: 2083 };
const quoted = (s: string): string => JSON.stringify(s);
const leaves = (e: Expr): Extract<Expr, { kind: 'automaton' }>[] => (e.kind === 'automaton' ? [e] : e.kind === 'seq' || e.kind === 'choice' ? e.items.flatMap(leaves) : []);

test("pydantic's HttpUrl compiles: a URI of at most 2,083 characters", () => {
  const grammar = Grammar.fromJSONSchema(HTTP_URL);
  // One automaton: the URI's few states beside every count up to the bound.
  const automata = grammar.ir.rules.flatMap((r) => leaves(r.body));
  assert.is(automata.length, 1);
  assert.ok(automata[0]!.states > 2083 && automata[0]!.states < 50_000, String(automata[0]!.states));
  const ok = accepts(grammar);
  const base = 'https://example.com/';
  assert.ok(ok(quoted(base + 'a'.repeat(2083 - base.length))), 'exactly maxLength');
  assert.not.ok(ok(quoted(base + 'a'.repeat(2084 - base.length))), 'one past maxLength');
  assert.ok(ok(quoted('https://example.com/path?q=1#top')));
  // The format still holds, at any length.
  assert.not.ok(ok(quoted('not a uri')));
  assert.not.ok(ok(quoted(base + 'a b')));
  assert.not.ok(ok(quoted('example.com/' + 'a'.repeat(100))), 'no scheme');
  assert.not.ok(ok('""'));
});

test('minLength holds beside a format and a large maxLength', () => {
  const ok = accepts(Grammar.fromJSONSchema({ type: 'string', format: 'uri-reference', minLength: 3, maxLength: 1500 }));
  assert.not.ok(ok('""'));
  assert.not.ok(ok(quoted('ab')));
  assert.ok(ok(quoted('abc')));
  assert.ok(ok(quoted('/' + 'x'.repeat(1499))));
  assert.not.ok(ok(quoted('/' + 'x'.repeat(1500))));
});

test('the length counts code points, not bytes or escapes', () => {
  const iri = accepts(Grammar.fromJSONSchema({ type: 'string', format: 'iri', maxLength: 300 }));
  const base = 'https://é.example/';
  assert.ok(iri(quoted(base + 'é'.repeat(300 - base.length))));
  assert.not.ok(iri(quoted(base + 'é'.repeat(301 - base.length))));
  // A line break is one character written as two bytes (\n); an emoji is one written as four.
  const text = accepts(Grammar.fromJSONSchema({ type: 'string', pattern: '^[^x]*$', maxLength: 1000 }));
  assert.ok(text(quoted('\n'.repeat(1000))));
  assert.not.ok(text(quoted('\n'.repeat(1001))));
  assert.ok(text(quoted('😀'.repeat(1000))));
  assert.not.ok(text(quoted('😀'.repeat(999) + 'x')), 'the pattern still holds');
  assert.not.ok(text(quoted('😀'.repeat(1001))));
});

test.run();
