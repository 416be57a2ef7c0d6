// The bytes each rule can begin with (its FIRST set over bytes; token edges match by id and
// add none). The mask compiler's flat DFA stops at a recursive reference; knowing which bytes
// can enter it, a token that does not start into the recursion is decided without the Earley
// matcher.
import { components } from './components.js';
import { EDGE_BYTE, EDGE_REPEAT, EDGE_RULE } from './edges.js';
import type { GrammarFsm } from './grammar-fsm.js';

const cache = new WeakMap<GrammarFsm, Uint8Array[]>();

/** Per rule, 256 flags: the bytes some non-empty match of the rule starts with. */
export function ruleFirstBytes(fsm: GrammarFsm): Uint8Array[] {
  let first = cache.get(fsm);
  if (first) return first;
  const n = fsm.ruleStart.length;
  first = Array.from({ length: n }, () => new Uint8Array(256));
  // Per rule, what its first byte can come from: its own byte edges, and the rules it can
  // call before consuming anything (through nullable calls and skippable repeats).
  const callees: number[][] = Array.from({ length: n }, () => []);
  for (let r = 0; r < n; r++) {
    const seen = new Set<number>([fsm.ruleStart[r]!]);
    const stack = [fsm.ruleStart[r]!];
    while (stack.length > 0) {
      const s = stack.pop()!;
      for (let e = fsm.edgeStart[s]!; e < fsm.edgeStart[s + 1]!; e++) {
        const kind = fsm.edgeKind[e]!;
        let child = -1;
        let passable = false;
        if (kind === EDGE_BYTE) first[r]!.fill(1, fsm.edgeLo[e]!, fsm.edgeHi[e]! + 1);
        else if (kind === EDGE_RULE) {
          child = fsm.edgeAux[e]!;
          passable = fsm.ruleNullable[child] === 1;
        } else if (kind === EDGE_REPEAT) {
          const rep = fsm.edgeAux[e]!;
          child = fsm.repRule[rep]!;
          passable = fsm.repMin[rep] === 0 || fsm.ruleNullable[child] === 1;
        }
        if (child >= 0) callees[r]!.push(child);
        if (passable && !seen.has(fsm.edgeTarget[e]!)) {
          seen.add(fsm.edgeTarget[e]!);
          stack.push(fsm.edgeTarget[e]!);
        }
      }
    }
  }
  // Callees first, over the components of the call graph: a rule's set is its own bytes and
  // its callees' sets, and the rules of a cycle share one set. (A fixpoint over all rules took
  // a pass per level of a long chain: quadratic.)
  const componentOf = new Int32Array(n).fill(-1);
  components(callees).forEach((component, k) => {
    for (const r of component) componentOf[r] = k;
    const set = new Uint8Array(256);
    for (const r of component) {
      const own = first[r]!;
      for (let b = 0; b < 256; b++) set[b]! |= own[b]!;
      for (const c of callees[r]!) {
        if (componentOf[c] === k) continue;
        const theirs = first[c]!;
        for (let b = 0; b < 256; b++) set[b]! |= theirs[b]!;
      }
    }
    for (const r of component) first[r]!.set(set);
  });
  cache.set(fsm, first);
  return first;
}
