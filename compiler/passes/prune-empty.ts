// Empty parts out of a grammar whose language is not empty (passes/empty-language.ts refused
// the empty ones): a reference to a rule that can never finish becomes Nothing, so normal form
// removes the alternative holding it. An optional property whose schema is false, or one that
// requires itself, is thereby dropped instead of left as a dead end the model could walk into
// and never leave (the automata only trim dead ends within one rule).
import { type Expr, type GrammarIR, NOTHING } from '../ir.js';
import { productivity } from './productive.js';

export function pruneEmpty(grammar: GrammarIR): GrammarIR {
  const p = productivity(grammar);
  if (p.rules.every((ok) => ok === 1)) return grammar;
  const empty = (r: number): boolean => p.rules[r] === 0;
  const prune = (e: Expr): Expr => {
    switch (e.kind) {
      case 'ref':
        return empty(e.rule) ? NOTHING : e;
      case 'counted':
        return !empty(e.rule) ? e : e.min === 0 ? { kind: 'bytes', bytes: new Uint8Array(0) } : NOTHING;
      case 'seq':
      case 'choice':
        return { ...e, items: e.items.map(prune) };
      case 'repeat':
        return { ...e, body: prune(e.body) };
      default:
        // Dispatch targets stay: a trigger into an empty rule was refused up front.
        return e;
    }
  };
  return { root: grammar.root, rules: grammar.rules.map((r) => ({ ...r, body: prune(r.body), lookahead: r.lookahead && prune(r.lookahead) })) };
}
