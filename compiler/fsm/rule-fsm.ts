// One rule's automaton while it is being built (Thompson construction with epsilon edges),
// and the epsilon-free, trimmed form that gets packed into the grammar automaton.
import { EDGE_EPSILON, EDGE_REPEAT } from './edges.js';

/** States the automata of one grammar may be built with, counted down (limits.ts). */
export interface StateBudget {
  left: number;
}

export class RuleFsm {
  finals: boolean[] = [false];
  /** While building from a client's grammar: nested bounded repeats multiply states. */
  budget: StateBudget | null = null;
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
    if (this.budget !== null && --this.budget.left < 0) throw new TooManyStates();
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

  /** CSR offsets and edge indices of the edges whose kind passes `keep`, by source state. */
  private edgesBySource(keep: (kind: number) => boolean): [Int32Array, Int32Array] {
    const start = new Int32Array(this.numStates + 1);
    for (let e = 0; e < this.from.length; e++) if (keep(this.kind[e]!)) start[this.from[e]! + 1]!++;
    for (let s = 0; s < this.numStates; s++) start[s + 1]! += start[s]!;
    const fill = start.slice(0, this.numStates);
    const list = new Int32Array(start[this.numStates]!);
    for (let e = 0; e < this.from.length; e++) if (keep(this.kind[e]!)) list[fill[this.from[e]!]!++] = e;
    return [start, list];
  }

  /**
   * Removes epsilon edges (each state takes over the edges and finality of its epsilon
   * closure), drops states that are unreachable or cannot reach a final state, and renumbers
   * with the start state as 0. Repeat loop states survive while a REPEAT edge needs them.
   */
  simplify(): RuleFsm {
    const n = this.numStates;
    // Out-edges by source (CSR), epsilon and other edges apart.
    const [epsStart, epsList] = this.edgesBySource((k) => k === EDGE_EPSILON);
    const [outStart, outList] = this.edgesBySource((k) => k !== EDGE_EPSILON);
    // Each state takes over the edges and finality of its epsilon closure (an original edge is
    // reached only through its own source, so none is taken twice). Only states reachable from
    // the start, or loop states of repeats, are worth the work.
    const edges: number[][] = new Array<number[]>(n);
    const finals: boolean[] = new Array<boolean>(n).fill(false);
    const seen = new Int32Array(n).fill(-1);
    const stack: number[] = [];
    const close = (s: number): void => {
      const list: number[] = [];
      let fin = false;
      seen[s] = s;
      stack.push(s);
      while (stack.length > 0) {
        const c = stack.pop()!;
        if (this.finals[c]) fin = true;
        for (let k = outStart[c]!; k < outStart[c + 1]!; k++) list.push(outList[k]!);
        for (let k = epsStart[c]!; k < epsStart[c + 1]!; k++) {
          const t = this.to[epsList[k]!]!;
          if (seen[t] !== s) {
            seen[t] = s;
            stack.push(t);
          }
        }
      }
      edges[s] = list;
      finals[s] = fin;
    };
    const reached: number[] = [0];
    const isReached = new Uint8Array(n);
    isReached[0] = 1;
    const reach = (t: number): void => {
      if (!isReached[t]) {
        isReached[t] = 1;
        reached.push(t);
      }
    };
    for (let i = 0; i < reached.length; i++) {
      const s = reached[i]!;
      close(s);
      for (const e of edges[s]!) {
        reach(this.to[e]!);
        if (this.kind[e] === EDGE_REPEAT) reach(this.repeatLoops.get(this.aux[e]!)!);
      }
    }
    // Co-reachability: backwards from the final states.
    const preds: number[][] = Array.from({ length: n }, () => []);
    for (const s of reached) for (const e of edges[s]!) preds[this.to[e]!]!.push(s);
    const live = finals.slice();
    const work = reached.filter((s) => live[s]);
    while (work.length > 0) {
      for (const p of preds[work.pop()!]!) {
        if (!live[p]) {
          live[p] = true;
          work.push(p);
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

/** Thrown by `newState` when the budget is spent; the builder turns it into a GrammarError. */
export class TooManyStates extends Error {}
