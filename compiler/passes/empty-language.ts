// Refuses a grammar whose language is empty, naming the place that makes it so. A client
// that sends `"schema": false`, `minimum > maximum` or a schema that requires itself would
// otherwise get a grammar that allows nothing: the model is left with no token but the stop
// token, and the answer is an empty string. Every front end calls this on what it built.
//
// The culprit is found by walking down from the root through what is empty: the first empty
// item of a sequence, a branch of a choice (all are empty), a repeat's body, a referenced
// rule. The walk ends at an expression a front end marked with its cause (ir.ts `nothing`),
// at a leaf that matches nothing, or back at a rule already on the path: a recursion with no
// way out. It names the innermost place with a known origin on the way.
import { GrammarError } from '../errors.js';
import type { Expr, GrammarIR, RuleOrigin } from '../ir.js';
import { productivity, type Productivity } from './productive.js';

/** Throws a GrammarError when `grammar` matches no string at all. */
export function checkNonEmpty(grammar: GrammarIR): void {
  const p = productivity(grammar);
  if (p.rules[grammar.root] === 0) throw blame(grammar, p, grammar.root);
  // A trigger fires in free text without looking ahead: one that leads into a rule that can
  // never finish would trap the output, so it is refused like an empty grammar.
  for (const r of reachableRules(grammar)) {
    for (const e of dispatchesIn(grammar.rules[r]!.body)) {
      for (const tag of e.tags) if (p.rules[tag.rule] === 0) throw blame(grammar, p, tag.rule);
    }
  }
}

function blame(grammar: GrammarIR, p: Productivity, start: number): GrammarError {
  const onPath = new Set<number>([start]);
  let where: RuleOrigin | undefined = grammar.rules[start]!.origin;
  let e: Expr = grammar.rules[start]!.body;
  const fail = (message: string): GrammarError => GrammarError.located(where?.location ?? { kind: 'none' }, message);
  for (;;) {
    switch (e.kind) {
      case 'choice':
      case 'seq': {
        if (e.kind === 'choice' && e.items.length === 0) {
          if (e.cause) return GrammarError.located(e.cause.location, e.cause.message);
          return fail(where?.name ? `the rule '${where.name}' matches nothing` : 'no value can match here');
        }
        const empty = e.items.filter((item) => !p.expr(item));
        // A cause marked by the front end is the most precise name for the problem.
        e = empty.find((item) => item.kind === 'choice' && item.items.length === 0 && item.cause) ?? empty[0]!;
        continue;
      }
      case 'repeat':
        e = e.body;
        continue;
      case 'ref':
      case 'counted': {
        const rule = grammar.rules[e.rule]!;
        if (onPath.has(e.rule)) {
          return fail(
            where?.name
              ? `the rule '${where.name}' can never finish: every way through it needs '${rule.origin?.name ?? rule.name}' again (a recursion with no way out)`
              : 'no value can ever be complete here: it must contain itself again at every level (a recursion with no way out)',
          );
        }
        onPath.add(e.rule);
        if (rule.origin) where = rule.origin;
        e = rule.body;
        continue;
      }
      case 'class':
        return fail('a character class here matches no character');
      case 'token':
        return fail('a token set here is empty');
      default:
        return fail('no value can match here');
    }
  }
}

function reachableRules(grammar: GrammarIR): number[] {
  const seen = new Uint8Array(grammar.rules.length);
  const order = [grammar.root];
  seen[grammar.root] = 1;
  for (let i = 0; i < order.length; i++) {
    for (const e of exprsIn(grammar.rules[order[i]!]!.body)) {
      const targets = e.kind === 'ref' || e.kind === 'counted' ? [e.rule] : e.kind === 'tagDispatch' || e.kind === 'tokenDispatch' ? e.tags.map((t) => t.rule) : [];
      for (const r of targets) {
        if (seen[r] === 0) {
          seen[r] = 1;
          order.push(r);
        }
      }
    }
  }
  return order;
}

function dispatchesIn(body: Expr): Extract<Expr, { kind: 'tagDispatch' | 'tokenDispatch' }>[] {
  return exprsIn(body).filter((e): e is Extract<Expr, { kind: 'tagDispatch' | 'tokenDispatch' }> => e.kind === 'tagDispatch' || e.kind === 'tokenDispatch');
}

/** Every distinct sub-expression, without recursion. */
function exprsIn(body: Expr): Expr[] {
  const out: Expr[] = [];
  const seen = new Set<Expr>();
  const stack = [body];
  while (stack.length > 0) {
    const e = stack.pop()!;
    if (seen.has(e)) continue;
    seen.add(e);
    out.push(e);
    if (e.kind === 'seq' || e.kind === 'choice') for (const item of e.items) stack.push(item);
    else if (e.kind === 'repeat') stack.push(e.body);
  }
  return out;
}
