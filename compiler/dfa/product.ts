// Products of byte DFAs: walking several automata side by side over the same string, then
// choosing which combinations of "this part accepts" make a final state. Intersection,
// difference and the key regions of an object (the keys matched by exactly this set of
// patterns) are all one product with a different choice.
import { MAX_LANGUAGE_STATES } from '../limits.js';
import { type ByteDfa, dfaOfTable, LanguageTooLarge } from './byte-dfa.js';

/** The reachable part of a product: per state, which parts accept there (bit i = part i). */
export interface ProductTable {
  /** Bits of the parts whose automata are in a final state. */
  accepting: Int32Array;
  /** [from, lo, hi, to] quadruples. */
  edges: number[];
}

/** Most parts in one product (the accepting sets are 31-bit masks). */
export const MAX_PRODUCT_PARTS = 30;

/**
 * Walks every part at once from their starts. A tuple where no part has a live state is
 * left out (no string from there is in any part), so a choice must never accept the empty
 * set of parts.
 */
export function productTable(parts: readonly ByteDfa[]): ProductTable {
  if (parts.length > MAX_PRODUCT_PARTS) throw new Error(`internal: more than ${MAX_PRODUCT_PARTS} automata in one product`);
  const k = parts.length;
  const tuples: Int32Array[] = [new Int32Array(k)];
  const ids = new Map<string, number>([[tuples[0]!.join(','), 0]]);
  const accepting: number[] = [];
  const edges: number[] = [];
  const cuts: number[] = [];
  const cursor = new Int32Array(k);
  for (let id = 0; id < tuples.length; id++) {
    const tuple = tuples[id]!;
    let bits = 0;
    cuts.length = 0;
    for (let i = 0; i < k; i++) {
      const s = tuple[i]!;
      if (s < 0) continue;
      const dfa = parts[i]!;
      if (dfa.finals[s] === 1) bits |= 1 << i;
      for (let e = dfa.edgeStart[s]!; e < dfa.edgeStart[s + 1]!; e++) cuts.push(dfa.edgeLo[e]!, dfa.edgeHi[e]! + 1);
      cursor[i] = dfa.edgeStart[s]!;
    }
    accepting.push(bits);
    const points = [...new Set(cuts)].sort((a, b) => a - b);
    for (let p = 0; p + 1 < points.length; p++) {
      const lo = points[p]!;
      const next = new Int32Array(k).fill(-1);
      let live = false;
      for (let i = 0; i < k; i++) {
        const s = tuple[i]!;
        if (s < 0) continue;
        const dfa = parts[i]!;
        // Pieces come in byte order, so each part's edge cursor only moves forward.
        let e = cursor[i]!;
        while (e < dfa.edgeStart[s + 1]! && dfa.edgeHi[e]! < lo) e++;
        cursor[i] = e;
        if (e < dfa.edgeStart[s + 1]! && dfa.edgeLo[e]! <= lo) {
          next[i] = dfa.edgeTo[e]!;
          live = true;
        }
      }
      if (!live) continue;
      const key = next.join(',');
      let to = ids.get(key);
      if (to === undefined) {
        to = tuples.length;
        if (to >= MAX_LANGUAGE_STATES) throw new LanguageTooLarge();
        ids.set(key, to);
        tuples.push(next);
      }
      edges.push(id, lo, points[p + 1]! - 1, to);
    }
  }
  return { accepting: Int32Array.from(accepting), edges };
}

/** The strings for which `accept` holds of the set of parts accepting them, minimal. */
export function productDfa(parts: readonly ByteDfa[], accept: (bits: number) => boolean): ByteDfa {
  return chooseFinals(productTable(parts), accept);
}

/** One language out of a product table. */
export function chooseFinals(table: ProductTable, accept: (bits: number) => boolean): ByteDfa {
  if (accept(0)) throw new Error('internal: a product may not accept strings no part accepts');
  return dfaOfTable(Array.from(table.accepting, (bits) => (accept(bits) ? 1 : 0)), table.edges);
}

export function intersectDfa(a: ByteDfa, b: ByteDfa): ByteDfa {
  return productDfa([a, b], (bits) => bits === 3);
}

/** Strings of `a` that are not in `b`. */
export function subtractDfa(a: ByteDfa, b: ByteDfa): ByteDfa {
  return productDfa([a, b], (bits) => bits === 1);
}
