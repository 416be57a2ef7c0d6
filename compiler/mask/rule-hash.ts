// Structural hashes of rules, for the cross-grammar mask cache. A state's masks depend on its
// rule's automaton and on every rule reachable from it, and on nothing else (the parent is
// "uncertain"), so the hash covers exactly that closure: the same structure hashes the same
// in any grammar. Bottom-up over the strongly connected components of the reference graph
// (Merkle style: a rule's hash takes its callees' hashes), so the work is linear in the
// grammar: a chain of thousands of rules does not cost the square of its length. Inside a
// recursive component, the rules are renumbered in the order they are first reached from the
// rule being hashed (components above COMPONENT_LIMIT rules are numbered by rule index).
//
// With `cutTails`, the rule's own last-step references to other rules are left out: the
// context-free masks treat them as the rule's end (matcher.ts, flat-dfa.ts). Rules chained
// that way, like the property after property of a JSON-schema object, then hash alike in two
// schemas that differ only further down the chain.
import { createHash } from 'node:crypto';
import { EDGE_EXCLUDE_TOKEN, EDGE_REPEAT, EDGE_RULE, EDGE_TOKEN } from '../fsm/edges.js';
import type { GrammarFsm } from '../fsm/grammar-fsm.js';
import { isTail } from '../matcher.js';

const COMPONENT_LIMIT = 64;

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
    const hash = createHash('sha256');
    for (let k = 0; k < parts.length; k++) {
      hash.update(parts[k]!);
      if (k < parts.length - 1) hash.update(slot(k));
    }
    return hash.digest('hex').slice(0, 32);
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
        const hash = createHash('sha256');
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
        full[r] = hash.digest('hex').slice(0, 32);
      }
    } else {
      const whole = createHash('sha256');
      for (const rule of component) whole.update(digest(texts[rule]!, (k) => (inside.has(refs[rule]![k]!) ? `@${inside.get(refs[rule]![k]!)}` : `=${full[refs[rule]![k]!]}`)));
      const shared = whole.digest('hex');
      component.forEach((r, i) => (full[r] = createHash('sha256').update(`${shared}:${i}`).digest('hex').slice(0, 32)));
    }
  }
  if (!cutTails) return full;
  return texts.map((parts, r) => digest(parts, (k) => (tailRefs[r]![k] ? '@tail' : `=${full[refs[r]![k]!]}`)));
}

/** Strongly connected components of the reference graph, callees' components first
 * (Tarjan's algorithm, without recursion). */
function components(refs: number[][]): number[][] {
  const n = refs.length;
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const stack: number[] = [];
  const out: number[][] = [];
  let counter = 0;
  for (let root = 0; root < n; root++) {
    if (index[root] !== -1) continue;
    const work: [number, number][] = [[root, 0]];
    index[root] = low[root] = counter++;
    stack.push(root);
    onStack[root] = 1;
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      const [v, k] = top;
      if (k < refs[v]!.length) {
        top[1]++;
        const w = refs[v]![k]!;
        if (index[w] === -1) {
          index[w] = low[w] = counter++;
          stack.push(w);
          onStack[w] = 1;
          work.push([w, 0]);
        } else if (onStack[w] === 1) low[v] = Math.min(low[v]!, index[w]!);
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1]![0];
        low[parent] = Math.min(low[parent]!, low[v]!);
      }
      if (low[v] === index[v]) {
        const component: number[] = [];
        for (;;) {
          const w = stack.pop()!;
          onStack[w] = 0;
          component.push(w);
          if (w === v) break;
        }
        out.push(component.sort((a, b) => a - b));
      }
    }
  }
  return out;
}
