// What decides an uncertain token at run time. A token is uncertain for a state when the
// state's rule can end inside it: it is allowed exactly when, for one of those end positions,
// the parents of the real item accept the rest of the token. Those rests are few and short
// (in a JSON string: `,`, `}`, `,\n`, ...) and shared by many tokens, so they are kept once,
// sorted by bytes, and tried on the row that follows the rule's end (RowEngine.pushCompletion)
// instead of parsing every whole token on the real rows.
//
// Only for masks computed without a context (`TokenMask.contextFree`): with one, the token's
// end lies past the context, in some ancestor's rule. Those masks end their rule early, at
// its last-step references (rule-hash.ts), so here each uncertain token is parsed exactly:
// some turn out accepted, and the end positions are the rule's true ends.
import type { GrammarFsm } from '../fsm/grammar-fsm.js';
import { RowEngine } from '../row-engine.js';
import type { TokenizerInfo } from '../tokenizer/tokenizer-info.js';
import { PrefixWalker, RowParser } from './prefix-walker.js';
import type { TokenMask } from './token-mask.js';

export interface SuffixIndex {
  /** Distinct rests in byte order: info.bytes[offset[i], offset[i] + length[i]). */
  offset: Int32Array;
  length: Int32Array;
  /** Rests of the mask's k-th uncertain token: ids[start[k], start[k + 1]). */
  start: Int32Array;
  ids: Int32Array;
  /** 1 where the k-th uncertain token is accepted after all (within the rule). */
  accepted: Uint8Array;
}

/** Finds, for each uncertain token, where the state's rule can end inside it (Earley, rule alone). */
export function buildSuffixIndex(fsm: GrammarFsm, info: TokenizerInfo, state: number, mask: TokenMask): SuffixIndex {
  const walker = new PrefixWalker(new RowParser(RowEngine.forState(fsm, state, false), 0), info.bytes);
  const { offsets, sorted } = info;
  const rests = new Map<string, number>(); // latin-1 key -> first (offset, length) seen
  const restOffset: number[] = [];
  const restLength: number[] = [];
  const perToken: number[][] = [];
  const accepted = new Uint8Array(mask.uncertain.length);
  const bytes = info.bytes;
  for (let k = 0; k < mask.uncertain.length; k++) {
    const t = sorted[mask.uncertain[k]!]!;
    const start = offsets[t]!;
    const len = offsets[t + 1]! - start;
    if (walker.walk(start, len)) accepted[k] = 1;
    const reached = walker.reached;
    const ids: number[] = [];
    for (let e = 1; e <= Math.min(reached, len - 1); e++) {
      if (walker.endsAt[e] !== 1) continue;
      let key = '';
      for (let i = start + e; i < start + len; i++) key += String.fromCharCode(bytes[i]!);
      let id = rests.get(key);
      if (id === undefined) {
        id = restOffset.length;
        rests.set(key, id);
        restOffset.push(start + e);
        restLength.push(len - e);
      }
      ids.push(id);
    }
    perToken.push(ids);
  }
  // Renumber the rests in byte order.
  const keys = [...rests.keys()].sort();
  const rank = new Int32Array(restOffset.length);
  keys.forEach((key, i) => (rank[rests.get(key)!] = i));
  const offset = new Int32Array(keys.length);
  const length = new Int32Array(keys.length);
  for (let i = 0; i < restOffset.length; i++) {
    offset[rank[i]!] = restOffset[i]!;
    length[rank[i]!] = restLength[i]!;
  }
  const start = new Int32Array(perToken.length + 1);
  perToken.forEach((ids, k) => (start[k + 1] = start[k]! + ids.length));
  const ids = new Int32Array(start[perToken.length]!);
  perToken.forEach((list, k) => list.forEach((id, i) => (ids[start[k]! + i] = rank[id]!)));
  return { offset, length, start, ids, accepted };
}
