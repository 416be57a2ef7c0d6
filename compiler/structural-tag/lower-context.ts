// What a node family's lowering (lower-*.ts) needs from the lowerer: the builder, lowering of
// child nodes and rules. A leaf module: lower.ts implements it and dispatches to those files,
// which only see this interface, so the front end has no import cycle.
import type { Expr, GrammarBuilder, RuleOrigin } from '../ir.js';
import type { StNode } from './types.js';

export interface LowerContext {
  readonly builder: GrammarBuilder;
  /** The expression matching `node`. */
  lower(node: StNode): Expr;
  /** A rule matching `node`; nodes with the same content share one rule. */
  ruleOf(node: StNode, name?: string): number;
  /** A fresh rule with this body (dispatch targets must be rules); `at` is the node it stands for. */
  rule(name: string, body: Expr, at?: string): number;
}

export function originOf(at: string): RuleOrigin {
  return { location: { kind: 'pointer', pointer: at } };
}
