// Structural hashes of rules, for the cross-grammar mask cache. A state's masks depend on its
// rule's automaton and on every rule reachable from it, and on nothing else (the parent is
// "uncertain"), so the hash covers exactly that closure: the same structure hashes the same
// in any grammar. Bottom-up over the strongly connected components of the reference graph
// (Merkle style: a rule's hash takes its callees' hashes), so the work is linear in the
// grammar: a chain of thousands of rules does not cost the square of its length. Inside a
// recursive component, the rules are renumbered in the order they are first reached from the
// rule being hashed (components above COMPONENT_LIMIT rules are numbered by rule index).
//
// In `cut`, the rule's own last-step references to other rules are left out: the
// context-free masks treat them as the rule's end (row-engine.ts, flat-dfa.ts). Rules chained
// that way, like the property after property of a JSON-schema object, then hash alike in two
// schemas that differ only further down the chain.
import { EDGE_EXCLUDE_TOKEN, EDGE_REPEAT, EDGE_RULE, EDGE_TOKEN } from '../fsm/edges.js';
import type { GrammarFsm } from '../fsm/grammar-fsm.js';
import { components } from '../fsm/components.js';
import { isTail } from '../fsm/queries.js';
import { Sha256 } from '../sha256.js';

const COMPONENT_LIMIT = 64;

/** Every rule's hash (`full`), and its hash with its last-step references cut (`cut`), from one pass over the automaton. */
export function ruleHashes(fsm: GrammarFsm): { full: string[]; cut: string[] } {
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
    let text = `#${fsm.ruleNullable[r]}`;
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
  const digest = (parts: string[], slot: (k: number) => string): string => {
    const hash = new Sha256();
    for (let k = 0; k < parts.length; k++) {
      hash.update(parts[k]!);
      if (k < parts.length - 1) hash.update(slot(k));
    }
    return hash.digestHex().slice(0, 32);
  };
  const full = new Array<string>(numRules);
  for (const component of components(refs)) {
    const inside = new Map<number, number>(component.map((r, i) => [r, i]));
    const single = component.length === 1 && !refs[component[0]!]!.includes(component[0]!);
    if (single) {
      const r = component[0]!;
      full[r] = digest(texts[r]!, (k) => `=${full[refs[r]![k]!]}`);
    } else if (component.length <= COMPONENT_LIMIT) {
      // Renumbered from each rule in turn: the same cycle entered elsewhere hashes alike.
      for (const r of component) {
        const order = [r];
        const index = new Map<number, number>([[r, 0]]);
        const hash = new Sha256();
        for (let i = 0; i < order.length; i++) {
          const rule = order[i]!;
          hash.update(`rule ${i}:`);
          hash.update(
            digest(texts[rule]!, (k) => {
              const target = refs[rule]![k]!;
              if (!inside.has(target)) return `=${full[target]}`;
              if (!index.has(target)) {
                index.set(target, order.length);
                order.push(target);
              }
              return `@${index.get(target)}`;
            }),
          );
        }
        full[r] = hash.digestHex().slice(0, 32);
      }
    } else {
      const whole = new Sha256();
      for (const rule of component) whole.update(digest(texts[rule]!, (k) => (inside.has(refs[rule]![k]!) ? `@${inside.get(refs[rule]![k]!)}` : `=${full[refs[rule]![k]!]}`)));
      const shared = whole.digestHex();
      component.forEach((r, i) => (full[r] = new Sha256().update(`${shared}:${i}`).digestHex().slice(0, 32)));
    }
  }
  const cut = texts.map((parts, r) => digest(parts, (k) => (tailRefs[r]![k] ? '@tail' : `=${full[refs[r]![k]!]}`)));
  return { full, cut };
}
