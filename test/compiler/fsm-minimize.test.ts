// Rule automata are determinised and minimised over bytes, rule references and token sets:
// the language over those symbols must not change, and the states Thompson construction
// duplicates must merge.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { Grammar, GrammarCompiler } from '../../compiler/index.js';
import { EDGE_BYTE, EDGE_REPEAT, EDGE_RULE, EDGE_TOKEN } from '../../compiler/fsm/edges.js';
import { minimize, minimizeRuleFsm } from '../../compiler/fsm/minimize.js';
import { RuleFsm } from '../../compiler/fsm/rule-fsm.js';
import { MAX_FREE_DIGITS } from '../../compiler/json-schema/numbers.js';
import './helpers.js';

const test = suite('fsm-minimize');

// Symbols: bytes 0..3, then rule references 0..1, then token set 0.
const SYMBOLS = 7;

function symbolOf(fsm: RuleFsm, e: number): number[] {
  if (fsm.kind[e] === EDGE_BYTE) {
    const out: number[] = [];
    for (let b = fsm.lo[e]!; b <= Math.min(fsm.hi[e]!, 3); b++) out.push(b);
    return out;
  }
  return [fsm.kind[e] === EDGE_RULE ? 4 + fsm.aux[e]! : 6];
}

/** Every symbol string up to `depth` long that the automaton accepts. */
function language(fsm: RuleFsm, depth: number): Set<string> {
  const out = new Set<string>();
  const walk = (states: Set<number>, word: string): void => {
    if ([...states].some((s) => fsm.finals[s])) out.add(word);
    if (word.length === depth) return;
    for (let sym = 0; sym < SYMBOLS; sym++) {
      const next = new Set<number>();
      for (const s of states) for (let e = 0; e < fsm.from.length; e++) if (fsm.from[e] === s && symbolOf(fsm, e).includes(sym)) next.add(fsm.to[e]!);
      if (next.size > 0) walk(next, word + sym);
    }
  };
  walk(new Set([0]), '');
  return out;
}

const edge = fc.record({
  from: fc.nat(7),
  to: fc.nat(7),
  kind: fc.constantFrom(EDGE_BYTE, EDGE_BYTE, EDGE_RULE, EDGE_TOKEN),
  lo: fc.nat(3),
  width: fc.nat(2),
  aux: fc.nat(1),
});

test('random automata keep their language over bytes, references and tokens', () => {
  fc.assert(
    fc.property(fc.array(edge, { minLength: 1, maxLength: 20 }), fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }), (edges, finals) => {
      const raw = new RuleFsm();
      for (let s = 1; s < 8; s++) raw.newState();
      raw.finals = finals;
      for (const e of edges) raw.edge(e.from, e.kind, e.to, e.lo, Math.min(3, e.lo + e.width), e.kind === EDGE_TOKEN ? 0 : e.aux);
      const nfa = raw.simplify();
      const dfa = minimizeRuleFsm(nfa);
      assert.ok(dfa.numStates <= nfa.numStates);
      assert.equal([...language(dfa, 5)].sort(), [...language(nfa, 5)].sort());
    }),
    { numRuns: 300 },
  );
});

test('the built-in JSON grammar: duplicated branches and UTF-8 states merge', () => {
  // Unbounded whitespace: each bounded run adds its own chain of states, which nothing merges
  // (the number rule's three digit runs, at most MAX_FREE_DIGITS long, add theirs).
  const compiled = new GrammarCompiler().compile(Grammar.builtinJSON({ maxWhitespace: null }));
  const fsm = compiled.fsm;
  const object = fsm.ruleNames.indexOf('object');
  const start = fsm.ruleStart[object]!;
  const targets = new Set<number>();
  for (let e = fsm.edgeStart[start]!; e < fsm.edgeStart[start + 1]!; e++) targets.add(fsm.edgeTarget[e]!);
  assert.equal(targets.size, 1, 'one state after "{" (Thompson construction leaves one per branch)');
  assert.ok(compiled.numStates < 70 + 3 * MAX_FREE_DIGITS, `${compiled.numStates} states`);
});

/** Whether two DFAs over single bytes 0..3 accept the same language: no reachable pair of
 * states disagrees on finality (a missing edge leads to a rejecting sink, -1). */
