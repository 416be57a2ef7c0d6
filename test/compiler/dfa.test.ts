// Languages built by dfa/: the automaton of a regular expression, products (intersection,
// difference, the regions of strings accepted by exactly one set of parts) and bounded
// repetition must accept exactly what JavaScript's regexes say, on random strings; the
// automaton leaf they become in a grammar must match the same strings. A language within a
// length built directly is the automaton the product with a counter gives; one whose maximum
// the matcher counts takes the same strings, and the same prefixes, as that product.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { Grammar, GrammarCompiler, GrammarMatcher } from '../../compiler/index.js';
import { type ByteDfa, dfaAccepts, dfaExpr, dfaOfExpr, isEmptyDfa } from '../../compiler/dfa/byte-dfa.js';
import { chooseFinals, intersectDfa, productTable, subtractDfa } from '../../compiler/dfa/product.js';
import { repeatDfa } from '../../compiler/dfa/repeat.js';
import { lengthBoundedDfa, unitCountedExpr } from '../../compiler/dfa/length-bounded.js';
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

test('a maximum counted by the matcher takes the strings and prefixes of the product with a counter', () => {
  const units = [dfaOf('[^]'), dfaOfExpr(jsonChars([0, 0x10ffff]))];
  const bounds = [[0, 0], [0, 1], [1, 3], [2, 6], [0, 9], [5, 5], [3, 40]] as const;
  /** The walk of `s` in `d` (trimmed: every state reached can still end), or -1 once it dies. */
  const stateAfter = (d: ByteDfa, s: string): number => {
    let state = 0;
    for (const b of utf8.encode(s)) {
      let next = -1;
      for (let e = d.edgeStart[state]!; e < d.edgeStart[state + 1]! && next < 0; e++) if (b >= d.edgeLo[e]! && b <= d.edgeHi[e]!) next = d.edgeTo[e]!;
      if (next < 0) return -1;
      state = next;
    }
    return state;
  };
  const strings = fc.sample(fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'x', 'é', '😀', '\n'), maxLength: 12 }), { numRuns: 400 });
  strings.push(...[1, 2, 3, 5, 6, 9, 10, 39, 40, 41].flatMap((n) => ['a'.repeat(n), 'a' + 'b'.repeat(n - 1), 'é'.repeat(n), 'ab'.repeat(n), '\n'.repeat(n)]));
  for (const unit of units) {
    for (const p of [...PATTERNS, '.*', 'a(b|\\n)*', '[^a]*a[^a]*', 'a{3,5}b*']) {
      const language = dfaOfExpr(regexToExpr(p, unit === units[0] ? {} : { chars: jsonChars }));
      for (const [min, max] of bounds) {
        const product = intersectDfa(language, repeatDfa(unit, min, max));
        const counted = unitCountedExpr(language, unit, min, max);
        if (counted.kind !== 'automaton') {
          assert.ok(isEmptyDfa(product), `${p} {${min},${max}} is empty`);
          continue;
        }
        const bang = { kind: 'bytes', bytes: utf8.encode('!') } as const;
        const grammar = Grammar.fromIR({ rules: [{ name: 'root', body: { kind: 'seq', items: [counted, bang] }, lookahead: null, exactLookahead: false }], root: 0 });
        const base = matcherFor(grammar);
        for (const s of strings) {
          const m = base.fork();
          const state = stateAfter(product, s);
          assert.is(m.acceptString(s), state >= 0, `${p} {${min},${max}}: prefix ${JSON.stringify(s)}`);
          assert.is(state >= 0 && m.acceptString('!') && m.isCompleted(), state >= 0 && product.finals[state] === 1, `${p} {${min},${max}}: ${JSON.stringify(s)}`);
        }
      }
    }
  }
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
