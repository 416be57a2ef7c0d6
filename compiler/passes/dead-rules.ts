// Dead-rule removal: keeps the rules reachable from the root (through references, counted
// repeats, dispatch targets and lookaheads) and renumbers them in order of first reach.
import { type GrammarIR, forEachRef, mapRefs } from '../ir.js';

export function removeDeadRules(grammar: GrammarIR): GrammarIR {
  const order = [grammar.root];
  const index = new Map([[grammar.root, 0]]);
  for (let i = 0; i < order.length; i++) {
    const rule = grammar.rules[order[i]!]!;
    const visit = (r: number): void => {
      if (!index.has(r)) {
        index.set(r, order.length);
        order.push(r);
      }
    };
    forEachRef(rule.body, visit);
    if (rule.lookahead) forEachRef(rule.lookahead, visit);
  }
  const map = (r: number): number => index.get(r)!;
  return {
    root: 0,
    rules: order.map((r) => {
      const rule = grammar.rules[r]!;
      return { ...rule, body: mapRefs(rule.body, map), lookahead: rule.lookahead && mapRefs(rule.lookahead, map) };
    }),
  };
}
