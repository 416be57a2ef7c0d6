// triggered_tags, token_triggered_tags and tags_with_separator (semantics: compiler/README.md,
// "Structural tags"). A triggered format is a dispatch: free text until a trigger, then one of
// the tags that begin with it (the trigger itself already matched), then free text again.
//   at_least_one + stop_after_first: exactly one tag, no free text;
//   at_least_one: a tag first (no leading text), then the looping dispatch;
//   stop_after_first: the dispatch without its loop (text, at most one tag, nothing after).
import { alt, type Expr, lit, opt, ref, seq, star } from '../ir.js';
import type { LowerContext } from './lower-context.js';
import { lowerTag } from './lower-combinators.js';
import type { StNode, TagNode } from './types.js';

type Of<T extends StNode['type']> = Extract<StNode, { type: T }>;

const utf8 = new TextEncoder();

/** Any one of the tags, whole. Shared as a rule: it is used twice with at_least_one. */
function anyTag(lw: LowerContext, tags: TagNode[]): Expr {
  return ref(lw.rule('tags', alt(...tags.map((t) => lowerTag(lw, t)))));
}

function withFlags(lw: LowerContext, node: { tags: TagNode[]; atLeastOne: boolean; stopAfterFirst: boolean }, dispatch: () => Expr): Expr {
  if (node.atLeastOne && node.stopAfterFirst) return anyTag(lw, node.tags);
  return node.atLeastOne ? seq(anyTag(lw, node.tags), dispatch()) : dispatch();
}

export function lowerTriggeredTags(lw: LowerContext, node: Of<'triggered_tags'>): Expr {
  return withFlags(lw, node, () => ({
    kind: 'tagDispatch',
    tags: node.triggers.map((trigger) => {
      const group = node.tags.filter((t) => t.begin.kind === 'string' && t.begin.text.startsWith(trigger));
      return { trigger: utf8.encode(trigger), rule: lw.rule('triggered', alt(...group.map((t) => lowerTag(lw, t, { skip: trigger.length })))) };
    }),
    loop: !node.stopAfterFirst,
    excludes: node.excludes.map((s) => utf8.encode(s)),
  }));
}

export function lowerTokenTriggeredTags(lw: LowerContext, node: Of<'token_triggered_tags'>): Expr {
  return withFlags(lw, node, () => ({
    kind: 'tokenDispatch',
    tags: node.triggerTokens.map((token) => {
      const group = node.tags.filter((t) => t.begin.kind === 'token' && t.begin.id === token);
      return { token, rule: lw.rule('token_triggered', alt(...group.map((t) => lowerTag(lw, t, { withBegin: false })))) };
    }),
    loop: !node.stopAfterFirst,
    excludes: node.excludeTokens,
  }));
}

export function lowerTagsWithSeparator(lw: LowerContext, node: Of<'tags_with_separator'>): Expr {
  const one = anyTag(lw, node.tags);
  const some = node.stopAfterFirst ? one : seq(one, star(seq(lit(node.separator), one)));
  return node.atLeastOne ? some : opt(some);
}
