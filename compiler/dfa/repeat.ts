// Bounded repetition of a unit language as an automaton: min..max units of one character (a
// length limit beside a pattern), counted in the states, not unrolled through Thompson
// construction (10,000 copies of "any JSON character" would be millions of states first).
import { MAX_LANGUAGE_STATES } from '../limits.js';
import { type ByteDfa, dfaOfTable, LanguageTooLarge } from './byte-dfa.js';

/**
 * `unit` repeated min..max times (max -1: unbounded). The unit must be prefix-free (no string
 * of it extends another, as with the characters of one alphabet: its DFA has one final state,
 * without edges) and never come back to its start.
 */
export function repeatDfa(unit: ByteDfa, min: number, max: number): ByteDfa {
  const finalsOfUnit = [...unit.finals].flatMap((f, s) => (f === 1 ? [s] : []));
  const end = finalsOfUnit[0]!;
  if (finalsOfUnit.length !== 1 || unit.edgeStart[end] !== unit.edgeStart[end + 1]) throw new Error('internal: repeatDfa needs a prefix-free unit');
  const inner = unit.numStates - 1; // states of one unit but its end
  const counts = max === -1 ? min + 1 : max + 1; // unbounded: the last count loops
  if (counts * inner > MAX_LANGUAGE_STATES) throw new LanguageTooLarge();
  // State (c, q): c units read, inside the next one at unit state q (the end renumbered away).
  const local = (q: number): number => (q < end ? q : q - 1);
  const id = (c: number, q: number): number => c * inner + local(q);
  const finals = new Uint8Array(counts * inner);
  const edges: number[] = [];
  for (let c = 0; c < counts; c++) {
    const done = max === -1 ? Math.min(c + 1, counts - 1) : c + 1;
    if (c >= min) finals[id(c, 0)] = 1;
    for (let q = 0; q < unit.numStates; q++) {
      if (q === end) continue;
      for (let e = unit.edgeStart[q]!; e < unit.edgeStart[q + 1]!; e++) {
        const to = unit.edgeTo[e]!;
        if (to === end && done >= counts) continue; // a unit past max
        edges.push(id(c, q), unit.edgeLo[e]!, unit.edgeHi[e]!, to === end ? id(done, 0) : id(c, to));
      }
    }
  }
  return dfaOfTable(finals, edges);
}
