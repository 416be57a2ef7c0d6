// Productivity: which rules can derive at least one finite string (the classic fixpoint for
// context-free grammars). A rule that cannot is empty: it requires itself without a way out
// (`{"$ref": "#"}` required), or everything it needs matches nothing. Linear time: every
// distinct expression becomes one node that turns productive when one child does (choice),
// when all of its children have (sequence, repeat with a minimum), or when its rule has
// (reference); leaves are decided at once. Iterative throughout, so deep expressions cannot
// overflow, and an expression object used in many places is one node.
import type { Expr, GrammarIR } from '../ir.js';

const OR = 0;
const AND = 1;
const REF = 2;

export interface Productivity {
  /** Per rule, 1 when it derives some finite string. */
  rules: Uint8Array;
  /** Whether an expression of the grammar (by identity) derives some finite string. */
  expr(e: Expr): boolean;
}

export function productivity(grammar: GrammarIR): Productivity {
  const n = grammar.rules.length;
  const kind: number[] = [];
  const need: number[] = []; // AND: children still unproductive
  const parents: number[][] = []; // node ids, or -(rule + 1) for a rule's body
  const done: number[] = []; // 1 when productive
  const nodeOf = new Map<Expr, number>();
  const refsTo: number[][] = Array.from({ length: n }, () => []);
  const ready: number[] = [];
  const stack: [Expr, number][] = [];

  const node = (e: Expr, k: number, count: number, up: number): number => {
    const id = kind.length;
    kind.push(k);
    need.push(count);
    parents.push([up]);
    done.push(0);
    nodeOf.set(e, id);
    if (k === AND && count === 0) ready.push(id);
    return id;
  };
  const visit = (e: Expr, up: number): void => {
    const known = nodeOf.get(e);
    if (known !== undefined) {
      parents[known]!.push(up);
      return;
    }
    switch (e.kind) {
      case 'seq':
      case 'choice': {
        const id = node(e, e.kind === 'seq' ? AND : OR, e.kind === 'seq' ? e.items.length : 1, up);
        // A sequence counts each occurrence of a child (seq(x, x) needs x twice over).
        for (const item of e.items) stack.push([item, id]);
        return;
      }
      case 'repeat': {
        const free = e.min === 0 || e.max === 0;
        const id = node(e, AND, free ? 0 : 1, up);
        if (!free) stack.push([e.body, id]);
        return;
      }
      case 'ref':
      case 'counted': {
        const free = e.kind === 'counted' && e.min === 0;
        const id = node(e, free ? AND : REF, 0, up);
        if (!free) refsTo[e.rule]!.push(id);
        return;
      }
      case 'class':
      case 'token': {
        const empty = e.kind === 'class' ? e.ranges.length === 0 : e.ids.length === 0;
        node(e, empty ? OR : AND, empty ? 1 : 0, up);
        return;
      }
      default:
        // Literals, byte ranges, excluded tokens and dispatches (free text may end at once).
        node(e, AND, 0, up);
    }
  };
  grammar.rules.forEach((rule, r) => {
    stack.push([rule.body, -(r + 1)]);
    while (stack.length > 0) {
      const [e, up] = stack.pop()!;
      visit(e, up);
    }
  });

  const rules = new Uint8Array(n);
  const mark = (id: number): void => {
    if (done[id] === 1) return;
    done[id] = 1;
    ready.push(id);
  };
  for (const id of ready) done[id] = 1;
  while (ready.length > 0) {
    const id = ready.pop()!;
    for (const up of parents[id]!) {
      if (up < 0) {
        const r = -up - 1;
        if (rules[r] === 0) {
          rules[r] = 1;
          for (const ref of refsTo[r]!) mark(ref);
        }
      } else if (kind[up] === OR) mark(up);
      else if (kind[up] === AND && --need[up]! === 0) mark(up);
    }
  }
  return { rules, expr: (e) => done[nodeOf.get(e) ?? -1] === 1 };
}

/** Whether an expression without rule references matches nothing (a regex, a literal set). */
export function exprIsEmpty(e: Expr): boolean {
  return !productivity({ rules: [{ name: 'e', body: e, lookahead: null, exactLookahead: false }], root: 0 }).rules[0];
}
