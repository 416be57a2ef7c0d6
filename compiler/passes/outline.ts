// Outlining: every sub-expression nested MAX_EXPR_DEPTH levels deep inside a rule becomes a
// rule of its own, referenced where it was. The passes, the printer and the automaton builder
// walk expressions recursively; with rule bodies this shallow they cannot overflow the stack,
// whatever the input (a number bound with 300 digits, a property name of 10,000 characters).
// Iterative itself; shared sub-expressions stay shared (one rule each).
import type { Expr, GrammarIR, Rule } from '../ir.js';

export const MAX_EXPR_DEPTH = 128;

export function outlineDeepExpressions(grammar: GrammarIR): GrammarIR {
  const rules: Rule[] = grammar.rules.map((r) => ({ ...r }));
  const done = new Map<Expr, { expr: Expr; height: number }>();
  // Names stay unique: the canonical text (the compile cache's key) refers to rules by name.
  const names = new Set(rules.map((r) => r.name));
  const fresh = (owner: string): string => {
    let k = 1;
    while (names.has(`${owner}_deep_${k}`)) k++;
    names.add(`${owner}_deep_${k}`);
    return `${owner}_deep_${k}`;
  };
  const rewrite = (root: Expr, owner: string): Expr => {
    // Post-order without recursion: a node is rebuilt once its children are.
    const stack: { e: Expr; expanded: boolean }[] = [{ e: root, expanded: false }];
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      if (done.has(top.e)) {
        stack.pop();
        continue;
      }
      const kids = children(top.e);
      if (!top.expanded) {
        top.expanded = true;
        for (const k of kids) if (!done.has(k)) stack.push({ e: k, expanded: false });
        continue;
      }
      stack.pop();
      const built = kids.map((k) => done.get(k)!);
      let height = 1 + built.reduce((h, b) => Math.max(h, b.height), 0);
      let expr: Expr = top.e;
      if (built.some((b, i) => b.expr !== kids[i])) {
        if (top.e.kind === 'seq' || top.e.kind === 'choice') expr = { ...top.e, items: built.map((b) => b.expr) };
        else if (top.e.kind === 'repeat') expr = { ...top.e, body: built[0]!.expr };
      }
      if (height >= MAX_EXPR_DEPTH && top.e !== root) {
        rules.push({ name: fresh(owner), body: expr, lookahead: null, exactLookahead: false });
        expr = { kind: 'ref', rule: rules.length - 1 };
        height = 1;
      }
      done.set(top.e, { expr, height });
    }
    return done.get(root)!.expr;
  };
  for (let i = 0; i < grammar.rules.length; i++) {
    const rule = rules[i]!;
    rule.body = rewrite(rule.body, rule.name);
    if (rule.lookahead) rule.lookahead = rewrite(rule.lookahead, rule.name);
  }
  if (rules.length === grammar.rules.length) return grammar; // nothing was deep
  return { rules, root: grammar.root };
}

function children(e: Expr): Expr[] {
  return e.kind === 'seq' || e.kind === 'choice' ? e.items : e.kind === 'repeat' ? [e.body] : [];
}
