// One rule's automaton while it is being built (Thompson construction with epsilon edges),
// and the epsilon-free, trimmed form that gets packed into the grammar automaton.
import { EDGE_EPSILON, EDGE_REPEAT } from './edges.js';

export class RuleFsm {
  finals: boolean[] = [false];
  from: number[] = [];
  kind: number[] = [];
  lo: number[] = [];
  hi: number[] = [];
  aux: number[] = [];
  to: number[] = [];
  /** Loop state of each REPEAT edge's repeat entry, local to this FSM: repeat index -> state. */
  repeatLoops = new Map<number, number>();

  get numStates(): number {
    return this.finals.length;
  }

  newState(): number {
    this.finals.push(false);
    return this.finals.length - 1;
  }

  edge(from: number, kind: number, to: number, lo = 0, hi = 0, aux = 0): void {
    this.from.push(from);
    this.kind.push(kind);
    this.lo.push(lo);
    this.hi.push(hi);
    this.aux.push(aux);
    this.to.push(to);
  }

  eps(from: number, to: number): void {
    if (from !== to) this.edge(from, EDGE_EPSILON, to);
  }

  /**
   * Removes epsilon edges (each state takes over the edges and finality of its epsilon
   * closure), drops states that are unreachable or cannot reach a final state, and renumbers
   * with the start state as 0. Repeat loop states survive while a REPEAT edge needs them.
   */
  simplify(): RuleFsm {
    const n = this.numStates;
    const out: number[][] = Array.from({ length: n }, () => []);
    const epsOut: number[][] = Array.from({ length: n }, () => []);
    for (let e = 0; e < this.from.length; e++) {
      (this.kind[e] === EDGE_EPSILON ? epsOut : out)[this.from[e]!]!.push(e);
    }
    const closures: number[][] = [];
    for (let s = 0; s < n; s++) {
      const seen = new Set([s]);
      const stack = [s];
      while (stack.length > 0) {
        for (const e of epsOut[stack.pop()!]!) {
          const t = this.to[e]!;
          if (!seen.has(t)) {
            seen.add(t);
            stack.push(t);
          }
        }
      }
      closures.push([...seen]);
    }
    // Epsilon-free edges and finality per state.
    const edges: number[][] = [];
    const finals: boolean[] = [];
    for (let s = 0; s < n; s++) {
      const list: number[] = [];
      const keys = new Set<string>();
      let fin = false;
      for (const c of closures[s]!) {
        if (this.finals[c]) fin = true;
        for (const e of out[c]!) {
          const key = `${this.kind[e]},${this.lo[e]},${this.hi[e]},${this.aux[e]},${this.to[e]}`;
          if (!keys.has(key)) {
            keys.add(key);
            list.push(e);
          }
        }
      }
      edges.push(list);
      finals.push(fin);
    }
    // Co-reachability: which states can reach a final state.
    const live = finals.slice();
    for (let changed = true; changed; ) {
      changed = false;
      for (let s = 0; s < n; s++) {
        if (live[s]) continue;
        if (edges[s]!.some((e) => live[this.to[e]!])) {
          live[s] = true;
          changed = true;
        }
      }
    }
    // Forward reachability over live edges, keeping the loop states of live repeat edges.
    const index = new Int32Array(n).fill(-1);
    const order: number[] = [];
    const visit = (s: number): void => {
      if (index[s] !== -1) return;
      index[s] = order.length;
      order.push(s);
    };
    visit(0);
    for (let i = 0; i < order.length; i++) {
      for (const e of edges[order[i]!]!) {
        if (!live[this.to[e]!]) continue;
        visit(this.to[e]!);
        if (this.kind[e] === EDGE_REPEAT) visit(this.repeatLoops.get(this.aux[e]!)!);
      }
    }
    const result = new RuleFsm();
    result.finals = order.map((s) => finals[s]!);
    for (const s of order) {
      for (const e of edges[s]!) {
        if (!live[this.to[e]!]) continue;
        result.edge(index[s]!, this.kind[e]!, index[this.to[e]!]!, this.lo[e], this.hi[e], this.aux[e]);
      }
    }
    for (const [rep, loop] of this.repeatLoops) if (index[loop] !== -1) result.repeatLoops.set(rep, index[loop]!);
    return result;
  }
}
