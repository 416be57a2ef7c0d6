// A fast path for the mask compiler. Within one token, the Earley parse of a rule is a plain
// NFA as long as it meets no recursion and no counted repeat: the rule's automaton with every
// referenced rule's automaton copied in at the reference (and its context rule after its final
// states). Determinised lazily, walking a token byte is one table lookup instead of an Earley
// step; the classification is the same (see classify-state.ts). A recursive reference or a
// counted repeat is not copied: the bytes it can start with lead to an "opaque" state, and a
// token that gets there is handed to the Earley matcher.
import { EDGE_BYTE, EDGE_EXCLUDE_TOKEN, EDGE_REPEAT, EDGE_RULE, EDGE_TOKEN } from '../fsm/edges.js';
import type { GrammarFsm } from '../fsm/grammar-fsm.js';
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
/** A table entry not computed yet (call `next`). */
export const DFA_UNKNOWN = -3;

export type DfaMode = 'exact' | 'context' | 'cut';

export class FlatDfa {
  // NFA: byte edges in CSR-like lists built once; epsilon targets; END marks (the rule, or its
  // context, is over: what follows is not known here).
  private readonly byteLo: number[][] = [];
  private readonly byteHi: number[][] = [];
  private readonly byteTo: number[][] = [];
  private readonly eps: number[][] = [];
  private readonly end: boolean[] = [];
  private readonly isOpaque: boolean[] = [];
  // DFA: sets of NFA states by key, their END flag, and a lazily filled 256-wide table.
  private readonly ids = new Map<string, number>();
  private readonly sets: Int32Array[] = [];
  /** END flag (1) per DFA state. */
  ends = new Uint8Array(64);
  /** 1 where the DFA state holds an opaque NFA state. */
  opaque = new Uint8Array(64);
  /** d * 256 + byte -> next state, DFA_DEAD, or DFA_UNKNOWN when not computed yet (call `next`). */
  table = new Int32Array(256 * 64).fill(DFA_UNKNOWN);
  private readonly stamp: Int32Array;
  private gen = 0;
  private readonly stack: number[] = [];

  private constructor(nodes: number) {
    this.stamp = new Int32Array(nodes);
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
    b.end[endNode] = true;
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
    for (let i = 0; i < b.count; i++) {
      dfa.byteLo.push(b.lo[i]!);
      dfa.byteHi.push(b.hi[i]!);
      dfa.byteTo.push(b.to[i]!);
      dfa.eps.push(b.eps[i]!);
      dfa.end.push(b.end[i]!);
      dfa.isOpaque.push(b.opaque[i]!);
    }
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
    for (const s of this.sets[d]!) {
      const lo = this.byteLo[s]!;
      const hi = this.byteHi[s]!;
      for (let i = 0; i < lo.length; i++) out.fill(1, lo[i]!, hi[i]! + 1);
    }
    return out;
  }

  /** Sets in `out` (8 words, bit b % 32 of word b >> 5) the bytes with a transition out of DFA state `d`. */
  liveBits(d: number, out: Uint32Array): Uint32Array {
    out.fill(0);
    for (const s of this.sets[d]!) {
      const lo = this.byteLo[s]!;
      const hi = this.byteHi[s]!;
      for (let i = 0; i < lo.length; i++) {
        const first = lo[i]!;
        const last = hi[i]!;
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
    for (const s of this.sets[d]!) {
      const lo = this.byteLo[s]!;
      const hi = this.byteHi[s]!;
      for (let i = 0; i < lo.length; i++) {
        if (byte < lo[i]!) to = Math.min(to, lo[i]! - 1);
        else if (byte > hi[i]!) from = Math.max(from, hi[i]! + 1);
        else {
          targets.push(this.byteTo[s]![i]!);
          from = Math.max(from, lo[i]!);
          to = Math.min(to, hi[i]!);
        }
      }
    }
    const t = targets.length === 0 ? DFA_DEAD : this.intern(targets);
    if (t !== DFA_OVERFLOW) this.table.fill(t, d * 256 + from, d * 256 + to + 1);
    return t;
  }

  /** Epsilon closure of `seeds` as a DFA state. */
  private intern(seeds: number[]): number {
    if (++this.gen === 0x7fffffff) {
      this.stamp.fill(0);
      this.gen = 1;
    }
    const members: number[] = [];
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
      members.push(s);
      if (this.end[s]) end = true;
      if (this.isOpaque[s]) opaque = true;
      for (const t of this.eps[s]!) {
        if (this.stamp[t] !== this.gen) {
          this.stamp[t] = this.gen;
          stack.push(t);
        }
      }
    }
    members.sort((a, b) => a - b);
    const key = members.join(',');
    const hit = this.ids.get(key);
    if (hit !== undefined) return hit;
    if (this.sets.length >= MAX_DFA) return DFA_OVERFLOW;
    const id = this.sets.length;
    this.ids.set(key, id);
    this.sets.push(Int32Array.from(members));
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
      const grown = new Int32Array(this.table.length * 2).fill(DFA_UNKNOWN);
      grown.set(this.table);
      this.table = grown;
    }
    return id;
  }
}

