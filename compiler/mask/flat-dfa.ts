// A fast path for the mask compiler. Within one token, the Earley parse of a rule is a plain
// NFA as long as it meets no recursion and no counted repeat: the rule's automaton with every
// referenced rule's automaton copied in at the reference (and its context rule after its final
// states). Determinised lazily, walking a token byte is one table lookup instead of an Earley
// step; the classification is the same (see classify-state.ts). A recursive reference or a
// counted repeat is not copied: the bytes it can start with lead to an "opaque" state, and a
// token that gets there is handed to the Earley matcher.
import { EDGE_BYTE, EDGE_EXCLUDE_TOKEN, EDGE_REPEAT, EDGE_RULE, EDGE_TOKEN } from '../fsm/edges.js';
import { ruleEnd, type GrammarFsm } from '../fsm/grammar-fsm.js';
import { ruleFirstBytes } from '../fsm/first-bytes.js';
import { isTail } from '../fsm/queries.js';
import { UTF8_BOUNDARY, UTF8_LEADS, utf8Continuation, utf8Step } from '../utf8-automaton.js';

const MAX_NFA = 20000;
/** Deepest chain of references copied in; deeper calls are handed to the Earley matcher like
 * recursive ones (copying recurses once per level, and a grammar may chain thousands). */
const MAX_INLINE_DEPTH = 256;
const MAX_DFA = 4096;
export const DFA_DEAD = -1;
export const DFA_OVERFLOW = -2;
/** A table entry not computed yet (call `next`): 0, so a fresh table needs no filling (DFA states are numbered from 1). */
export const DFA_UNKNOWN = 0;

export type DfaMode = 'exact' | 'context' | 'cut';

export class FlatDfa {
  // NFA, packed by source node (CSR): byte edges, epsilon targets; END marks (the rule, or its
  // context, is over: what follows is not known here) and opaque nodes.
  private byteStart: Int32Array = new Int32Array(1);
  private byteLo: Uint8Array = new Uint8Array(0);
  private byteHi: Uint8Array = new Uint8Array(0);
  private byteTo: Int32Array = new Int32Array(0);
  private epsStart: Int32Array = new Int32Array(1);
  private epsTo: Int32Array = new Int32Array(0);
  private end: Uint8Array = new Uint8Array(0);
  private isOpaque: Uint8Array = new Uint8Array(0);
  // DFA: sets of NFA states, found by a hash of their members (chained: `sameHash` links the
  // states after the first of one hash), their END flag, and a lazily filled 256-wide table.
  // State 0 is a placeholder with no members, never reached: a table entry of 0 is
  // DFA_UNKNOWN, so new rows come zeroed by the allocator instead of filled (a compile builds
  // a DFA per rule and mode, and filling their rows was a twentieth of its time).
  private readonly byHash = new Map<number, number>();
  private readonly sameHash: number[] = [-1];
  private readonly sets: Int32Array[] = [new Int32Array(0)];
  /** END flag (1) per DFA state. */
  ends = new Uint8Array(64);
  /** 1 where the DFA state holds an opaque NFA state. */
  opaque = new Uint8Array(64);
  /** d * 256 + byte -> next state, DFA_DEAD, or DFA_UNKNOWN when not computed yet (call `next`). */
  table = new Int32Array(256 * 64);
  private readonly stamp: Int32Array;
  private gen = 0;
  private readonly stack: number[] = [];
  /** The closure being built by `intern`. */
  private members = new Int32Array(64);

  /**
   * The DFA state of each single NFA node's closure, 0 until interned: nearly every transition
   * reaches one node (closures here are small), so this skips the closure, sort and hash.
   */
  private readonly ofNode: Int32Array;

  private constructor(nodes: number) {
    this.stamp = new Int32Array(nodes);
    this.ofNode = new Int32Array(nodes);
  }

