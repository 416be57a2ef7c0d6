// A format or pattern beside a large maxLength: pydantic's HttpUrl sends `format: "uri"` with
// `maxLength: 2083`, and the automaton of both (a URI state beside a count of characters) is
// built directly (dfa/length-bounded.ts). It was refused past the state limit, after seconds
// of minimising. Lengths count code points, whatever their JSON spelling.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Grammar, GrammarError } from '../../compiler/index.js';
import type { Expr } from '../../compiler/ir.js';
import { accepts, matcherFor } from './helpers.js';

const test = suite('format-within-length');

const HTTP_URL = { type: 'string', format: 'uri', minLength: 1, maxLength: 2083 };
const quoted = (s: string): string => JSON.stringify(s);
const leaves = (e: Expr): Extract<Expr, { kind: 'automaton' }>[] => (e.kind === 'automaton' ? [e] : e.kind === 'seq' || e.kind === 'choice' ? e.items.flatMap(leaves) : []);

test("pydantic's HttpUrl compiles: a URI of at most 2,083 characters", () => {
  const grammar = Grammar.fromJSONSchema(HTTP_URL);
  // One automaton: the URI's few states, the count of characters kept by the matcher.
  const automata = grammar.ir.rules.flatMap((r) => leaves(r.body));
  assert.is(automata.length, 1);
  assert.is(automata[0]!.units?.max, 2083);
  assert.ok(automata[0]!.states < 100, String(automata[0]!.states));
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

test('a URI, a data URI or an email of any maxLength: the automaton stays the format\'s, exactly max characters pass', () => {
  for (const maxLength of [8192, 65_536, 900_000]) {
    const grammar = Grammar.fromJSONSchema({ ...HTTP_URL, maxLength });
    const [automaton] = grammar.ir.rules.flatMap((r) => leaves(r.body));
    assert.ok(automaton!.states < 100 && automaton!.units?.max === maxLength, `${maxLength}: ${automaton!.states} states`);
  }
  // As for a maxLength alone, measured as if a state per character (the limit on what a grammar expands to).
  assert.throws(() => Grammar.fromJSONSchema({ ...HTTP_URL, maxLength: 2_000_000 }), (e: Error) => e instanceof GrammarError && e.location?.kind === 'pointer' && /would expand to 2000001 automaton states/.test(e.message));
  const ok = accepts(Grammar.fromJSONSchema({ ...HTTP_URL, maxLength: 65_536 }));
  const data = 'data:text/plain;base64,';
  assert.ok(ok(quoted(data + 'QUJD'.repeat(16_378) + 'Q')), 'exactly maxLength');
  assert.not.ok(ok(quoted(data + 'QUJD'.repeat(16_378) + 'QU')), 'one past maxLength');
  assert.not.ok(ok(quoted(data + 'QUJD '.repeat(10))), 'the format holds');
  assert.not.ok(ok('""'), 'minLength');
  const email = accepts(Grammar.fromJSONSchema({ type: 'string', format: 'email', maxLength: 10_000 }));
  assert.ok(email(quoted('a'.repeat(10_000 - 6) + '@x.org')));
  assert.not.ok(email(quoted('a'.repeat(10_001 - 6) + '@x.org')));
  // The scheme must still fit: one character short of room for `:` and nothing is taken.
  const tiny = accepts(Grammar.fromJSONSchema({ type: 'string', format: 'uri', maxLength: 129 }));
  assert.ok(tiny(quoted('a'.repeat(128) + ':')));
  assert.not.ok(tiny(quoted('a'.repeat(129) + ':')));
});

test('a format and a large maxLength in an XML style count raw characters', () => {
  const schema = { type: 'object', properties: { u: { type: 'string', format: 'uri', maxLength: 5000 } }, required: ['u'] };
  const ok = accepts(Grammar.fromJSONSchema(schema, { style: 'qwen_xml' }));
  const value = (s: string): string => `<parameter=u>${s}</parameter>`;
  assert.ok(ok(value('https://x.org/' + 'a'.repeat(5000 - 14))));
  assert.not.ok(ok(value('https://x.org/' + 'a'.repeat(5001 - 14))));
});

test('jump-forward sees the count: what the maximum leaves is forced', () => {
  const m = matcherFor(Grammar.fromJSONSchema({ type: 'object', properties: { url: { ...HTTP_URL, maxLength: 200 } }, required: ['url'] }));
  assert.ok(m.acceptString('{"url": "https://example.com/' + 'a'.repeat(180)));
  assert.is(m.findJumpForwardString(), '"');
  const scheme = matcherFor(Grammar.fromJSONSchema({ type: 'string', format: 'uri', maxLength: 129 }));
  assert.ok(scheme.acceptString('"' + 'a'.repeat(128)));
  assert.is(scheme.findJumpForwardString(), ':"');
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
