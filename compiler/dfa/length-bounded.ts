// A language within a length (a pattern or format beside maxLength), built directly instead of
// as the product of the language with repeat.ts's counter. The walk of the language beside
// a count of units (one character in some spelling) never comes back to a state: each unit
// moves the count up, and the bytes inside one unit do not loop. So after trimming, states
// can be merged from the last ones back, each once, by its final flag and its edges' target
// classes (Revuz's method for acyclic automata), where partition refinement (fsm/minimize.ts)
// takes a round per count: a URI of at most 2,083 characters took seconds and hundreds of MB.
// The result is the same minimal, canonically numbered automaton the product gives. Past a
// maximum of 128 the front end asks instead for the language beside a count up to its minimum
// only (unitCountedExpr), and the matcher counts the maximum: a state per count was 41,550
// states for a URI of at most 2,083 characters, and past 2,503 more than the limit.
import { MAX_LANGUAGE_STATES } from '../limits.js';
import { type Expr, NOTHING } from '../ir.js';
import { type ByteDfa, EMPTY_DFA, LanguageTooLarge } from './byte-dfa.js';

/**
 * The strings of `language` made of min..max (not unbounded) strings of `unit`. The unit must
 * be prefix-free and never come back to its start, as for repeatDfa; the language's strings
 * are expected to be made of units (a string that ends inside one is not taken).
 */
export function lengthBoundedDfa(language: ByteDfa, unit: ByteDfa, min: number, max: number): ByteDfa {
  const end = unitEnd(unit);
  const walk = walkWithCount(language, unit, end, min, max);
  const live = coReachable(walk);
  if (live[0] === 0) return EMPTY_DFA;
  const order = lastFirst(walk, live, unitDepths(unit, end));
  return merged(walk, live, order);
}

/**
 * The strings of `language` made of min..max strings of `unit`, as an automaton leaf whose
 * maximum the matcher counts (ir.ts UnitCount) instead of one state per count: the automaton
 * holds the language beside a count that stops at `min` (at most `min + 1` copies of it), its
 * states where a unit ends marked. Trimmed and numbered as the walk finds them, not minimised
 * (merging states would lose where units end). Nothing when no string has `min` units.
 */
export function unitCountedExpr(language: ByteDfa, unit: ByteDfa, min: number, max: number): Expr {
  const walk = walkWithCount(language, unit, unitEnd(unit), min, Infinity, min);
  const live = coReachable(walk);
  if (live[0] === 0) return NOTHING;
  const index = new Int32Array(live.length).fill(-1);
  let n = 0;
  for (let s = 0; s < live.length; s++) if (live[s] === 1) index[s] = n++;
  const finals: number[] = [];
  const ends: number[] = [];
  const edges: number[] = [];
  for (let s = 0; s < live.length; s++) {
    const i = index[s]!;
    if (i < 0) continue;
    if (walk.finals[s] === 1) finals.push(i);
    if (walk.unitState[s] === 0) ends.push(i);
    for (let e = walk.edgeStart[s]!; e < walk.edgeStart[s + 1]!; e++) {
      if (index[walk.edgeTo[e]!]! >= 0) edges.push(i, walk.edgeLo[e]!, walk.edgeHi[e]!, index[walk.edgeTo[e]!]!);
    }
  }
  return { kind: 'automaton', states: n, finals, edges, units: { ends, max } };
}

/** The unit's one final state, which has no edges. */
function unitEnd(unit: ByteDfa): number {
  let end = -1;
  for (let s = 0; s < unit.numStates; s++) {
    if (unit.finals[s] !== 1) continue;
    if (end >= 0 || unit.edgeStart[s] !== unit.edgeStart[s + 1]) throw new Error('internal: lengthBoundedDfa needs a prefix-free unit');
    end = s;
  }
  if (end <= 0) throw new Error('internal: lengthBoundedDfa needs a unit of at least one byte');
  return end;
}

/** The states reachable from the start, as (language state, unit state, count) triples. */
interface Walk {
  count: number[];
  unitState: number[];
  finals: number[];
  /** CSR by source, in byte order (the states are numbered as the walk finds them). */
  edgeStart: number[];
  edgeLo: number[];
  edgeHi: number[];
  edgeTo: number[];
}