  /**
   * The automaton of `rule` (states in local order first): 'exact', followed by its context
   * rule ('context'), or ended by its last-step references to other rules ('cut', see
   * rule-hash.ts). Null if it grows too large.
   */
  static build(fsm: GrammarFsm, rule: number, mode: DfaMode): FlatDfa | null {
    const b = new NfaBuilder(fsm);
    b.cutTails = mode === 'cut';
    const ctx = mode === 'context' ? fsm.ruleContext[rule]! : -1;
    const endNode = b.node();
    b.end.data[endNode] = 1;
    b.setEnd(endNode);
    let after = endNode;
    if (ctx >= 0) {
      const ctxStart = b.inline(ctx, [endNode], [ctx]);
      if (ctxStart < 0) return null;
      after = ctxStart;
    }
    // The rule's own copy goes first, so its local state k is node `base + k`.
    const base = b.inline(rule, [after], [rule]);
    if (base < 0) return null;
    const dfa = new FlatDfa(b.count);
    let order: Int32Array;
    [dfa.byteStart, order] = bySource(b.count, b.byteFrom);
    dfa.byteLo = new Uint8Array(order.length);
    dfa.byteHi = new Uint8Array(order.length);
    dfa.byteTo = new Int32Array(order.length);
    const { data: byteLo } = b.byteLo;
    const { data: byteHi } = b.byteHi;
    const { data: byteTo } = b.byteTo;
    for (let k = 0; k < order.length; k++) {
      dfa.byteLo[k] = byteLo[order[k]!]!;
      dfa.byteHi[k] = byteHi[order[k]!]!;
      dfa.byteTo[k] = byteTo[order[k]!]!;
    }
    [dfa.epsStart, order] = bySource(b.count, b.epsFrom);
    dfa.epsTo = new Int32Array(order.length);
    const { data: epsTo } = b.epsTo;
    for (let k = 0; k < order.length; k++) dfa.epsTo[k] = epsTo[order[k]!]!;
    dfa.end = new Uint8Array(b.end.data.subarray(0, b.count));
    dfa.isOpaque = new Uint8Array(b.opaque.data.subarray(0, b.count));
    dfa.base = base;
    return dfa;
  }

  private base = 0;

  /** The DFA state of a seed at the rule's local state `local`. */
  start(local: number): number {
    let d = this.starts.get(local);
    if (d === undefined) {
      d = this.intern([this.base + local]);
      if (d >= 0) this.starts.set(local, d);
    }
    return d;
  }

  /** DFA states of seeds by local state (a state's mask asks for it several times). */
  private readonly starts = new Map<number, number>();

  /** Marks in `out` (256 entries) the bytes with a transition out of DFA state `d`. */
  liveBytes(d: number, out: Uint8Array): Uint8Array {
    out.fill(0);
    const { byteStart, byteLo, byteHi } = this;
    for (const s of this.sets[d]!) for (let i = byteStart[s]!; i < byteStart[s + 1]!; i++) out.fill(1, byteLo[i]!, byteHi[i]! + 1);
    return out;
  }

  /** Sets in `out` (8 words, bit b % 32 of word b >> 5) the bytes with a transition out of DFA state `d`. */
  liveBits(d: number, out: Uint32Array): Uint32Array {
    out.fill(0);
    const { byteStart, byteLo, byteHi } = this;
    for (const s of this.sets[d]!) {
      for (let i = byteStart[s]!; i < byteStart[s + 1]!; i++) {
        const first = byteLo[i]!;
        const last = byteHi[i]!;
        for (let w = first >>> 5; w <= last >>> 5; w++) {
          const from = w === first >>> 5 ? first & 31 : 0;
          const to = w === last >>> 5 ? last & 31 : 31;
          out[w]! |= (to === 31 ? -1 : (1 << (to + 1)) - 1) & ~((1 << from) - 1);
        }
      }
    }
    return out;
  }

