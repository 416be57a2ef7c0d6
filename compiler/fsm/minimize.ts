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
  const out = byState(n, fsm.from, (e) => e);
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
    const sorted = sortNumbers(members);
    let n = 0;
    for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[n - 1]) sorted[n++] = sorted[i]!;
    sorted.length = n;
    const h = hashOf(sorted);
    let last = -1;
    for (let at = byHash.get(h) ?? -1; at >= 0; at = sameHash[at]!) {
      if (sameList(sets[at]!, sorted)) return at;
      last = at;
    }
    const id = dfa.newState();
    if (last >= 0) sameHash[last] = id;
    else byHash.set(h, id);
    sameHash.push(-1);
    sets.push(sorted);
    return id;
  };
  // Scratch lists reused by every subset (a compile determinises thousands of them).
  const byteEdges: number[] = [];
  const points: number[] = [];
  for (let d = 0; d < sets.length; d++) {
    if (sets.length > limit) return null;
    const members = sets[d]!;
    let final = false;
    for (const s of members) if (fsm.finals[s]) final = true;
    dfa.finals[d] = final;
    // Bytes: cut the members' ranges at every boundary, one edge per piece.
    byteEdges.length = 0;
    let symbols: Map<number, { kind: number; aux: number; targets: number[] }> | null = null;
    for (const s of members) {
      for (let k = out.start[s]!; k < out.start[s + 1]!; k++) {
        const e = out.list[k]!;
        if (fsm.kind[e] === EDGE_BYTE) {
          byteEdges.push(e);
          continue;
        }
        symbols ??= new Map();
        const key = fsm.kind[e]! * 0x100000000 + fsm.aux[e]!;
        const sym = symbols.get(key) ?? { kind: fsm.kind[e]!, aux: fsm.aux[e]!, targets: [] };
        sym.targets.push(fsm.to[e]!);
        symbols.set(key, sym);
      }
    }
    points.length = 0;
    for (const e of byteEdges) {
      points.push(fsm.lo[e]!);
      points.push(fsm.hi[e]! + 1);
    }
    sortNumbers(points);
    let distinct = 0;
    for (let i = 0; i < points.length; i++) if (i === 0 || points[i] !== points[distinct - 1]) points[distinct++] = points[i]!;
    points.length = distinct;
    work += byteEdges.length * points.length;
    if (work > workLimit) return null;
    for (let i = 0; i + 1 < points.length; i++) {
      const lo = points[i]!;
      const targets: number[] = [];
      for (const e of byteEdges) if (fsm.lo[e]! <= lo && lo <= fsm.hi[e]!) targets.push(fsm.to[e]!);
      if (targets.length > 0) dfa.edge(d, EDGE_BYTE, intern(targets), lo, points[i + 1]! - 1);
    }
    if (symbols) for (const sym of symbols.values()) dfa.edge(d, sym.kind, intern(sym.targets), 0, 0, sym.aux);
  }
  return dfa;
}

/** Sorts in place, ascending. The lists here are short: an insertion sort allocates nothing,
 * where Array.prototype.sort with a comparator copies the list (a twentieth of a compile's
 * allocation went there). */
function sortNumbers(list: number[]): number[] {
  if (list.length > 32) return list.sort((a, b) => a - b);
  for (let i = 1; i < list.length; i++) {
    const v = list[i]!;
    let k = i - 1;
    for (; k >= 0 && list[k]! > v; k--) list[k + 1] = list[k]!;
    list[k + 1] = v;
  }
  return list;
}

function sameList(a: number[], b: number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Partition refinement: split every class whose members lead, on some symbol, to different
 * classes, until none does. Only classes holding a predecessor of a state that moved need
 * another look, so a long literal costs one pass rather than one round per character. Then
 * one state per class, numbered from the start's.
 */
export function minimize(dfa: RuleFsm): RuleFsm {
  const n = dfa.numStates;
  // Each state's out-edges and predecessors, packed (a list per state was most of what
  // minimising allocated).
  const out = byState(n, dfa.from, (e) => e);
  const preds = byState(n, dfa.to, (e) => dfa.from[e]!);
  // Edges in a fixed order: by kind, then byte or symbol.
  const order = (a: number, b: number): number => dfa.kind[a]! - dfa.kind[b]! || dfa.lo[a]! - dfa.lo[b]! || dfa.aux[a]! - dfa.aux[b]!;
  // Subset construction mostly writes them in that order already: checking is cheaper than sorting.
  for (let s = 0; s < n; s++) {
    if (!inOrder(out.list, out.start[s]!, out.start[s + 1]!, order)) out.list.subarray(out.start[s]!, out.start[s + 1]!).sort(order);
  }
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
      for (const s of moved) for (let k = preds.start[s]!; k < preds.start[s + 1]!; k++) dirty.add(cls[preds.list[k]!]!);
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
  for (let i = 0; i < rep.length; i++) for (let k = out.start[rep[i]!]!; k < out.start[rep[i]! + 1]!; k++) visit(dfa.to[out.list[k]!]!);
  const result = new RuleFsm();
  result.finals = rep.map((s) => dfa.finals[s]!);
  for (let i = 0; i < rep.length; i++) {
    // The representative's edges, adjacent byte ranges into the same class joined.
    for (let k = out.start[rep[i]!]!; k < out.start[rep[i]! + 1]!; k++) {
      const e = out.list[k]!;
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

/** Lists by state, packed: state s's entries (`value` of each edge e with `key[e]` = s, in
 * edge order) are list[start[s]] .. list[start[s + 1] - 1]. */
interface ByState {
  start: Int32Array;
  list: Int32Array;
}

function byState(n: number, key: number[], value: (e: number) => number): ByState {
  const start = new Int32Array(n + 1);
  for (let e = 0; e < key.length; e++) start[key[e]! + 1]!++;
  for (let s = 0; s < n; s++) start[s + 1]! += start[s]!;
  const fill = start.slice(0, n);
  const list = new Int32Array(key.length);
  for (let e = 0; e < key.length; e++) list[fill[key[e]!]!++] = value(e);
  return { start, list };
}

function inOrder(list: Int32Array, from: number, to: number, order: (a: number, b: number) => number): boolean {
  for (let i = from + 1; i < to; i++) if (order(list[i - 1]!, list[i]!) > 0) return false;
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
    private readonly out: ByState,
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
    const { start, list } = this.out;
    const count = start[s + 1]! - start[s]!;
    if (this.buf.length < at + 3 * count) {
      const grown = new Int32Array(Math.max(this.buf.length * 2, at + 3 * count));
      grown.set(this.buf);
      this.buf = grown;
    }
    const buf = this.buf;
    let lo = -1;
    let hi = -1;
    let to = -1;
    for (let k = start[s]!; k < start[s + 1]!; k++) {
      const e = list[k]!;
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
