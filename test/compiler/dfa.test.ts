// Languages built by dfa/: the automaton of a regular expression, products (intersection,
// difference, the regions of strings accepted by exactly one set of parts) and bounded
// repetition must accept exactly what JavaScript's regexes say, on random strings; the
// automaton leaf they become in a grammar must match the same strings. A language within a
// length built directly is the automaton the product with a counter gives.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { Grammar, GrammarCompiler, GrammarMatcher } from '../../compiler/index.js';
import { type ByteDfa, dfaAccepts, dfaExpr, dfaOfExpr } from '../../compiler/dfa/byte-dfa.js';
import { chooseFinals, intersectDfa, productTable, subtractDfa } from '../../compiler/dfa/product.js';
import { repeatDfa } from '../../compiler/dfa/repeat.js';
import { lengthBoundedDfa } from '../../compiler/dfa/length-bounded.js';
import { jsonChars } from '../../compiler/json-schema/json-chars.js';
import { regexToExpr } from '../../compiler/regex/regex.js';
import { matcherFor } from './helpers.js';

const test = suite('dfa');
const utf8 = new TextEncoder();

const PATTERNS = ['a+b*', '[ab]*c', '(ab|ba)+', 'é*a?', '[^a]*', 'a.c', '(a|b)(a|b)?x?', '😀|a😀b'];
const dfaOf = (p: string): ByteDfa => dfaOfExpr(regexToExpr(p));
const whole = (p: string): RegExp => new RegExp(`^(?:${p})$`, 'u');
const text = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'x', 'é', '😀', '\n'), maxLength: 6 });
const accepts = (d: ByteDfa, s: string): boolean => dfaAccepts(d, utf8.encode(s));

test('the automaton of a regex accepts what the regex matches', () => {
  for (const p of PATTERNS) {
    const d = dfaOf(p);
    fc.assert(fc.property(text, (s) => accepts(d, s) === whole(p).test(s)), { numRuns: 300 });
  }
});

test('intersection and difference', () => {
  const pair = fc.tuple(fc.constantFrom(...PATTERNS), fc.constantFrom(...PATTERNS));
  fc.assert(
    fc.property(pair, fc.array(text, { minLength: 20, maxLength: 20 }), ([p, q], strings) => {
      const both = intersectDfa(dfaOf(p), dfaOf(q));
      const only = subtractDfa(dfaOf(p), dfaOf(q));
      return strings.every((s) => accepts(both, s) === (whole(p).test(s) && whole(q).test(s)) && accepts(only, s) === (whole(p).test(s) && !whole(q).test(s)));
    }),
    { numRuns: 40 },
  );
});

test('regions of a product: the strings each set of parts accepts', () => {
  const parts = ['[abc]*', 'a.*', '.*b', '.*c.*'];
  const table = productTable(parts.map(dfaOf));
  const regions = [...new Set(table.accepting)].filter((bits) => (bits & 1) === 1).map((bits) => ({ bits, dfa: chooseFinals(table, (b) => b === bits) }));
  fc.assert(
    fc.property(text, (s) => {
      const bits = parts.reduce((acc, p, i) => acc | (whole(p).test(s) ? 1 << i : 0), 0);
      // A string of the first part is in exactly the region of its set of parts.
      return regions.every((r) => accepts(r.dfa, s) === (r.bits === bits));
    }),
    { numRuns: 400 },
  );
});

test('bounded repetition counts characters, not bytes', () => {
  const unit = dfaOf('[^]');
  for (const [min, max] of [[0, 0], [1, 3], [2, -1], [0, 5]] as const) {
    const d = repeatDfa(unit, min, max);
    fc.assert(fc.property(text, (s) => accepts(d, s) === ([...s].length >= min && (max === -1 || [...s].length <= max))), { numRuns: 200 });
  }
});

test('a language within a length, built directly, is the product with a counter', () => {
  const units = [dfaOf('[^]'), dfaOfExpr(jsonChars([0, 0x10ffff]))];
  const bounds = [[0, 0], [0, 1], [1, 3], [2, 6], [0, 9], [5, 5]] as const;
  for (const unit of units) {
    for (const p of [...PATTERNS, '.*', 'a(b|\\n)*', '[^a]*a[^a]*']) {
      const language = dfaOfExpr(regexToExpr(p, unit === units[0] ? {} : { chars: jsonChars }));
      for (const [min, max] of bounds) {
        const direct = lengthBoundedDfa(language, unit, min, max);
        assert.equal(dfaExpr(direct), dfaExpr(intersectDfa(language, repeatDfa(unit, min, max))), `${p} {${min},${max}}`);
      }
    }
    // No other language: the counter alone.
    for (const [min, max] of bounds) assert.equal(dfaExpr(lengthBoundedDfa(repeatDfa(unit, 0, -1), unit, min, max)), dfaExpr(repeatDfa(unit, min, max)));
  }
  const d = lengthBoundedDfa(dfaOf('a.*'), units[0]!, 2, 4);
  fc.assert(fc.property(text, (s) => accepts(d, s) === (s.startsWith('a') && !s.includes('\n') && [...s].length >= 2 && [...s].length <= 4)), { numRuns: 300 });
});

test('equal languages give the same canonical automaton', () => {
  const a = JSON.stringify(dfaExpr(dfaOf('(a|b)*a')));
  const b = JSON.stringify(dfaExpr(intersectDfa(dfaOf('[ab]*'), dfaOf('.*a'))));
  assert.is(a, b);
});

test('an automaton leaf in a grammar matches its language, and the empty language is nothing', () => {
  const d = intersectDfa(dfaOf('[a-z]+[0-9]*'), dfaOf('.*x.*'));
  const grammar = Grammar.fromIR({ rules: [{ name: 'root', body: { kind: 'seq', items: [dfaExpr(d), { kind: 'bytes', bytes: utf8.encode('!') }] }, lookahead: null, exactLookahead: false }], root: 0 });
  const base = matcherFor(grammar);
  for (const [s, ok] of [['x!', true], ['ax12!', true], ['abc!', false], ['x', false], ['1x!', false]] as const) {
    const m = base.fork();
    assert.is(m.acceptString(s) && m.isCompleted(), ok, s);
  }
  assert.equal(dfaExpr(intersectDfa(dfaOf('a+'), dfaOf('b+'))), { kind: 'choice', items: [] });
  // The canonical text (the compile cache's key) prints the automaton.
  assert.match(grammar.toString(), /Automaton\(/);
  assert.ok(new GrammarMatcher(new GrammarCompiler().compile(grammar)));
});

test.run();
