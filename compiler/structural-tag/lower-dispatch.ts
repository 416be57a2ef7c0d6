// dispatch and token_dispatch: free text (or free tokens) in which each rule's pattern hands
// over to the rule's format; with `loop`, free text resumes after it. Excludes can never be
// produced by the free text, so they end the node (the element after it must match them).
import type { Expr } from '../ir.js';
import type { LowerContext } from './lower-context.js';
import type { StNode } from './types.js';

type Of<T extends StNode['type']> = Extract<StNode, { type: T }>;

const utf8 = new TextEncoder();

export function lowerDispatch(lw: LowerContext, node: Of<'dispatch'>): Expr {
  return {
    kind: 'tagDispatch',
    tags: node.rules.map((r) => ({ trigger: utf8.encode(r.pattern), rule: lw.ruleOf(r.format, 'dispatch_rule') })),
    loop: node.loop,
    excludes: node.excludes.map((s) => utf8.encode(s)),
  };
}

export function lowerTokenDispatch(lw: LowerContext, node: Of<'token_dispatch'>): Expr {
  return {
    kind: 'tokenDispatch',
    tags: node.rules.map((r) => ({ token: r.token, rule: lw.ruleOf(r.format, 'token_dispatch_rule') })),
    loop: node.loop,
    excludes: node.excludeTokens,
  };
}
