// Questions about the packed automaton that the matcher, the row engine and the mask compiler
// all ask, kept beside the automaton so none of them has to import another for them.
import type { GrammarFsm } from './grammar-fsm.js';

/** A reference into `target` is a tail call: nothing of the caller follows it. */
export function isTail(fsm: GrammarFsm, target: number): boolean {
  return fsm.stateFinal[target] === 1 && fsm.edgeStart[target] === fsm.edgeStart[target + 1];
}

/** Whether token set `set` (sorted ids) holds `id`. */
export function tokenSetHas(fsm: GrammarFsm, set: number, id: number): boolean {
  let lo = fsm.tokenSetStart[set]!;
  let hi = fsm.tokenSetStart[set + 1]! - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = fsm.tokenIds[mid]!;
    if (v === id) return true;
    if (v < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}
