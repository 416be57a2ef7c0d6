// Structural hashes of rules, for the cross-grammar mask cache. A state's masks depend on its
// rule's automaton and on every rule reachable from it, and on nothing else (the parent is
// "uncertain"), so the hash covers exactly that closure, with rules renumbered in the order
// they are first reached: the same structure hashes the same in any grammar.
//
// With `cutTails`, the rule's own last-step references to other rules are left out: the
// context-free masks treat them as the rule's end (matcher.ts, flat-dfa.ts). Rules chained
// that way, like the property after property of a JSON-schema object, then hash alike in two
// schemas that differ only further down the chain.
import { createHash } from 'node:crypto';
import { EDGE_EXCLUDE_TOKEN, EDGE_REPEAT, EDGE_RULE, EDGE_TOKEN } from '../fsm/edges.js';
import type { GrammarFsm } from '../fsm/grammar-fsm.js';
import { isTail } from '../matcher.js';

export function ruleHashes(fsm: GrammarFsm, cutTails = false): string[] {
  const numRules = fsm.ruleStart.length;
  const numStates = fsm.stateRule.length;
  const ruleEnd = (r: number): number => (r + 1 < numRules ? fsm.ruleStart[r + 1]! : numStates);
  // Each rule's own text, with referenced rules as slots; and the rules it refers to.
  const texts: string[][] = [];
  const refs: number[][] = [];
  const tailRefs: boolean[][] = [];
  for (let r = 0; r < numRules; r++) {
    const base = fsm.ruleStart[r]!;
    const parts: string[] = [];
    const slots: number[] = [];
    const tails: boolean[] = [];
    let text = '';
    for (let s = base; s < ruleEnd(r); s++) {
      text += `|${fsm.stateFinal[s]}`;
      for (let e = fsm.edgeStart[s]!; e < fsm.edgeStart[s + 1]!; e++) {
        const kind = fsm.edgeKind[e]!;
        text += `,${kind}>${fsm.edgeTarget[e]! - base}`;
        if (kind === EDGE_RULE) {
          parts.push(text);
          slots.push(fsm.edgeAux[e]!);
          tails.push(fsm.edgeAux[e] !== r && isTail(fsm, fsm.edgeTarget[e]!));
          text = '';
        } else if (kind === EDGE_REPEAT) {
          const rep = fsm.edgeAux[e]!;
          text += `:${fsm.repMin[rep]}:${fsm.repMax[rep]}:${fsm.repLoop[rep]! - base}`;
          parts.push(text);
          slots.push(fsm.repRule[rep]!);
          tails.push(false);
          text = '';
        } else if (kind === EDGE_TOKEN || kind === EDGE_EXCLUDE_TOKEN) {
          const set = fsm.edgeAux[e]!;
          text += `:${fsm.tokenIds.subarray(fsm.tokenSetStart[set]!, fsm.tokenSetStart[set + 1]!).join('.')}`;
        } else {
          text += `:${fsm.edgeLo[e]}-${fsm.edgeHi[e]}`;
        }
      }
    }
    parts.push(text);
    texts.push(parts);
    refs.push(slots);
    tailRefs.push(tails);
  }
  const out: string[] = [];
  for (let r = 0; r < numRules; r++) {
    const order = [r];
    const index = new Map<number, number>([[r, 0]]);
    const hash = createHash('sha256');
    for (let i = 0; i < order.length; i++) {
      const rule = order[i]!;
      const parts = texts[rule]!;
      const slots = refs[rule]!;
      hash.update(`#${fsm.ruleNullable[rule]}`);
      for (let k = 0; k < parts.length; k++) {
        hash.update(parts[k]!);
        if (k < slots.length) {
          if (cutTails && i === 0 && tailRefs[rule]![k]) {
            hash.update('@tail');
            continue;
          }
          const target = slots[k]!;
          if (!index.has(target)) {
            index.set(target, order.length);
            order.push(target);
          }
          hash.update(`@${index.get(target)}`);
        }
      }
    }
    out.push(hash.digest('hex').slice(0, 32));
  }
  return out;
}
