// The smallest deterministic automaton for one rule, over the alphabet the matcher sees: byte
// ranges, rule references and token sets as symbols. Thompson construction leaves many states
// that behave alike (the two `"{" ws` branches of a JSON object, one copy of a UTF-8
// continuation state per lead byte); every one of them is an item in an Earley row and a mask
// seed whose token classes are computed and unioned. Merging them changes no language, since
// a rule's body is a regular language over those symbols, and it halves the states of the
// built-in JSON grammar.
//
// Rules with counted repeats are left alone: a repeat's loop state carries its iteration count
// in the parent item, and a subset holding it would have to stand for it in the repeat table.
import { EDGE_BYTE, EDGE_REPEAT } from './edges.js';
import { RuleFsm } from './rule-fsm.js';

/** Past this many subset states (relative to the input), determinising is not worth it. */
const GROWTH_LIMIT = 4;
/** Rules larger than this are left as built: refinement can take a round per state (a long
 * chain), and such rules come from nested bounded repeats, not from hand-written grammars. */
const MAX_STATES = 20_000;

export function minimizeRuleFsm(fsm: RuleFsm): RuleFsm {
  if (fsm.kind.includes(EDGE_REPEAT) || fsm.numStates > MAX_STATES) return fsm;
  const dfa = determinize(fsm, Math.max(64, fsm.numStates * GROWTH_LIMIT));
  if (!dfa) return fsm;
  const merged = minimize(dfa);
  return merged.numStates < fsm.numStates ? merged : fsm;
}

/** Subset construction; null when it would pass `limit` states, or `workLimit` steps (edges
 * looked at per byte piece: large subsets cost in proportion to their edges). */
export function determinize(fsm: RuleFsm, limit: number, workLimit = Infinity): RuleFsm | null {
  let work = 0;
  const n = fsm.numStates;
  const out: number[][] = Array.from({ length: n }, () => []);
  for (let e = 0; e < fsm.from.length; e++) out[fsm.from[e]!]!.push(e);
  const dfa = new RuleFsm();
  const sets: number[][] = [[0]];
  const ids = new Map<string, number>([['0', 0]]);
  const intern = (members: number[]): number => {
    const sorted = [...new Set(members)].sort((a, b) => a - b);
    const key = sorted.join(',');
    let id = ids.get(key);
    if (id === undefined) {
      id = dfa.newState();
      ids.set(key, id);
      sets.push(sorted);
    }
    return id;
  };
  for (let d = 0; d < sets.length; d++) {
    if (sets.length > limit) return null;
    const members = sets[d]!;
    dfa.finals[d] = members.some((s) => fsm.finals[s]);
    // Bytes: cut the members' ranges at every boundary, one edge per piece.
    const byteEdges: number[] = [];
    const symbols = new Map<string, { kind: number; aux: number; targets: number[] }>();
    for (const s of members) {
      for (const e of out[s]!) {
        if (fsm.kind[e] === EDGE_BYTE) {
          byteEdges.push(e);
          continue;
        }
        const key = `${fsm.kind[e]}:${fsm.aux[e]}`;
        const sym = symbols.get(key) ?? { kind: fsm.kind[e]!, aux: fsm.aux[e]!, targets: [] };
        sym.targets.push(fsm.to[e]!);
        symbols.set(key, sym);
      }
    }
    const cuts = new Set<number>();
    for (const e of byteEdges) {
      cuts.add(fsm.lo[e]!);
      cuts.add(fsm.hi[e]! + 1);
    }
    const points = [...cuts].sort((a, b) => a - b);
    work += byteEdges.length * points.length;
    if (work > workLimit) return null;
    for (let i = 0; i + 1 < points.length; i++) {
      const lo = points[i]!;
      const targets: number[] = [];
      for (const e of byteEdges) if (fsm.lo[e]! <= lo && lo <= fsm.hi[e]!) targets.push(fsm.to[e]!);
      if (targets.length > 0) dfa.edge(d, EDGE_BYTE, intern(targets), lo, points[i + 1]! - 1);
    }
    for (const sym of symbols.values()) dfa.edge(d, sym.kind, intern(sym.targets), 0, 0, sym.aux);
  }
  return dfa;
}