/** Counts stop at `cap` (unbounded by default): a count that only has to reach `min`. */
function walkWithCount(language: ByteDfa, unit: ByteDfa, end: number, min: number, max: number, cap = Infinity): Walk {
  const languageState: number[] = [0];
  const w: Walk = { count: [0], unitState: [0], finals: [], edgeStart: [], edgeLo: [], edgeHi: [], edgeTo: [] };
  const ids = new Map<number, number>([[0, 0]]);
  const key = (c: number, l: number, u: number): number => (c * language.numStates + l) * unit.numStates + u;
  for (let s = 0; s < languageState.length; s++) {
    const l = languageState[s]!;
    const u = w.unitState[s]!;
    const c = w.count[s]!;
    w.finals.push(language.finals[l] === 1 && u === 0 && c >= min ? 1 : 0);
    w.edgeStart.push(w.edgeTo.length);
    // Both edge lists are disjoint ranges in byte order: their overlaps, in one sweep.
    let i = language.edgeStart[l]!;
    let j = unit.edgeStart[u]!;
    const iEnd = language.edgeStart[l + 1]!;
    const jEnd = unit.edgeStart[u + 1]!;
    while (i < iEnd && j < jEnd) {
      const lo = Math.max(language.edgeLo[i]!, unit.edgeLo[j]!);
      const hi = Math.min(language.edgeHi[i]!, unit.edgeHi[j]!);
      if (lo <= hi) {
        const unitDone = unit.edgeTo[j] === end;
        const toCount = unitDone ? Math.min(c + 1, cap) : c;
        const toUnit = unitDone ? 0 : unit.edgeTo[j]!;
        const toLanguage = language.edgeTo[i]!;
        if (toCount <= max) {
          const k = key(toCount, toLanguage, toUnit);
          let to = ids.get(k);
          if (to === undefined) {
            to = languageState.length;
            if (to >= MAX_LANGUAGE_STATES) throw new LanguageTooLarge();
            ids.set(k, to);
            languageState.push(toLanguage);
            w.unitState.push(toUnit);
            w.count.push(toCount);
          }
          w.edgeLo.push(lo);
          w.edgeHi.push(hi);
          w.edgeTo.push(to);
        }
      }
      if (language.edgeHi[i]! < unit.edgeHi[j]!) i++;
      else j++;
    }
  }
  w.edgeStart.push(w.edgeTo.length);
  return w;
}

/** 1 for the states some final state is reachable from. */
function coReachable(w: Walk): Uint8Array {
  const n = w.finals.length;
  const predStart = new Int32Array(n + 1);
  for (const to of w.edgeTo) predStart[to + 1]!++;
  for (let s = 0; s < n; s++) predStart[s + 1]! += predStart[s]!;
  const fill = predStart.slice(0, n);
  const preds = new Int32Array(w.edgeTo.length);
  for (let s = 0; s < n; s++) for (let e = w.edgeStart[s]!; e < w.edgeStart[s + 1]!; e++) preds[fill[w.edgeTo[e]!]!++] = s;
  const live = new Uint8Array(n);
  const queue: number[] = [];
  for (let s = 0; s < n; s++) if (w.finals[s] === 1) (live[s] = 1), queue.push(s);
  for (let q = 0; q < queue.length; q++) {
    const s = queue[q]!;
    for (let k = predStart[s]!; k < predStart[s + 1]!; k++) {
      const p = preds[k]!;
      if (live[p] === 0) (live[p] = 1), queue.push(p);
    }
  }
  return live;
}

/** Per unit state, the most bytes from the unit's start to it: inside a unit every edge goes deeper. */
function unitDepths(unit: ByteDfa, end: number): Int32Array {
  const depth = new Int32Array(unit.numStates).fill(-1);
  const visit = (s: number): number => {
    if (depth[s]! >= 0) return depth[s]!;
    let d = 0;
    for (let p = 0; p < unit.numStates; p++) {
      if (p === end) continue;
      for (let e = unit.edgeStart[p]!; e < unit.edgeStart[p + 1]!; e++) if (unit.edgeTo[e] === s && p !== s) d = Math.max(d, visit(p) + 1);
    }
    depth[s] = d;
    return d;
  };
  for (let s = 0; s < unit.numStates; s++) visit(s);
  return depth;
}

