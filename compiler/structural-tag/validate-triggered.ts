// Validation of the tag-list formats: triggered_tags, token_triggered_tags and
// tags_with_separator. Each tag of a triggered format must be reachable from exactly one
// trigger, and each trigger must lead to some tag.
import { GrammarError } from '../errors.js';
import { aNode, type NodeReader, tokenIds } from './node-reader.js';
import type { EnclosingEnd, StNode, TagNode } from './types.js';
import { unique, type ValidateContext, withEnclosingEnd } from './validate-context.js';

function tagList(v: ValidateContext, r: NodeReader): TagNode[] {
  const list = r.list('tags');
  if (list.length === 0) throw GrammarError.at(r.ptr('tags'), `${aNode(r.kind)} needs at least one tag`);
  return list.map((item, i) => v.tag(item, r.ptr('tags', i), true));
}

function flags(r: NodeReader): { atLeastOne: boolean; stopAfterFirst: boolean } {
  return { atLeastOne: r.boolean('at_least_one', false), stopAfterFirst: r.boolean('stop_after_first', false) };
}

/** With both flags set the node is exactly one tag: it has no free text to restrict. */
function hasFreeText(f: { atLeastOne: boolean; stopAfterFirst: boolean }): boolean {
  return !(f.atLeastOne && f.stopAfterFirst);
}

export function validateTriggeredTags(v: ValidateContext, r: NodeReader, end: EnclosingEnd): StNode {
  const triggers = r.strings('triggers', { nonEmpty: 'a trigger' });
  if (triggers.length === 0) throw GrammarError.at(r.ptr('triggers'), 'a triggered_tags node needs at least one trigger');
  triggers.forEach((t, i) => {
    if (triggers.indexOf(t) !== i) throw GrammarError.at(r.ptr('triggers', i), `the trigger ${JSON.stringify(t)} is listed twice`);
  });
  const tags = tagList(v, r);
  const used = new Set<number>();
  tags.forEach((tag, i) => {
    const at = r.ptr('tags', i, 'begin');
    if (tag.begin.kind !== 'string') {
      throw GrammarError.at(at, "a triggered_tags tag's begin must be a string (tags that begin with a token belong in token_triggered_tags)");
    }
    const text = tag.begin.text;
    const matching = triggers.flatMap((t, ti) => (text.startsWith(t) ? [ti] : []));
    if (matching.length === 0) {
      throw GrammarError.at(at, `no trigger starts the begin ${JSON.stringify(text)} (triggers: ${triggers.map((t) => JSON.stringify(t)).join(', ')})`);
    }
    if (matching.length > 1) {
      const names = matching.map((ti) => JSON.stringify(triggers[ti]));
      throw GrammarError.at(at, `the begin ${JSON.stringify(text)} starts with more than one trigger (${names.join(' and ')}); each tag needs exactly one`);
    }
    used.add(matching[0]!);
  });
  triggers.forEach((t, i) => {
    if (!used.has(i)) throw GrammarError.at(r.ptr('triggers', i), `no tag begins with the trigger ${JSON.stringify(t)}, so producing it could never be completed`);
  });
  const f = flags(r);
  const own = r.strings('excludes', { fallback: [], nonEmpty: 'excluded' });
  const excludes = hasFreeText(f) ? withEnclosingEnd(own, end, r.at, r.kind) : own;
  triggers.forEach((t, i) => {
    const hit = excludes.find((ex) => t.includes(ex));
    if (hit !== undefined) {
      throw GrammarError.at(r.ptr('triggers', i), `the trigger ${JSON.stringify(t)} contains the excluded string ${JSON.stringify(hit)}, so it could never be produced`);
    }
  });
  return { type: 'triggered_tags', at: r.at, triggers, tags, excludes, ...f };
}

export function validateTokenTriggeredTags(v: ValidateContext, r: NodeReader, end: EnclosingEnd): StNode {
  const triggerTokens = tokenIds(r, 'trigger_tokens', 'output', v.options);
  if (triggerTokens.length === 0) throw GrammarError.at(r.ptr('trigger_tokens'), 'a token_triggered_tags node needs at least one trigger token');
  triggerTokens.forEach((t, i) => {
    if (triggerTokens.indexOf(t) !== i) throw GrammarError.at(r.ptr('trigger_tokens', i), `the trigger token ${t} is listed twice`);
  });
  const tags = tagList(v, r);
  const used = new Set<number>();
  tags.forEach((tag, i) => {
    const at = r.ptr('tags', i, 'begin');
    if (tag.begin.kind !== 'token') {
      throw GrammarError.at(at, `a token_triggered_tags tag's begin must be a token node ({"type": "token", "token": ...}), not the string ${JSON.stringify(tag.begin.text)}`);
    }
    if (!triggerTokens.includes(tag.begin.id)) throw GrammarError.at(at, `the begin token ${tag.begin.id} is not one of the trigger tokens (${triggerTokens.join(', ')})`);
    used.add(tag.begin.id);
  });
  triggerTokens.forEach((t, i) => {
    if (!used.has(t)) throw GrammarError.at(r.ptr('trigger_tokens', i), `no tag begins with the trigger token ${t}`);
  });
  const f = flags(r);
  const own = tokenIds(r, 'exclude_tokens', 'excluded', v.options, []);
  own.forEach((t, i) => {
    if (triggerTokens.includes(t)) throw GrammarError.at(r.ptr('exclude_tokens', i), `the token ${t} is both a trigger and excluded`);
  });
  const excludeTokens = unique(hasFreeText(f) && end.token !== null && !triggerTokens.includes(end.token) ? [...own, end.token] : own);
  return { type: 'token_triggered_tags', at: r.at, triggerTokens, tags, excludeTokens, ...f };
}

export function validateTagsWithSeparator(v: ValidateContext, r: NodeReader): StNode {
  const tags = tagList(v, r);
  return { type: 'tags_with_separator', at: r.at, tags, separator: r.string('separator'), ...flags(r) };
}