/**
 * Partition refinement: split every class whose members lead, on some symbol, to different
 * classes, until none does. Only classes holding a predecessor of a state that moved need
 * another look, so a long literal costs one pass rather than one round per character. Then
 * one state per class, numbered from the start's.
 */
export function minimize(dfa: RuleFsm): RuleFsm {
  const n = dfa.numStates;
  const out: number[][] = Array.from({ length: n }, () => []);
  const preds: number[][] = Array.from({ length: n }, () => []);
  for (let e = 0; e < dfa.from.length; e++) {
    out[dfa.from[e]!]!.push(e);
    preds[dfa.to[e]!]!.push(dfa.from[e]!);
  }
  // Edges in a fixed order: by kind, then byte or symbol.
  for (const list of out) list.sort((a, b) => dfa.kind[a]! - dfa.kind[b]! || dfa.lo[a]! - dfa.lo[b]! || dfa.aux[a]! - dfa.aux[b]!);
  const cls = new Int32Array(n);
  const members: number[][] = [[], []];
  for (let s = 0; s < n; s++) {
    cls[s] = dfa.finals[s] ? 1 : 0;
    members[cls[s]!]!.push(s);
  }
  const signature = (s: number): string => {
    // Byte edges are disjoint: adjacent ranges into one class read as one.
    let sig = '';
    let lo = -1;
    let hi = -1;
    let to = -1;
    for (const e of out[s]!) {
      if (dfa.kind[e] !== EDGE_BYTE) {
        sig += ` k${dfa.kind[e]}:${dfa.aux[e]}>${cls[dfa.to[e]!]}`;
        continue;
      }
      const c = cls[dfa.to[e]!]!;
      if (c === to && dfa.lo[e] === hi + 1) hi = dfa.hi[e]!;
      else {
        if (to >= 0) sig += ` ${lo}-${hi}>${to}`;
        lo = dfa.lo[e]!;
        hi = dfa.hi[e]!;
        to = c;
      }
    }
    return to >= 0 ? `${sig} ${lo}-${hi}>${to}` : sig;
  };
  let dirty = new Set<number>([0, 1]);
  while (dirty.size > 0) {
    const work = dirty;
    dirty = new Set<number>();
    for (const c of work) {
      if (members[c]!.length < 2) continue;
      const groups = new Map<string, number[]>();
      for (const s of members[c]!) {
        const sig = signature(s);
        const group = groups.get(sig);
        if (group) group.push(s);
        else groups.set(sig, [s]);
      }
      if (groups.size === 1) continue;
      // Every moved state takes its new class before any predecessor is looked up: a
      // predecessor in a later group of this same split would otherwise mark `c` (its class a
      // moment ago) dirty instead of the class it ends up in, and that class could keep
      // members that no longer behave alike.
      const moved: number[] = [];
      let first = true;
      for (const group of groups.values()) {
        if (first) {
          members[c] = group;
          first = false;
          continue;
        }
        const id = members.length;
        members.push(group);
        for (const s of group) {
          cls[s] = id;
          moved.push(s);
        }
      }
      for (const s of moved) for (const p of preds[s]!) dirty.add(cls[p]!);
    }
  }
  const count = members.length;
  // Number the classes in the order they are reached from the start, so the start is 0.
  const index = new Int32Array(count).fill(-1);
  const rep: number[] = [];
  const visit = (s: number): void => {
    if (index[cls[s]!] !== -1) return;
    index[cls[s]!] = rep.length;
    rep.push(s);
  };
  visit(0);
  for (let i = 0; i < rep.length; i++) for (const e of out[rep[i]!]!) visit(dfa.to[e]!);
  const result = new RuleFsm();
  result.finals = rep.map((s) => dfa.finals[s]!);
  for (let i = 0; i < rep.length; i++) {
    // The representative's edges, adjacent byte ranges into the same class joined.
    for (const e of out[rep[i]!]!) {
      const to = index[cls[dfa.to[e]!]!]!;
      const last = result.from.length - 1;
      if (dfa.kind[e] === EDGE_BYTE && last >= 0 && result.from[last] === i && result.kind[last] === EDGE_BYTE && result.to[last] === to && result.hi[last]! + 1 === dfa.lo[e]) {
        result.hi[last] = dfa.hi[e]!;
        continue;
      }
      result.edge(i, dfa.kind[e]!, to, dfa.lo[e], dfa.hi[e], dfa.aux[e]);
    }
  }
  return result;
}
