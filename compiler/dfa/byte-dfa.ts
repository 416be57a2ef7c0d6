// Deterministic byte automata for languages that are built, not written: the products of
// dfa/product.ts (a number range with a remainder, keys matched by some patterns and not by
// others, a pattern within a length). Minimal, trimmed (every state reaches a final one) and
// numbered in the order a walk from the start reaches them, so equal languages print alike.
import { expressionFsm } from '../fsm/build.js';
import { determinize, minimize } from '../fsm/minimize.js';
import { EDGE_BYTE } from '../fsm/edges.js';
import { RuleFsm, TooManyStates } from '../fsm/rule-fsm.js';
import { type Automaton, type Expr, NOTHING } from '../ir.js';
import { MAX_LANGUAGE_STATES } from '../limits.js';

export interface ByteDfa {
  readonly numStates: number;
  /** 1 where the state is final. */
  readonly finals: Uint8Array;
  /** CSR offsets into the edge arrays, by source state (length numStates + 1). */
  readonly edgeStart: Int32Array;
  /** Disjoint byte ranges per state, in byte order. */
  readonly edgeLo: Uint8Array;
  readonly edgeHi: Uint8Array;
  readonly edgeTo: Int32Array;
}

/** Steps subset construction may take for one language (about a second): subsets of many
 * states (`.{0,400}a` searched) cost in proportion to their edges. */
const MAX_DETERMINIZE_WORK = 30_000_000;

/** Thrown when a language would need more than MAX_LANGUAGE_STATES states; the front end
 * turns it into a GrammarError at the keyword responsible. */
export class LanguageTooLarge extends Error {
  constructor() {
    super(`the automaton would need more than ${MAX_LANGUAGE_STATES} states`);
  }
}

/** The language of an epsilon-free automaton over bytes (deterministic or not), minimal. */
export function dfaOfFsm(fsm: RuleFsm): ByteDfa {
  const dfa = determinize(fsm, MAX_LANGUAGE_STATES, MAX_DETERMINIZE_WORK);
  if (!dfa) throw new LanguageTooLarge();
  // Subsets of live states are live, but a product's tuples need not be: trim first.
  return packed(minimize(dfa.simplify()));
}

/** The language of an expression without rule references (a regex, a literal set). */
export function dfaOfExpr(expr: Expr): ByteDfa {
  try {
    return dfaOfFsm(expressionFsm(expr));
  } catch (error) {
    if (error instanceof TooManyStates) throw new LanguageTooLarge();
    throw error;
  }
}

function packed(fsm: RuleFsm): ByteDfa {
  const n = fsm.numStates;
  const finals = new Uint8Array(n);
  for (let s = 0; s < n; s++) finals[s] = fsm.finals[s] ? 1 : 0;
  const order = fsm.from.map((_, i) => i).sort((a, b) => fsm.from[a]! - fsm.from[b]! || fsm.lo[a]! - fsm.lo[b]!);
  const edgeStart = new Int32Array(n + 1);
  for (const e of order) edgeStart[fsm.from[e]! + 1]!++;
  for (let s = 0; s < n; s++) edgeStart[s + 1]! += edgeStart[s]!;
  return {
    numStates: n,
    finals,
    edgeStart,
    edgeLo: Uint8Array.from(order, (e) => fsm.lo[e]!),
    edgeHi: Uint8Array.from(order, (e) => fsm.hi[e]!),
    edgeTo: Int32Array.from(order, (e) => fsm.to[e]!),
  };
}

/**
 * A DFA given state by state: `edges` as [from, lo, hi, to] quadruples, start 0, at most one
 * edge per state and byte. Minimised unless `minimal` is false (an input to a product, which
 * minimises its result anyway).
 */
export function dfaOfTable(finals: ArrayLike<number | boolean>, edges: ArrayLike<number>, minimal = true): ByteDfa {
  const fsm = new RuleFsm();
  for (let s = 1; s < finals.length; s++) fsm.newState();
  for (let s = 0; s < finals.length; s++) fsm.finals[s] = Boolean(finals[s]);
  for (let i = 0; i < edges.length; i += 4) fsm.edge(edges[i]!, EDGE_BYTE, edges[i + 3]!, edges[i + 1]!, edges[i + 2]!);
  if (!minimal) return packed(fsm);
  const trimmed = fsm.simplify();
  if (!trimmed.finals.some(Boolean)) return EMPTY_DFA;
  return packed(minimize(trimmed));
}

/** The empty language. */
export const EMPTY_DFA: ByteDfa = { numStates: 1, finals: new Uint8Array(1), edgeStart: new Int32Array(2), edgeLo: new Uint8Array(0), edgeHi: new Uint8Array(0), edgeTo: new Int32Array(0) };

export function isEmptyDfa(dfa: ByteDfa): boolean {
  // Trimmed: a language with any string has a final state.
  return !dfa.finals.includes(1);
}

/** Whether the whole byte string is in the language (tests, and literal keys). */
export function dfaAccepts(dfa: ByteDfa, bytes: Uint8Array): boolean {
  let s = 0;
  for (const b of bytes) {
    let next = -1;
    for (let e = dfa.edgeStart[s]!; e < dfa.edgeStart[s + 1]!; e++) {
      if (b >= dfa.edgeLo[e]! && b <= dfa.edgeHi[e]!) {
        next = dfa.edgeTo[e]!;
        break;
      }
    }
    if (next < 0) return false;
    s = next;
  }
  return dfa.finals[s] === 1;
}

/** The language as a grammar expression: an automaton leaf, or `nothing` when it is empty. */
export function dfaExpr(dfa: ByteDfa): Expr {
  if (isEmptyDfa(dfa)) return NOTHING;
  const edges: number[] = [];
  for (let s = 0; s < dfa.numStates; s++) {
    for (let e = dfa.edgeStart[s]!; e < dfa.edgeStart[s + 1]!; e++) edges.push(s, dfa.edgeLo[e]!, dfa.edgeHi[e]!, dfa.edgeTo[e]!);
  }
  const finals: number[] = [];
  dfa.finals.forEach((f, s) => f === 1 && finals.push(s));
  const automaton: Automaton = { kind: 'automaton', states: dfa.numStates, finals, edges };
  return automaton;
}