/** The live states, each after every state it has an edge to: by count, then depth in the unit, both descending. */
function lastFirst(w: Walk, live: Uint8Array, depth: Int32Array): number[] {
  let deepest = 0;
  for (const d of depth) deepest = Math.max(deepest, d);
  const rank = (s: number): number => w.count[s]! * (deepest + 1) + depth[w.unitState[s]!]!;
  const order: number[] = [];
  for (let s = 0; s < live.length; s++) if (live[s] === 1) order.push(s);
  return order.sort((a, b) => rank(b) - rank(a));
}

/**
 * One state per class of equal futures: a state's class is found from its final flag and its
 * live edges, adjacent ranges into one class joined, whose targets already have theirs. Then
 * numbered in the order a walk from the start reaches them, edges in byte order, as
 * fsm/minimize.ts numbers them.
 */
function merged(w: Walk, live: Uint8Array, order: number[]): ByteDfa {
  const classOf = new Int32Array(live.length).fill(-1);
  // Signatures, back to back: final flag, edge count, then (lo, hi, class) per edge.
  const sigs: number[] = [];
  const sigStart: number[] = [];
  const byHash = new Map<number, number[]>();
  const scratch: number[] = [];
  for (const s of order) {
    scratch.length = 0;
    scratch.push(w.finals[s]!, 0);
    for (let e = w.edgeStart[s]!; e < w.edgeStart[s + 1]!; e++) {
      const to = w.edgeTo[e]!;
      if (live[to] === 0) continue;
      const c = classOf[to]!;
      const n = scratch.length;
      if (n > 2 && scratch[n - 1] === c && scratch[n - 2]! + 1 === w.edgeLo[e]) scratch[n - 2] = w.edgeHi[e]!;
      else scratch.push(w.edgeLo[e]!, w.edgeHi[e]!, c);
    }
    scratch[1] = (scratch.length - 2) / 3;
    let h = 0x811c9dc5 | 0;
    for (const v of scratch) h = Math.imul(h ^ v, 0x01000193);
    const candidates = byHash.get(h);
    let found = -1;
    if (candidates) for (const k of candidates) if (sameSignature(sigs, sigStart[k]!, scratch)) found = k;
    if (found < 0) {
      found = sigStart.length;
      if (found >= MAX_LANGUAGE_STATES) throw new LanguageTooLarge();
      sigStart.push(sigs.length);
      for (const v of scratch) sigs.push(v);
      if (candidates) candidates.push(found);
      else byHash.set(h, [found]);
    }
    classOf[s] = found;
  }
  // Number the classes as a walk from the start's reaches them.
  const index = new Int32Array(sigStart.length).fill(-1);
  const byIndex: number[] = [classOf[0]!];
  index[classOf[0]!] = 0;
  let edges = 0;
  for (let i = 0; i < byIndex.length; i++) {
    const at = sigStart[byIndex[i]!]!;
    const count = sigs[at + 1]!;
    edges += count;
    for (let k = 0; k < count; k++) {
      const c = sigs[at + 2 + 3 * k + 2]!;
      if (index[c] === -1) (index[c] = byIndex.length), byIndex.push(c);
    }
  }
  const n = byIndex.length;
  const finals = new Uint8Array(n);
  const edgeStart = new Int32Array(n + 1);
  const edgeLo = new Uint8Array(edges);
  const edgeHi = new Uint8Array(edges);
  const edgeTo = new Int32Array(edges);
  let e = 0;
  for (let i = 0; i < n; i++) {
    const at = sigStart[byIndex[i]!]!;
    finals[i] = sigs[at]!;
    edgeStart[i] = e;
    for (let k = 0; k < sigs[at + 1]!; k++, e++) {
      edgeLo[e] = sigs[at + 2 + 3 * k]!;
      edgeHi[e] = sigs[at + 3 + 3 * k]!;
      edgeTo[e] = index[sigs[at + 4 + 3 * k]!]!;
    }
  }
  edgeStart[n] = e;
  return { numStates: n, finals, edgeStart, edgeLo, edgeHi, edgeTo };
}

function sameSignature(sigs: number[], at: number, scratch: number[]): boolean {
  if (sigs[at + 1] !== scratch[1]) return false;
  for (let k = 0; k < scratch.length; k++) if (sigs[at + k] !== scratch[k]) return false;
  return true;
}
