// Rule inlining: a reference to a small rule that refers to nothing replaces itself with the
// rule's body. The referenced rule's automaton then lives inside its parent's, which saves
// the matcher a predict/complete round trip per use (string escapes, digits, whitespace).
// The limit admits the bounded whitespace of the JSON grammars (`("\r"? "\n")? [ \t]{0,20}`,
// cost 62): as a rule of its own, every token that crosses from whitespace into the next
// element would be decided at run time (a 60x slower mask for the built-in JSON grammar).
import type { Expr, GrammarIR } from '../ir.js';

const MAX_INLINE_SIZE = 64;

/** Leaf count with repeats multiplied, or Infinity when the body is not inlinable. */
function inlineCost(e: Expr): number {
  switch (e.kind) {
    case 'bytes':
      return Math.max(1, e.bytes.length);
    case 'class':
      return 1 + (e.ranges.length >> 1);
    case 'byteRange':
      return 1;
    case 'automaton':
      return e.units ? Infinity : e.edges.length >> 2;
    case 'seq':
    case 'choice':
      return e.items.reduce((n, i) => n + inlineCost(i), 0);
    case 'repeat':
      return inlineCost(e.body) * Math.max(1, e.max === -1 ? e.min + 1 : e.max);
    default:
      return Infinity; // references, counted repeats, token edges and dispatch stay rules (so do counted automata)
  }
}

export function inlineRules(grammar: GrammarIR): GrammarIR {
  // A rule with a lookahead keeps it: the mask compiler needs it where the rule is used; an
  // array of unique items stays a rule, by which the matcher knows it.
  const inlinable = grammar.rules.map((r, i) => i !== grammar.root && r.lookahead === null && !r.uniqueItems && inlineCost(r.body) <= MAX_INLINE_SIZE);
  const replace = (e: Expr): Expr => {
    switch (e.kind) {
      case 'ref':
        return inlinable[e.rule] ? grammar.rules[e.rule]!.body : e;
      case 'seq':
      case 'choice':
        return { kind: e.kind, items: e.items.map(replace) };
      case 'repeat':
        return { ...e, body: replace(e.body) };
      default:
        return e;
    }
  };
  return {
    root: grammar.root,
    rules: grammar.rules.map((r) => ({ ...r, body: replace(r.body), lookahead: r.lookahead && replace(r.lookahead) })),
  };
}
