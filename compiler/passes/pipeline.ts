// The pass order (see GRAMMAR.md §2.3): empty parts pruned, normal form, inlining, repetition expansion, normal
// form again, long choices of literals factored into tries, dead-rule removal, lookahead
// derivation. Nullable analysis and the repeat-min relaxation for nullable bodies run on the
// automata (fsm/grammar-fsm.ts), where the matcher's view of emptiness is defined.
import type { GrammarIR } from '../ir.js';
import { removeDeadRules } from './dead-rules.js';
import { expandRepeats } from './expand-repeats.js';
import { factorLiteralChoices } from './factor-literals.js';
import { inlineRules } from './inline.js';
import { deriveLookaheads } from './lookahead.js';
import { normalize } from './normalize.js';
import { pruneEmpty } from './prune-empty.js';

export function optimize(grammar: GrammarIR): GrammarIR {
  let g = normalize(pruneEmpty(grammar));
  g = removeDeadRules(g);
  g = inlineRules(g);
  g = factorLiteralChoices(normalize(expandRepeats(g)));
  g = removeDeadRules(g);
  return deriveLookaheads(g);
}
