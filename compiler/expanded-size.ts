// What a grammar expands to, estimated arithmetically on the IR before anything is built.
// Large repetitions are never unrolled (passes/expand-repeats.ts counts them), so a few
// characters of input (`a{1000000}`, `maxItems: 1000000`) would otherwise describe a language
// of millions of positions: forced output as long (jump-forward), or, nested in small repeats
// that are unrolled, automata that exhaust memory before the builder's own count stops them.
// The unit is the automaton state as the builder counts them: one per byte of a literal, one
// per character class, rule reference or token set, one start state per rule; a repetition
// counts its body once per copy written out. Rules are counted once, wherever referenced.
import type { Expr, GrammarIR } from './ir.js';
import { GrammarError, type GrammarErrorLocation } from './errors.js';
import { MAX_AUTOMATON_STATES } from './limits.js';

/** States of `e` with every repetition written out (at most 2^53, never Infinity or NaN). */
export function expandedStates(e: Expr): number {
  switch (e.kind) {
    case 'bytes':
      return e.bytes.length;
    case 'class':
    case 'byteRange':
    case 'ref':
    case 'token':
    case 'excludeToken':
      return 1;
    case 'seq':
    case 'choice': {
      let sum = 0;
      for (const item of e.items) sum = capped(sum + expandedStates(item));
      return sum;
    }
    case 'repeat':
      return capped(copies(e.min, e.max) * expandedStates(e.body));
    case 'counted':
      return copies(e.min, e.max);
    case 'automaton':
      return e.units ? capped(e.states + e.units.max) : e.states; // a counted maximum, as if a state per unit
    case 'tagDispatch':
      return e.tags.reduce((sum, t) => sum + t.trigger.length, 1) + e.excludes.reduce((sum, x) => sum + x.length, 0);
    case 'tokenDispatch':
      return e.tags.length + 1;
  }
}

/** States of an automaton holding only `body{min,max}` written out (max -1: unbounded). */
export function repeatStates(body: Expr, min: number, max: number): number {
  return capped(1 + copies(min, max) * expandedStates(body));
}

/** The end of an error message about `states` over the limit, naming it. */
export function beyondExpansionLimit(states: number): string {
  return `would expand to ${states} automaton states with every repetition written out, more than ${MAX_AUTOMATON_STATES} (the limit on what a grammar may expand to)`;
}

/** A GrammarError unless the whole grammar, every rule counted once, stays within the limit.
 * Front ends check each repetition where they read it, with its place; this catches what only
 * adds up (many repetitions, a whitespace bound used in every position). */
export function checkExpandedSize(grammar: GrammarIR): void {
  let total = 0;
  let largest = 0;
  let largestRule = 0;
  grammar.rules.forEach((rule, i) => {
    const states = capped(1 + expandedStates(rule.body));
    total = capped(total + states);
    if (states > largest) [largest, largestRule] = [states, i];
  });
  if (total <= MAX_AUTOMATON_STATES) return;
  const rule = grammar.rules[largestRule]!;
  const where: GrammarErrorLocation = rule.origin?.location ?? { kind: 'none' };
  throw GrammarError.located(where, `the grammar ${beyondExpansionLimit(total)}; the largest part is the rule '${rule.origin?.name ?? rule.name}' (${largest} states)`);
}

/** How many copies of its body a repetition writes out: its upper bound, or its lower bound
 * and one more to loop on when it has none (`*` is one copy, `+` two). */
function copies(min: number, max: number): number {
  return max === -1 ? min + 1 : max;
}

function capped(n: number): number {
  return Math.min(n, Number.MAX_SAFE_INTEGER);
}