/** Copies rule automata into one NFA, references replaced by copies of the referenced rule. */
class NfaBuilder {
  lo: number[][] = [];
  hi: number[][] = [];
  to: number[][] = [];
  eps: number[][] = [];
  end: boolean[] = [];
  opaque: boolean[] = [];
  count = 0;
  /** Copies by (rule, where its finals lead): a reference in tail position reuses one. */
  private readonly copies = new Map<string, number>();
  /** For the first (top) rule copied: its last-step references to other rules lead to END. */
  cutTails = false;
  private endNode = -1;

  constructor(private readonly fsm: GrammarFsm) {}

  node(): number {
    this.lo.push([]);
    this.hi.push([]);
    this.to.push([]);
    this.eps.push([]);
    this.end.push(false);
    this.opaque.push(false);
    return this.count++;
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
    const last = rule + 1 < fsm.ruleStart.length ? fsm.ruleStart[rule + 1]! : fsm.stateRule.length;
    if (this.count + (last - first) > MAX_NFA) return -1;
    const base = this.count;
    const cut = this.cutTails;
    this.cutTails = false;
    for (let s = first; s < last; s++) this.node();
    for (let s = first; s < last; s++) {
      const n = base + s - first;
      if (fsm.stateFinal[s] === 1) this.eps[n]!.push(...onFinal);
      for (let e = fsm.edgeStart[s]!; e < fsm.edgeStart[s + 1]!; e++) {
        const kind = fsm.edgeKind[e]!;
        const target = base + fsm.edgeTarget[e]! - first;
        if (kind === EDGE_BYTE) {
          this.lo[n]!.push(fsm.edgeLo[e]!);
          this.hi[n]!.push(fsm.edgeHi[e]!);
          this.to[n]!.push(target);
        } else if (kind === EDGE_RULE) {
          const child = fsm.edgeAux[e]!;
          if (cut && child !== rule && isTail(fsm, fsm.edgeTarget[e]!)) {
            this.eps[n]!.push(this.endNode);
            continue;
          }
          if (path.length >= MAX_INLINE_DEPTH || path.includes(child)) {
            this.addOpaque(n, child, fsm.ruleNullable[child] === 1 ? target : -1);
            continue;
          }
          // A reference to a final state without edges returns where this rule returns.
          const tail = fsm.stateFinal[fsm.edgeTarget[e]!] === 1 && fsm.edgeStart[fsm.edgeTarget[e]!] === fsm.edgeStart[fsm.edgeTarget[e]! + 1];
          const start = this.inline(child, tail ? onFinal : [target], [...path, child]);
          if (start < 0) return -1;
          this.eps[n]!.push(start);
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
      this.opaque[this.sink] = true;
    }
    const first = ruleFirstBytes(this.fsm)[child]!;
    for (let b = 0; b < 256; b++) {
      if (first[b] === 0) continue;
      let hi = b;
      while (hi < 255 && first[hi + 1] === 1) hi++;
      this.lo[from]!.push(b);
      this.hi[from]!.push(hi);
      this.to[from]!.push(this.sink);
      b = hi;
    }
    if (skipTo >= 0) this.eps[from]!.push(skipTo);
  }

  /** The one opaque state, or -1 before the first is needed. */
  private sink = -1;
}

