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
  // Subsets found by an integer hash of their sorted members, chained (`sameHash`) and
  // compared in full: joined strings as keys cost more than the rest of the construction.
  const byHash = new Map<number, number>();
  const sameHash: number[] = [-1];
  const hashOf = (sorted: number[]): number => {
    let h = 0x811c9dc5 | 0;
    for (const s of sorted) h = Math.imul(h ^ s, 0x01000193);
    return h;
  };
  byHash.set(hashOf([0]), 0);
  const intern = (members: number[]): number => {
    const sorted = members.sort((a, b) => a - b);
    let n = 0;
    for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[n - 1]) sorted[n++] = sorted[i]!;
    sorted.length = n;
    const h = hashOf(sorted);
    let last = -1;
    for (let at = byHash.get(h) ?? -1; at >= 0; at = sameHash[at]!) {
      const known = sets[at]!;
      if (known.length === n && known.every((s, i) => s === sorted[i])) return at;
      last = at;
    }
    const id = dfa.newState();
    if (last >= 0) sameHash[last] = id;
    else byHash.set(h, id);
    sameHash.push(-1);
    sets.push(sorted);
    return id;
  };
  for (let d = 0; d < sets.length; d++) {
    if (sets.length > limit) return null;
    const members = sets[d]!;
    dfa.finals[d] = members.some((s) => fsm.finals[s]);
    // Bytes: cut the members' ranges at every boundary, one edge per piece.
    const byteEdges: number[] = [];
    const symbols = new Map<number, { kind: number; aux: number; targets: number[] }>();
    for (const s of members) {
      for (const e of out[s]!) {
        if (fsm.kind[e] === EDGE_BYTE) {
          byteEdges.push(e);
          continue;
        }
        const key = fsm.kind[e]! * 0x100000000 + fsm.aux[e]!;
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
  const order = (a: number, b: number): number => dfa.kind[a]! - dfa.kind[b]! || dfa.lo[a]! - dfa.lo[b]! || dfa.aux[a]! - dfa.aux[b]!;
  // Subset construction mostly writes them in that order already: checking is cheaper than sorting.
  for (const list of out) if (!inOrder(list, order)) list.sort(order);
  const cls = new Int32Array(n);
  const members: number[][] = [[], []];
  for (let s = 0; s < n; s++) {
    cls[s] = dfa.finals[s] ? 1 : 0;
    members[cls[s]!]!.push(s);
  }
  const splitter = new Splitter(dfa, out, cls);
  let dirty = new Set<number>([0, 1]);
  while (dirty.size > 0) {
    const work = dirty;
    dirty = new Set<number>();
    for (const c of work) {
      if (members[c]!.length < 2) continue;
      const groups = splitter.split(members[c]!);
      if (groups.length === 1) continue;
      // Every moved state takes its new class before any predecessor is looked up: a
      // predecessor in a later group of this same split would otherwise mark `c` (its class a
      // moment ago) dirty instead of the class it ends up in, and that class could keep
      // members that no longer behave alike.
      const moved: number[] = [];
      members[c] = groups[0]!;
      for (let g = 1; g < groups.length; g++) {
        const group = groups[g]!;
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

function inOrder(list: number[], order: (a: number, b: number) => number): boolean {
  for (let i = 1; i < list.length; i++) if (order(list[i - 1]!, list[i]!) > 0) return false;
  return true;
}

/**
 * Groups the states of one class by their signature: each edge's target class, byte edges
 * disjoint and adjacent ranges into one class read as one. Signatures are integer runs in a
 * scratch buffer, grouped by hash and compared in full (a refinement of a long chain looks at
 * thousands of states; strings and string keys made that most of a compile).
 */
class Splitter {
  private buf = new Int32Array(256);
  private starts = new Int32Array(65);
  private groupOf = new Map<number, number>();

  constructor(
    private readonly dfa: RuleFsm,
    private readonly out: number[][],
    private readonly cls: Int32Array,
  ) {}

  /** The states of `members` in groups of equal signature, in order of first appearance. */
  split(members: number[]): number[][] {
    if (this.starts.length <= members.length) this.starts = new Int32Array(members.length * 2 + 1);
    const groups: number[][] = [];
    const first: number[] = []; // member index of each group's first state
    const chain: number[] = []; // next group with the same hash, or -1
    const groupOf = this.groupOf;
    groupOf.clear();
    let at = 0;
    for (let i = 0; i < members.length; i++) {
      const s = members[i]!;
      this.starts[i] = at;
      at = this.write(s, at);
      this.starts[i + 1] = at;
      const buf = this.buf;
      let h = 0x811c9dc5 | 0;
      for (let k = this.starts[i]!; k < at; k++) h = Math.imul(h ^ buf[k]!, 0x01000193);
      let g = groupOf.get(h);
      let last = -1;
      while (g !== undefined && g >= 0 && !this.same(first[g]!, i)) {
        last = g;
        g = chain[g]!;
      }
      if (g !== undefined && g >= 0) {
        groups[g]!.push(s);
        continue;
      }
      const id = groups.length;
      groups.push([s]);
      first.push(i);
      chain.push(-1);
      if (last >= 0) chain[last] = id;
      else groupOf.set(h, id);
    }
    return groups;
  }

  /** Whether members i and j (already written) have the same signature. */
  private same(i: number, j: number): boolean {
    const a = this.starts[i]!;
    const b = this.starts[j]!;
    const len = this.starts[i + 1]! - a;
    if (this.starts[j + 1]! - b !== len) return false;
    for (let k = 0; k < len; k++) if (this.buf[a + k] !== this.buf[b + k]) return false;
    return true;
  }

  /** Writes `s`'s signature at `at`: (-1 - kind, aux, class) per other edge, (lo, hi, class) per byte run. */
  private write(s: number, at: number): number {
    const { dfa, cls } = this;
    const edges = this.out[s]!;
    if (this.buf.length < at + 3 * edges.length) {
      const grown = new Int32Array(Math.max(this.buf.length * 2, at + 3 * edges.length));
      grown.set(this.buf);
      this.buf = grown;
    }
    const buf = this.buf;
    let lo = -1;
    let hi = -1;
    let to = -1;
    for (const e of edges) {
      if (dfa.kind[e] !== EDGE_BYTE) {
        buf[at++] = -1 - dfa.kind[e]!;
        buf[at++] = dfa.aux[e]!;
        buf[at++] = cls[dfa.to[e]!]!;
        continue;
      }
      const c = cls[dfa.to[e]!]!;
      if (c === to && dfa.lo[e] === hi + 1) hi = dfa.hi[e]!;
      else {
        if (to >= 0) {
          buf[at++] = lo;
          buf[at++] = hi;
          buf[at++] = to;
        }
        lo = dfa.lo[e]!;
        hi = dfa.hi[e]!;
        to = c;
      }
    }
    if (to >= 0) {
      buf[at++] = lo;
      buf[at++] = hi;
      buf[at++] = to;
    }
    return at;
  }
}