  /**
   * True when every well-formed multi-byte UTF-8 character leads from `d` back to `d` without
   * passing an opaque state (the inside of a string that takes any character).
   */
  loopsOnWholeChars(d: number): boolean {
    // After each lead byte, the DFA states reached when the character is complete.
    const memo = new Map<number, Set<number> | null>();
    const finish = (u: number, at: number): Set<number> | null => {
      const key = at * 8 + u;
      if (memo.has(key)) return memo.get(key)!;
      const [lo, hi] = utf8Continuation(u);
      let out: Set<number> | null = new Set<number>();
      for (let b = lo; b <= hi && out; b++) {
        const next = this.next(at, b);
        if (next < 0 || this.opaque[next] === 1) out = null;
        else if (utf8Step(u, b) === UTF8_BOUNDARY) out.add(next);
        else {
          const rest = finish(utf8Step(u, b), next);
          if (rest) for (const x of rest) out.add(x);
          else out = null;
        }
      }
      memo.set(key, out);
      return out;
    };
    for (const lead of UTF8_LEADS) {
      const next = this.next(d, lead);
      if (next < 0 || this.opaque[next] === 1) return false;
      const ends = finish(utf8Step(UTF8_BOUNDARY, lead), next);
      if (!ends || ends.size !== 1 || !ends.has(d)) return false;
    }
    return true;
  }

  /** True when the rule (or its context) can be over in this state. */
  isEnd(d: number): boolean {
    return this.ends[d] === 1;
  }

  /** The next DFA state, DFA_DEAD, or DFA_OVERFLOW when the automaton grew too large. */
  next(d: number, byte: number): number {
    const t = this.table[d * 256 + byte]!;
    return t !== DFA_UNKNOWN ? t : this.compute(d, byte);
  }

  /**
   * Fills in the transition on `byte`, and on every byte around it that the same NFA edges
   * take (each edge's range holds all of them or none): a string's inside is a few such runs
   * of bytes, not 200 closures and set keys.
   */
  private compute(d: number, byte: number): number {
    const targets: number[] = [];
    let from = 0;
    let to = 255;
    const { byteStart, byteLo, byteHi, byteTo } = this;
    for (const s of this.sets[d]!) {
      for (let i = byteStart[s]!; i < byteStart[s + 1]!; i++) {
        if (byte < byteLo[i]!) to = Math.min(to, byteLo[i]! - 1);
        else if (byte > byteHi[i]!) from = Math.max(from, byteHi[i]! + 1);
        else {
          targets.push(byteTo[i]!);
          from = Math.max(from, byteLo[i]!);
          to = Math.min(to, byteHi[i]!);
        }
      }
    }
    const t = targets.length === 0 ? DFA_DEAD : this.intern(targets);
    if (t !== DFA_OVERFLOW) {
      // Most runs are a byte or a few: a loop costs less than a call to fill.
      const table = this.table;
      const end = d * 256 + to + 1;
      if (to - from < 16) for (let i = d * 256 + from; i < end; i++) table[i] = t;
      else table.fill(t, d * 256 + from, end);
    }
    return t;
  }

  /** Epsilon closure of `seeds` as a DFA state. */
  private intern(seeds: number[]): number {
    if (seeds.length !== 1) return this.internClosure(seeds);
    const known = this.ofNode[seeds[0]!]!;
    if (known !== 0) return known;
    const d = this.internClosure(seeds);
    if (d > 0) this.ofNode[seeds[0]!] = d;
    return d;
  }

