// Repetition expansion. Small bounds stay inline (the FSM builder unrolls them). Large ones
// become `X{m,127}` unrolled | `Repeat(X, m-128, n-128)` followed by exactly 128 copies of X:
// the matcher counts the repeat, and the 128-copy tail (the repeated rule's exact lookahead)
// lets a mask compiler classify tokens inside the counted region ahead of time. Identical
// expansions share one rule, since JSON whitespace `{0,k}` can occur thousands of times.
import type { Expr, GrammarIR, Rule } from '../ir.js';
import { exprText } from '../print.js';

export const UNROLL_LIMIT = 128;

export function expandRepeats(grammar: GrammarIR): GrammarIR {
  const rules: Rule[] = grammar.rules.map((r) => ({ ...r }));
  const memo = new Map<string, number>();
  const names = (r: number): string => `#${r}`;

  const expand = (e: Expr, owner: string): Expr => {
    switch (e.kind) {
      case 'seq':
      case 'choice':
        return { kind: e.kind, items: e.items.map((i) => expand(i, owner)) };
      case 'repeat': {
        const body = expand(e.body, owner);
        const large = e.max === -1 ? e.min > UNROLL_LIMIT : e.max > UNROLL_LIMIT;
        if (!large) return { ...e, body };
        const key = `${exprText(body, names)}{${e.min},${e.max}}`;
        let id = memo.get(key);
        if (id === undefined) {
          id = largeRepeat(rules, body, e.min, e.max, owner);
          memo.set(key, id);
        }
        return { kind: 'ref', rule: id };
      }
      default:
        return e;
    }
  };
  for (let i = 0; i < grammar.rules.length; i++) {
    const rule = rules[i]!;
    rule.body = expand(rule.body, rule.name);
  }
  return { rules, root: grammar.root };
}

function largeRepeat(rules: Rule[], body: Expr, min: number, max: number, owner: string): number {
  const tail: Expr = { kind: 'repeat', body, min: UNROLL_LIMIT, max: UNROLL_LIMIT };
  // The counted rule gets an exact lookahead: after it come exactly 128 more copies.
  rules.push({ name: `${owner}_item`, body, lookahead: tail, exactLookahead: true });
  const item = rules.length - 1;
  const counted: Expr = {
    kind: 'seq',
    items: [{ kind: 'counted', rule: item, min: Math.max(min - UNROLL_LIMIT, 0), max: max === -1 ? -1 : max - UNROLL_LIMIT }, tail],
  };
  const alternatives: Expr[] = [];
  if (min < UNROLL_LIMIT) alternatives.push({ kind: 'repeat', body, min, max: UNROLL_LIMIT - 1 });
  alternatives.push(counted);
  rules.push({
    name: `${owner}_repeat`,
    body: alternatives.length === 1 ? counted : { kind: 'choice', items: alternatives },
    lookahead: null,
    exactLookahead: false,
  });
  return rules.length - 1;
}
