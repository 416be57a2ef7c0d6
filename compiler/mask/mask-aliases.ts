// States whose token masks are equal because no token can tell them apart. A string under a
// format and a length built into its automaton (a maxLength up to 128, a minLength: a larger
// maximum the matcher counts, ir.ts UnitCount) has a state per character count and format
// state (dfa/length-bounded.ts): thousands of states, each met once as the string grows, so every
// token computed a mask of its own (25 ms with Llama 3's vocabulary). Far from the bounds,
// states with the same format state behave alike for more bytes than any token has, and so
// have the same mask: computed once, for the first of them.
//
// Alike for d bytes: the same final flag, and byte edges alike (the same ranges in the same
// order, into states alike for d - 1 bytes), found by d rounds of refinement. A mask walks a
// token's bytes through the rule, then (where the rule ends) through what follows it, which
// is the same for every state of the rule; so states alike for as many bytes as the longest
// token have one mask, whatever the rule's context. Only rules of byte edges alone: a rule
// reference or a counted repeat passes no byte, so a token could cross more edges than it
// has bytes.
import { EDGE_BYTE } from '../fsm/edges.js';
import { ruleEnd, type GrammarFsm } from '../fsm/grammar-fsm.js';

/** Smaller rules are left alone: they have few masks to share, and each lookup would cost. */
export const MIN_ALIASED_STATES = 1024;
/** States times rounds of refinement, at most (a few tenths of a second): a larger rule (an
 * enum of many strings, whose rounds do not stop early) costs its first mask more than
 * aliases save. HttpUrl's string, built with its maximum, was 41,552 states, for 128 rounds with Llama 3's vocabulary. */
const MAX_WORK = 8_000_000;

/**
 * Per state of `rule` (by its offset from the rule's start), the offset of the first state
 * alike to it for `depth` bytes; null when the rule is small or has edges other than bytes.
 */
export function maskAliases(fsm: GrammarFsm, rule: number, depth: number): Int32Array | null {
  const from = fsm.ruleStart[rule]!;
  const to = ruleEnd(fsm, rule);
  const n = to - from;
  if (n < MIN_ALIASED_STATES || n * depth > MAX_WORK) return null;
  const edgeFrom = fsm.edgeStart[from]!;
  for (let e = edgeFrom; e < fsm.edgeStart[to]!; e++) if (fsm.edgeKind[e] !== EDGE_BYTE) return null;
  // The rule's edges, local: by state, a shape (its ranges, the same every round) and targets.
  const start = new Int32Array(n + 1);
  for (let s = 0; s <= n; s++) start[s] = fsm.edgeStart[from + s]! - edgeFrom;
  const target = new Int32Array(start[n]!);
  for (let e = 0; e < target.length; e++) target[e] = fsm.edgeTarget[edgeFrom + e]! - from;
  const shape = shapes(fsm, edgeFrom, start);
  let cls = new Int32Array(n);
  let classes = 0;
  for (let s = 0; s < n; s++) {
    cls[s] = fsm.stateFinal[from + s]!;
    classes = Math.max(classes, cls[s]! + 1);
  }
  let next = new Int32Array(n);
  const rep = new Int32Array(n); // per class of the round: its first state
  let size = 1;
  while (size < 2 * n) size *= 2;
  const table = new Int32Array(size);
  for (let round = 0; round < depth; round++) {
    table.fill(-1);
    let count = 0;
    for (let s = 0; s < n; s++) {
      const c0 = cls[s]!;
      const sh = shape[s]!;
      const e0 = start[s]!;
      const e1 = start[s + 1]!;
      let h = Math.imul(c0 + 1, 0x9e3779b1) ^ Math.imul(sh + 1, 0x85ebca77);
      for (let e = e0; e < e1; e++) h = Math.imul(h ^ cls[target[e]!]!, 0x01000193);
      let slot = (h ^ (h >>> 15)) & (size - 1);
      for (;;) {
        const c = table[slot]!;
        if (c < 0) {
          table[slot] = count;
          rep[count] = s;
          next[s] = count++;
          break;
        }
        // Alike: the same class and shape, edges into the same classes.
        const r = rep[c]!;
        let same = cls[r] === c0 && shape[r] === sh;
        for (let k = 0, f = start[r]!; same && k < e1 - e0; k++) same = cls[target[f + k]!] === cls[target[e0 + k]!];
        if (same) {
          next[s] = c;
          break;
        }
        slot = (slot + 1) & (size - 1);
      }
    }
    [cls, next] = [next, cls];
    // No class split: none ever will.
    if (count === classes) break;
    classes = count;
  }
  const first = new Int32Array(classes).fill(-1);
  const alias = new Int32Array(n);
  for (let s = 0; s < n; s++) {
    if (first[cls[s]!] === -1) first[cls[s]!] = s;
    alias[s] = first[cls[s]!]!;
  }
  return alias;
}

/** Per state, an id of its byte ranges in order: states of one id have edges alike but for their targets. */
function shapes(fsm: GrammarFsm, edgeFrom: number, start: Int32Array): Int32Array {
  const n = start.length - 1;
  const shape = new Int32Array(n);
  const byKey = new Map<string, number>();
  for (let s = 0; s < n; s++) {
    let key = '';
    for (let e = start[s]!; e < start[s + 1]!; e++) key += `${fsm.edgeLo[edgeFrom + e]!},${fsm.edgeHi[edgeFrom + e]!};`;
    let id = byKey.get(key);
    if (id === undefined) byKey.set(key, (id = byKey.size));
    shape[s] = id;
  }
  return shape;
}
