// Lookahead derivation ("context expansion"). A rule gets the rest of its parent's sequence as
// an exact lookahead only when that is provably everything that can follow it: the rule is not
// the root, not a dispatch or repeat target, and occurs exactly once, as a non-last element of
// a top-level sequence. Any other occurrence (inside a repeat, a nested choice, last in a
// sequence) makes the context depend on the parent, so no lookahead is derived. A lookahead
// written by the user is marked exact under the same conditions.
import { type Expr, type GrammarIR, forEachRef } from '../ir.js';

export function deriveLookaheads(grammar: GrammarIR): GrammarIR {
  const n = grammar.rules.length;
  const occurrences = new Array<number>(n).fill(0);
  const rest: (Expr | null)[] = new Array<Expr | null>(n).fill(null);
  const unsafe = new Array<boolean>(n).fill(false);
  unsafe[grammar.root] = true;
  const markAll = (e: Expr): void => forEachRef(e, (r) => (unsafe[r] = true));

  for (const rule of grammar.rules) {
    if (rule.lookahead) markAll(rule.lookahead);
    const body = rule.body;
    const alternatives = body.kind === 'choice' ? body.items : [body];
    for (const alt of alternatives) {
      const items = alt.kind === 'seq' ? alt.items : [alt];
      items.forEach((item, i) => {
        if (item.kind === 'ref' && i < items.length - 1) {
          occurrences[item.rule]!++;
          rest[item.rule] = items.length - i - 1 === 1 ? items[i + 1]! : { kind: 'seq', items: items.slice(i + 1) };
        } else markAll(item);
      });
    }
  }
  return {
    root: grammar.root,
    rules: grammar.rules.map((rule, r) => {
      const sound = !unsafe[r] && occurrences[r] === 1;
      if (rule.lookahead) return { ...rule, exactLookahead: rule.exactLookahead || sound };
      return sound ? { ...rule, lookahead: rest[r]!, exactLookahead: true } : rule;
    }),
  };
}
