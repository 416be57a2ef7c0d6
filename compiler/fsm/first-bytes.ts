// The bytes each rule can begin with (its FIRST set over bytes; token edges match by id and
// add none). The mask compiler's flat DFA stops at a recursive reference; knowing which bytes
// can enter it, a token that does not start into the recursion is decided without the Earley
// matcher.
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
  for (let changed = true; changed; ) {
    changed = false;
    for (let r = 0; r < n; r++) {
      const own = first[r]!;
      for (const c of callees[r]!) {
        const theirs = first[c]!;
        for (let b = 0; b < 256; b++) {
          if (theirs[b] === 1 && own[b] === 0) {
            own[b] = 1;
            changed = true;
          }
        }
      }
    }
  }
  cache.set(fsm, first);
  return first;
}
