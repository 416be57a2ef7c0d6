// Structural keys of rules, for the cross-grammar mask cache. A state's masks depend on its
// rule's automaton and on every rule reachable from it, and on nothing else (the parent is
// "uncertain"), so the key covers exactly that closure: the same structure gets the same key
// in any grammar that shares the interner (`RuleKeys`). Bottom-up over the strongly connected
// components of the reference graph (Merkle style: a rule's text takes its callees' keys), so
// the work is linear in the grammar: a chain of thousands of rules does not cost the square
// of its length. Inside a recursive component, the rules are renumbered in the order they are
// first reached from the rule being keyed (components above COMPONENT_LIMIT rules are
// numbered by rule index).
//
// Keys are exact: each canonical text is interned to a short id (`k` and a number), so two
// rules share a key only when their texts are equal. The keys live only in this process, with
// the masks they index (artifacts are addressed by the grammar's SHA-256, compiled-grammar.ts);
// SHA-256 of the texts cost a tenth of a compile.
//
// In `cut`, the rule's own last-step references to other rules are left out: the
// context-free masks treat them as the rule's end (row-engine.ts, flat-dfa.ts). Rules chained
// that way, like the property after property of a JSON-schema object, then key alike in two
// schemas that differ only further down the chain.
import { EDGE_EXCLUDE_TOKEN, EDGE_REPEAT, EDGE_RULE, EDGE_TOKEN } from '../fsm/edges.js';
import { ruleEnd, type GrammarFsm } from '../fsm/grammar-fsm.js';
import { components } from '../fsm/components.js';
import { isTail } from '../fsm/queries.js';

/** Canonical texts to short ids: whoever shares masks by key shares one of these. */
export class RuleKeys {
  private readonly ids = new Map<string, string>();

  /** The id of `text` (a new one the first time it is seen). */
  of(text: string): string {
    let id = this.ids.get(text);
    if (id === undefined) {
      id = `k${this.ids.size}`;
      this.ids.set(text, id);
    }
    return id;
  }

  get size(): number {
    return this.ids.size;
  }

  clear(): void {
    this.ids.clear();
  }
}

const COMPONENT_LIMIT = 64;

/** Every rule's key (`full`), and its key with its last-step references cut (`cut`), from one pass over the automaton. */
export function ruleKeys(fsm: GrammarFsm, keys: RuleKeys): { full: string[]; cut: string[] } {
  const numRules = fsm.ruleStart.length;
  // Each rule's own text, with referenced rules as slots; and the rules it refers to.
  const texts: string[][] = [];
  const refs: number[][] = [];
  const tailRefs: boolean[][] = [];
  for (let r = 0; r < numRules; r++) {
    const base = fsm.ruleStart[r]!;
    const parts: string[] = [];
    const slots: number[] = [];
    const tails: boolean[] = [];
    // A counted rule (ir.ts UnitCount) is handed to the Earley matcher where it is called.
    let text = `#${fsm.ruleNullable[r]}${fsm.ruleUnitMax[r]! >= 0 ? `u${fsm.ruleUnitMax[r]}` : ''}`;
    for (let s = base; s < ruleEnd(fsm, r); s++) {
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
  // A rule's text with each slot filled in; texts of the three kinds start apart (`#` for a
  // rule, `rule ` for a rule of a cycle, `cycle ` for a large cycle), ids end before any
  // character a text goes on with.
  const digest = (parts: string[], slot: (k: number) => string): string => {
    let text = '';
    for (let k = 0; k < parts.length; k++) {
      text += parts[k]!;
      if (k < parts.length - 1) text += slot(k);
    }
    return keys.of(text);
  };
  const full = new Array<string>(numRules);
  for (const component of components(refs)) {
    const inside = new Map<number, number>(component.map((r, i) => [r, i]));
    const single = component.length === 1 && !refs[component[0]!]!.includes(component[0]!);
    if (single) {
      const r = component[0]!;
      full[r] = digest(texts[r]!, (k) => `=${full[refs[r]![k]!]}`);
    } else if (component.length <= COMPONENT_LIMIT) {
      // Renumbered from each rule in turn: the same cycle entered elsewhere keys alike.
      for (const r of component) {
        const order = [r];
        const index = new Map<number, number>([[r, 0]]);
        let text = '';
        for (let i = 0; i < order.length; i++) {
          const rule = order[i]!;
          text += `rule ${i}:`;
          text += digest(texts[rule]!, (k) => {
            const target = refs[rule]![k]!;
            if (!inside.has(target)) return `=${full[target]}`;
            if (!index.has(target)) {
              index.set(target, order.length);
              order.push(target);
            }
            return `@${index.get(target)}`;
          });
        }
        full[r] = keys.of(text);
      }
    } else {
      let whole = 'cycle ';
      for (const rule of component) whole += digest(texts[rule]!, (k) => (inside.has(refs[rule]![k]!) ? `@${inside.get(refs[rule]![k]!)}` : `=${full[refs[rule]![k]!]}`));
      const shared = keys.of(whole);
      component.forEach((r, i) => (full[r] = keys.of(`cycle ${shared}:${i}`)));
    }
  }
  const cut = texts.map((parts, r) => digest(parts, (k) => (tailRefs[r]![k] ? '@tail' : `=${full[refs[r]![k]!]}`)));
  return { full, cut };
}
