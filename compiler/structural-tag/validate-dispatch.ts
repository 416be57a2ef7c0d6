// Validation of dispatch and token_dispatch: rules are [pattern, format] pairs with distinct,
// non-empty patterns, and no pattern may contain an excluded string (it could never fire).
import { GrammarError } from '../errors.js';
import { describe, type NodeReader, tokenId, tokenIds } from './node-reader.js';
import type { EnclosingEnd, StNode } from './types.js';
import { unique, type ValidateContext, withEnclosingEnd } from './validate-context.js';

function pairs(r: NodeReader): unknown[][] {
  return r.list('rules').map((item, i) => {
    if (!Array.isArray(item) || item.length !== 2) {
      const what = Array.isArray(item) ? `a list of ${item.length} items` : describe(item);
      throw GrammarError.at(r.ptr('rules', i), `a ${r.kind} rule must be a pair [${r.kind === 'dispatch' ? 'pattern' : 'token'}, format], not ${what}`);
    }
    return item;
  });
}

export function validateDispatch(v: ValidateContext, r: NodeReader, end: EnclosingEnd): StNode {
  const rules = pairs(r).map(([pattern, format], i) => {
    if (typeof pattern !== 'string') throw GrammarError.at(r.ptr('rules', i, 0), `a dispatch pattern must be a string, not ${describe(pattern)}`);
    if (pattern === '') throw GrammarError.at(r.ptr('rules', i, 0), 'a dispatch pattern must not be empty');
    return { pattern, format: v.node(format, r.ptr('rules', i, 1), end) };
  });
  rules.forEach((rule, i) => {
    if (rules.findIndex((o) => o.pattern === rule.pattern) !== i) {
      throw GrammarError.at(r.ptr('rules', i, 0), `the pattern ${JSON.stringify(rule.pattern)} has two rules`);
    }
  });
  const own = r.strings('excludes', { fallback: [], nonEmpty: 'excluded' });
  const excludes = withEnclosingEnd(own, end, r.at, r.kind);
  rules.forEach((rule, i) => {
    const hit = excludes.find((ex) => rule.pattern.includes(ex));
    if (hit !== undefined) {
      throw GrammarError.at(r.ptr('rules', i, 0), `the pattern ${JSON.stringify(rule.pattern)} contains the excluded string ${JSON.stringify(hit)}, so it could never be produced`);
    }
  });
  return { type: 'dispatch', at: r.at, rules, loop: r.boolean('loop', true), excludes };
}

export function validateTokenDispatch(v: ValidateContext, r: NodeReader, end: EnclosingEnd): StNode {
  const rules = pairs(r).map(([token, format], i) => ({
    token: tokenId(token, r.ptr('rules', i, 0), 'a token_dispatch rule', v.options),
    format: v.node(format, r.ptr('rules', i, 1), end),
  }));
  rules.forEach((rule, i) => {
    if (rules.findIndex((o) => o.token === rule.token) !== i) throw GrammarError.at(r.ptr('rules', i, 0), `the token ${rule.token} has two rules`);
    if (rule.token === end.token) throw GrammarError.at(r.ptr('rules', i, 0), `the token ${rule.token} is also the end of the enclosing tag`);
  });
  const own = tokenIds(r, 'exclude_tokens', 'excluded', v.options, []);
  own.forEach((t, i) => {
    if (rules.some((rule) => rule.token === t)) throw GrammarError.at(r.ptr('exclude_tokens', i), `the token ${t} is both a rule's token and excluded`);
  });
  const excludeTokens = unique(end.token !== null ? [...own, end.token] : own);
  return { type: 'token_dispatch', at: r.at, rules, loop: r.boolean('loop', true), excludeTokens };
}