function sameLanguage(a: RuleFsm, b: RuleFsm): boolean {
  const step = (f: RuleFsm, s: number, byte: number): number => {
    if (s === -1) return -1;
    for (let e = 0; e < f.from.length; e++) if (f.from[e] === s && f.lo[e]! <= byte && byte <= f.hi[e]!) return f.to[e]!;
    return -1;
  };
  const seen = new Set<string>(['0,0']);
  const work: [number, number][] = [[0, 0]];
  while (work.length > 0) {
    const [x, y] = work.pop()!;
    if ((x !== -1 && a.finals[x]!) !== (y !== -1 && b.finals[y]!)) return false;
    for (let byte = 0; byte < 4; byte++) {
      const next: [number, number] = [step(a, x, byte), step(b, y, byte)];
      const key = next.join(',');
      if (!seen.has(key)) {
        seen.add(key);
        work.push(next);
      }
    }
  }
  return true;
}

/** Reachable classes of full Moore refinement (every class re-split every round until
 * nothing changes): the state count `minimize` must reach. */
function mooreClasses(dfa: RuleFsm): number {
  const n = dfa.numStates;
  const target = (s: number, byte: number): number => {
    for (let e = 0; e < dfa.from.length; e++) if (dfa.from[e] === s && dfa.lo[e]! <= byte && byte <= dfa.hi[e]!) return dfa.to[e]!;
    return -1;
  };
  let cls: number[] = Array.from({ length: n }, (_, s) => (dfa.finals[s] ? 1 : 0));
  for (;;) {
    const ids = new Map<string, number>();
    const next = cls.map((c, s) => {
      const key = [c, ...[0, 1, 2, 3].map((b) => (target(s, b) === -1 ? -1 : cls[target(s, b)]!))].join(',');
      if (!ids.has(key)) ids.set(key, ids.size);
      return ids.get(key)!;
    });
    const before = new Set(cls).size;
    cls = next;
    if (ids.size === before) break;
  }
  const reached = new Set<number>([0]);
  const work = [0];
  while (work.length > 0) {
    const s = work.pop()!;
    for (let b = 0; b < 4; b++) {
      const t = target(s, b);
      if (t !== -1 && !reached.has(t)) {
        reached.add(t);
        work.push(t);
      }
    }
  }
  return new Set([...reached].map((s) => cls[s])).size;
}

/** A deterministic automaton over bytes 0..3 from a transition table (-1: no edge). */
function dfaOf(table: number[][], finals: boolean[]): RuleFsm {
  const dfa = new RuleFsm();
  for (let s = 1; s < table.length; s++) dfa.newState();
  dfa.finals = finals.slice(0, table.length);
  table.forEach((row, s) => row.forEach((t, byte) => t >= 0 && t < table.length && dfa.edge(s, EDGE_BYTE, t, byte, byte)));
  return dfa;
}

test('partition refinement: a split whose predecessors sit in a later group of the same split', () => {
  // Counting chains like a string under a pattern and a length (x-1234567890 under maxLength
  // 12): the minimised automaton refused the longest values once its classes were wrong.
  fc.assert(
    fc.property(
      fc.integer({ min: 2, max: 24 }).chain((n) =>
        fc.tuple(fc.array(fc.array(fc.integer({ min: -1, max: n - 1 }), { minLength: 4, maxLength: 4 }), { minLength: n, maxLength: n }), fc.array(fc.boolean(), { minLength: n, maxLength: n })),
      ),
      ([table, finals]) => {
        const dfa = dfaOf(table, finals);
        const min = minimize(dfa);
        assert.ok(sameLanguage(min, dfa), 'same language');
        assert.is(min.numStates, mooreClasses(dfa), 'as few states as full refinement');
      },
    ),
    { numRuns: 2000 },
  );
});

test('rules with counted repeats are left as built', () => {
  const raw = new RuleFsm();
  raw.newState();
  raw.newState();
  raw.finals[2] = true;
  raw.edge(0, EDGE_BYTE, 1, 97, 97);
  raw.edge(0, EDGE_BYTE, 2, 97, 97);
  raw.edge(1, EDGE_REPEAT, 2, 0, 0, 0);
  raw.repeatLoops.set(0, 1);
  assert.is(minimizeRuleFsm(raw), raw);
});

test.run();
