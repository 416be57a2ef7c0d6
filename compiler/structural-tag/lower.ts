// Lowers a validated structural tag (types.ts) into the grammar IR. Each node family has its
// own file; this one owns the builder, the sharing of identical nodes, and the dispatch on
// the node type. Lowering is context-free: validation already put each enclosing tag's end
// into the excludes of the unlimited content inside it.
import { GrammarBuilder, type Expr, type GrammarIR, ref } from '../ir.js';
import { lowerAnyText, lowerEmbedded, lowerTokenNode } from './lower-basic.js';
import { lowerCombinator, lowerTag } from './lower-combinators.js';
import { lowerDispatch, lowerTokenDispatch } from './lower-dispatch.js';
import { lowerTagsWithSeparator, lowerTokenTriggeredTags, lowerTriggeredTags } from './lower-triggered.js';
import { type LowerContext, originOf } from './lower-context.js';
import type { StNode, TagNode } from './types.js';

export class Lowerer implements LowerContext {
  readonly builder = new GrammarBuilder();
  private readonly shared = new Map<string, number>();

  /** A grammar whose root matches `node`. */
  grammar(node: StNode): GrammarIR {
    const root = this.builder.declare('root', originOf(node.at));
    this.builder.define(root, this.lower(node));
    return this.builder.build(root);
  }

  lower(node: StNode): Expr {
    switch (node.type) {
      case 'const_string':
        return { kind: 'bytes', bytes: new TextEncoder().encode(node.value) };
      case 'json_schema':
      case 'grammar':
      case 'regex':
        return ref(this.sharedRule(node, () => lowerEmbedded(this, node)));
      case 'any_text':
        return lowerAnyText(node);
      case 'token':
      case 'exclude_token':
      case 'any_tokens':
        return lowerTokenNode(node);
      case 'sequence':
      case 'or':
      case 'optional':
      case 'plus':
      case 'star':
      case 'repeat':
        return lowerCombinator(this, node);
      case 'tag':
        return lowerTag(this, node as TagNode);
      case 'triggered_tags':
        return lowerTriggeredTags(this, node);
      case 'token_triggered_tags':
        return lowerTokenTriggeredTags(this, node);
      case 'tags_with_separator':
        return lowerTagsWithSeparator(this, node);
      case 'dispatch':
        return lowerDispatch(this, node);
      case 'token_dispatch':
        return lowerTokenDispatch(this, node);
    }
  }

  /** A rule matching `node`; nodes with the same content share one rule. */
  ruleOf(node: StNode, name: string = node.type): number {
    return this.sharedRule(node, () => this.builder.add(name, this.lower(node), null, originOf(node.at)));
  }

  /** A fresh rule with this body (dispatch targets must be rules); `at` is the node it stands for. */
  rule(name: string, body: Expr, at?: string): number {
    return this.builder.add(name, body, null, at === undefined ? undefined : originOf(at));
  }

  private sharedRule(node: StNode, make: () => number): number {
    const key = JSON.stringify(node, (k, v: unknown) => (k === 'at' ? undefined : v));
    let id = this.shared.get(key);
    if (id === undefined) {
      id = make();
      this.shared.set(key, id);
    }
    return id;
  }
}
