// Context expansion for the mask compiler (GRAMMAR.md section 5.1): what provably follows a
// rule. A rule with an exact lookahead occurs once, so what follows it is the lookahead and
// then whatever follows its parent; chaining parents with exact lookaheads gives a longer
// context, and reaching the root when nothing refers to it closes the context (nothing at all
// can follow). A rule without a lookahead that occurs once, in sequences and choices, is
// followed by the rest of its parent's body there and then by what follows the parent. Each
// rule's context becomes an extra rule of the packed automaton, which no
// matcher reaches; the mask compiler continues a token into it when the rule ends inside it,
// turning many "uncertain" tokens into accepted or rejected ones.
import { EMPTY, type Expr, forEachRef, type GrammarIR } from '../ir.js';

const MAX_CHAIN = 8;

export interface ContextRules {
  /** The grammar with one `<rule>__context` rule appended per rule that has a context. */
  ir: GrammarIR;
  /** Per original rule: its context rule, or -1. */
  context: Int32Array;
  /** Per original rule: 1 when nothing can follow the end of its context. */
  closed: Uint8Array;
}

export function addContextRules(grammar: GrammarIR): ContextRules {
  const n = grammar.rules.length;
  // The parent of a rule with an exact lookahead: the rule whose body holds its one occurrence.
  const parent = new Int32Array(n).fill(-1);
  let rootReferenced = false;
  grammar.rules.forEach((rule, r) => {
    const visit = (child: number): void => {
      if (child === grammar.root) rootReferenced = true;
      parent[child] = parent[child] === -1 ? r : -2;
    };
    forEachRef(rule.body, visit);
    if (rule.lookahead) forEachRef(rule.lookahead, visit);
  });
  // A rule without a lookahead that occurs once in the rule bodies (lookaheads are not
  // matched), through sequences and choices only, is followed by the rest of its parent's
  // body after that occurrence and then by what follows the parent.
  const bodyParent = new Int32Array(n).fill(-1);
  grammar.rules.forEach((rule, r) => forEachRef(rule.body, (child) => (bodyParent[child] = bodyParent[child] === -1 ? r : -2)));
  const rest: (Expr[] | null)[] = grammar.rules.map((rule, r) =>
    r === grammar.root || rule.lookahead || bodyParent[r]! < 0 ? null : followingIn(grammar.rules[bodyParent[r]!]!.body, r, []),
  );
  const rootClosed = !rootReferenced;
  const rules = [...grammar.rules];
  const context = new Int32Array(n).fill(-1);
  const closed = new Uint8Array(n);
  if (rootClosed) closed[grammar.root] = 1;
  for (let r = 0; r < n; r++) {
    const parts: Expr[] = [];
    let at = r;
    let isClosed = false;
    for (let depth = 0; depth < MAX_CHAIN; depth++) {
      const rule = grammar.rules[at]!;
      const after = rest[at];
      if (after) {
        parts.push(...after);
        at = bodyParent[at]!;
      } else if (rule.lookahead && rule.exactLookahead && parent[at]! >= 0) {
        parts.push(rule.lookahead);
        at = parent[at]!;
      } else break;
      if (at === grammar.root) {
        isClosed = rootClosed;
        break;
      }
    }
    if (parts.length === 0 && !isClosed) continue;
    context[r] = rules.length;
    closed[r] = isClosed ? 1 : 0;
    const body: Expr = parts.length === 0 ? EMPTY : parts.length === 1 ? parts[0]! : { kind: 'seq', items: parts };
    rules.push({ name: `${grammar.rules[r]!.name}__context`, body, lookahead: null, exactLookahead: false });
  }
  return { ir: { rules, root: grammar.root }, context, closed };
}

/**
 * What follows the one reference to `target` inside `e`, then `then`; null when the reference
 * sits in a repeat or a dispatch (what follows it there varies).
 */
function followingIn(e: Expr, target: number, then: Expr[]): Expr[] | null {
  switch (e.kind) {
    case 'ref':
      return e.rule === target ? then : null;
    case 'seq':
      for (let i = 0; i < e.items.length; i++) {
        const found = followingIn(e.items[i]!, target, [...e.items.slice(i + 1), ...then]);
        if (found) return found;
      }
      return null;
    case 'choice':
      for (const item of e.items) {
        const found = followingIn(item, target, then);
        if (found) return found;
      }
      return null;
    default:
      return null;
  }
}