  private internClosure(seeds: number[]): number {
    if (++this.gen === 0x7fffffff) {
      this.stamp.fill(0);
      this.gen = 1;
    }
    let members = this.members;
    let count = 0;
    const stack = this.stack;
    for (const s of seeds) {
      if (this.stamp[s] !== this.gen) {
        this.stamp[s] = this.gen;
        stack.push(s);
      }
    }
    let end = false;
    let opaque = false;
    while (stack.length > 0) {
      const s = stack.pop()!;
      if (count === members.length) {
        const grown = new Int32Array(members.length * 2);
        grown.set(members);
        members = this.members = grown;
      }
      members[count++] = s;
      if (this.end[s] === 1) end = true;
      if (this.isOpaque[s] === 1) opaque = true;
      for (let k = this.epsStart[s]!; k < this.epsStart[s + 1]!; k++) {
        const t = this.epsTo[k]!;
        if (this.stamp[t] !== this.gen) {
          this.stamp[t] = this.gen;
          stack.push(t);
        }
      }
    }
    // Integer hashing, not a joined string as key: a subset is interned once per new
    // transition, and building its string was a tenth of a compile. The members are read in
    // place (a view of them is made only for a new state).
    // Most closures are small: an insertion sort in place beats a typed-array sort of a subarray.
    if (count > 64) members.subarray(0, count).sort();
    else {
      for (let i = 1; i < count; i++) {
        const v = members[i]!;
        let k = i - 1;
        for (; k >= 0 && members[k]! > v; k--) members[k + 1] = members[k]!;
        members[k + 1] = v;
      }
    }
    let h = 0x811c9dc5 | 0;
    for (let i = 0; i < count; i++) h = Math.imul(h ^ members[i]!, 0x01000193);
    let last = -1;
    for (let at = this.byHash.get(h) ?? -1; at >= 0; at = this.sameHash[at]!) {
      if (sameMembers(this.sets[at]!, members, count)) return at;
      last = at;
    }
    if (this.sets.length > MAX_DFA) return DFA_OVERFLOW; // MAX_DFA states besides the placeholder
    const id = this.sets.length;
    if (last >= 0) this.sameHash[last] = id;
    else this.byHash.set(h, id);
    this.sameHash.push(-1);
    this.sets.push(members.slice(0, count));
    if (id >= this.ends.length) {
      const grown = new Uint8Array(this.ends.length * 2);
      grown.set(this.ends);
      this.ends = grown;
      const o = new Uint8Array(this.opaque.length * 2);
      o.set(this.opaque);
      this.opaque = o;
    }
    this.ends[id] = end ? 1 : 0;
    this.opaque[id] = opaque ? 1 : 0;
    if ((id + 1) * 256 > this.table.length) {
      const grown = new Int32Array(this.table.length * 2);
      grown.set(this.table);
      this.table = grown;
    }
    return id;
  }
}

