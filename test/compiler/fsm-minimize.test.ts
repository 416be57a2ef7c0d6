// Rule automata are determinised and minimised over bytes, rule references and token sets:
// the language over those symbols must not change, and the states Thompson construction
// duplicates must merge.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { Grammar, GrammarCompiler } from '../../compiler/index.js';
import { EDGE_BYTE, EDGE_REPEAT, EDGE_RULE, EDGE_TOKEN } from '../../compiler/fsm/edges.js';
import { minimizeRuleFsm } from '../../compiler/fsm/minimize.js';
import { RuleFsm } from '../../compiler/fsm/rule-fsm.js';
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
  // Unbounded whitespace: each bounded run adds its own chain of states, which nothing merges.
  const compiled = new GrammarCompiler().compile(Grammar.builtinJSON({ maxWhitespace: null }));
  const fsm = compiled.fsm;
  const object = fsm.ruleNames.indexOf('object');
  const start = fsm.ruleStart[object]!;
  const targets = new Set<number>();
  for (let e = fsm.edgeStart[start]!; e < fsm.edgeStart[start + 1]!; e++) targets.add(fsm.edgeTarget[e]!);
  assert.equal(targets.size, 1, 'one state after "{" (Thompson construction leaves one per branch)');
  assert.ok(compiled.numStates < 70, `${compiled.numStates} states (118 before minimising)`);
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