/** Whether `a` holds the first `count` entries of `b`. */
function sameMembers(a: Int32Array, b: Int32Array, count: number): boolean {
  if (a.length !== count) return false;
  for (let i = 0; i < count; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** A growable list of integers whose storage outlives it: see NfaBuilder. */
class IntList {
  data = new Int32Array(1024);
  length = 0;

  push(v: number): void {
    if (this.length === this.data.length) {
      const grown = new Int32Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = v;
  }

  /** Empty, keeping the storage. */
  clear(): IntList {
    this.length = 0;
    return this;
  }
}

/**
 * The builder's lists, reused by every build: a compile copies some 5,000 nodes and 13,000
 * byte edges into its flat DFAs, and number arrays grown by push were a sixth of what it
 * allocated. Builds never overlap (each is finished before FlatDfa.build returns).
 */
const scratch = Array.from({ length: 8 }, () => new IntList());

/** Copies rule automata into one NFA, references replaced by copies of the referenced rule. */
class NfaBuilder {
  // Edges as flat lists in the order they are made (FlatDfa.build packs them by source).
  readonly byteFrom = scratch[0]!.clear();
  readonly byteLo = scratch[1]!.clear();
  readonly byteHi = scratch[2]!.clear();
  readonly byteTo = scratch[3]!.clear();
  readonly epsFrom = scratch[4]!.clear();
  readonly epsTo = scratch[5]!.clear();
  readonly end = scratch[6]!.clear();
  readonly opaque = scratch[7]!.clear();
  count = 0;
  /** Copies by (rule, where its finals lead): a reference in tail position reuses one. */
  private readonly copies = new Map<string, number>();
  /** For the first (top) rule copied: its last-step references to other rules lead to END. */
  cutTails = false;
  private endNode = -1;

  constructor(private readonly fsm: GrammarFsm) {}

  node(): number {
    this.end.push(0);
    this.opaque.push(0);
    return this.count++;
  }

  private byteEdge(from: number, lo: number, hi: number, to: number): void {
    this.byteFrom.push(from);
    this.byteLo.push(lo);
    this.byteHi.push(hi);
    this.byteTo.push(to);
  }

  private epsEdge(from: number, to: number): void {
    this.epsFrom.push(from);
    this.epsTo.push(to);
  }

  /**
   * Copies `rule`; its final states get epsilon edges to `onFinal`. Returns the copy's first
   * node (its start state's, local state k at first + k), or -1 if the copy grows too large.
   * A state with token edges simply stays in the set: a token may end there.
   */
  inline(rule: number, onFinal: number[], path: number[]): number {
    const fsm = this.fsm;
    const key = `${rule}:${onFinal.join(',')}`;
    const copy = this.copies.get(key);
    if (copy !== undefined) return copy;
    const first = fsm.ruleStart[rule]!;
    const last = ruleEnd(fsm, rule);
    if (this.count + (last - first) > MAX_NFA) return -1;
    const base = this.count;
    const cut = this.cutTails;
    this.cutTails = false;
    for (let s = first; s < last; s++) this.node();
    for (let s = first; s < last; s++) {
      const n = base + s - first;
      if (fsm.stateFinal[s] === 1) for (const f of onFinal) this.epsEdge(n, f);
      for (let e = fsm.edgeStart[s]!; e < fsm.edgeStart[s + 1]!; e++) {
        const kind = fsm.edgeKind[e]!;
        const target = base + fsm.edgeTarget[e]! - first;
        if (kind === EDGE_BYTE) {
          this.byteEdge(n, fsm.edgeLo[e]!, fsm.edgeHi[e]!, target);
        } else if (kind === EDGE_RULE) {
          const child = fsm.edgeAux[e]!;
          if (cut && child !== rule && isTail(fsm, fsm.edgeTarget[e]!)) {
            this.epsEdge(n, this.endNode);
            continue;
          }
          // A counted rule (ir.ts UnitCount) starts at count 0 here: the Earley matcher counts it.
          if (path.length >= MAX_INLINE_DEPTH || path.includes(child) || fsm.ruleUnitMax[child]! >= 0) {
            this.addOpaque(n, child, fsm.ruleNullable[child] === 1 ? target : -1);
            continue;
          }
          // A reference to a final state without edges returns where this rule returns.
          const tail = fsm.stateFinal[fsm.edgeTarget[e]!] === 1 && fsm.edgeStart[fsm.edgeTarget[e]!] === fsm.edgeStart[fsm.edgeTarget[e]! + 1];
          const start = this.inline(child, tail ? onFinal : [target], [...path, child]);
          if (start < 0) return -1;
          this.epsEdge(n, start);
        } else if (kind === EDGE_REPEAT) {
          // Reached inside a token, a counted repeat starts afresh (count 0): it may be
          // skipped when its minimum is 0; its iterations are left to the Earley matcher.
          const rep = fsm.edgeAux[e]!;
          this.addOpaque(n, fsm.repRule[rep]!, fsm.repMin[rep] === 0 ? target : -1);
        } else if (kind !== EDGE_TOKEN && kind !== EDGE_EXCLUDE_TOKEN) {
          return -1;
        }
      }
    }
    this.copies.set(key, base);
    return base;
  }

  setEnd(node: number): void {
    this.endNode = node;
  }

  /**
   * Where `from` calls `child` and the copy stops: the bytes `child` can start with lead to an
   * opaque state, so only a token that goes into the call is handed on (and an epsilon edge
   * to `skipTo`, when that is >= 0, skips a call that may match nothing).
   */
  private addOpaque(from: number, child: number, skipTo: number): void {
    if (this.sink < 0) {
      this.sink = this.node();
      this.opaque.data[this.sink] = 1;
    }
    const first = ruleFirstBytes(this.fsm)[child]!;
    for (let b = 0; b < 256; b++) {
      if (first[b] === 0) continue;
      let hi = b;
      while (hi < 255 && first[hi + 1] === 1) hi++;
      this.byteEdge(from, b, hi, this.sink);
      b = hi;
    }
    if (skipTo >= 0) this.epsEdge(from, skipTo);
  }

  /** The one opaque state, or -1 before the first is needed. */
  private sink = -1;
}


/** CSR offsets by source node, and the edges' indices in that order (as made, within a node). */
function bySource(nodes: number, edgeFrom: IntList): [Int32Array, Int32Array] {
  const { data: from, length } = edgeFrom;
  const start = new Int32Array(nodes + 1);
  for (let i = 0; i < length; i++) start[from[i]! + 1]!++;
  for (let i = 0; i < nodes; i++) start[i + 1]! += start[i]!;
  const fill = start.slice(0, nodes);
  const order = new Int32Array(length);
  for (let i = 0; i < length; i++) order[fill[from[i]!]!++] = i;
  return [start, order];
}
