// Leaf nodes: free text, token-level nodes, and the nodes that embed another front end
// (JSON schema, EBNF, regex). Errors of an embedded front end are re-issued with a pointer
// into the structural tag.
import { parseEbnf } from '../ebnf/lower.js';
import { GrammarError, pointerJoin } from '../errors.js';
import { cls, type Expr, star } from '../ir.js';
import { jsonSchemaToGrammar } from '../json-schema/convert.js';
import { regexGrammar } from '../regex/regex.js';
import { MAX_CODE_POINT } from '../charset.js';
import { type LowerContext, originOf } from './lower-context.js';
import type { StNode } from './types.js';

const utf8 = new TextEncoder();

type Of<T extends StNode['type']> = Extract<StNode, { type: T }>;

export function lowerAnyText(node: Of<'any_text'>): Expr {
  if (node.excludes.length === 0) return star(cls([0, MAX_CODE_POINT]));
  // A dispatch with no triggers is free text in which no exclude can complete.
  return { kind: 'tagDispatch', tags: [], loop: false, excludes: node.excludes.map((s) => utf8.encode(s)) };
}

export function lowerTokenNode(node: Of<'token' | 'exclude_token' | 'any_tokens'>): Expr {
  if (node.type === 'token') return { kind: 'token', ids: [node.token] };
  const one: Expr = { kind: 'excludeToken', ids: node.excludeTokens };
  return node.type === 'exclude_token' ? one : star(one);
}

/** The root rule id of the embedded grammar. */
export function lowerEmbedded(lw: LowerContext, node: Of<'json_schema' | 'grammar' | 'regex'>): number {
  switch (node.type) {
    case 'json_schema': {
      let ir;
      try {
        // Structural tags always use free (bounded) whitespace and strict mode, as the
        // reference does, where an object that declares no keys takes any (tool schemas
        // often say only {"type": "object"}); whitespace after the value only inside a tag,
        // whose end follows.
        ir = jsonSchemaToGrammar(node.schema, {
          style: node.style,
          anyOrder: node.anyOrder,
          anyWhitespace: true,
          strictMode: true,
          openBareObjects: true,
          trailingWhitespace: node.insideTag,
          ...(node.maxWhitespace !== undefined ? { maxWhitespace: node.maxWhitespace } : {}),
          ...(node.maxWhitespaceCount !== undefined ? { maxWhitespaceCount: node.maxWhitespaceCount } : {}),
        });
      } catch (error) {
        throw reissue(error, pointerJoin(node.at, 'json_schema'), (inner) => (inner.location.kind === 'pointer' ? inner.location.pointer : ''));
      }
      return lw.builder.embed(ir, 'schema', originOf(pointerJoin(node.at, 'json_schema')));
    }
    case 'grammar': {
      let ir;
      try {
        ir = parseEbnf(node.grammar);
      } catch (error) {
        throw reissue(error, pointerJoin(node.at, 'grammar'), () => '', 'EBNF ');
      }
      return lw.builder.embed(ir, 'grammar', originOf(pointerJoin(node.at, 'grammar')));
    }
    case 'regex': {
      let ir;
      try {
        ir = regexGrammar(node.pattern);
      } catch (error) {
        throw reissue(error, pointerJoin(node.at, 'pattern'), () => '');
      }
      return lw.rule('regex', ir.rules[0]!.body, pointerJoin(node.at, 'pattern'));
    }
  }
}

/** A GrammarError of an embedded front end, re-pointed at `base` + its own pointer. */
function reissue(error: unknown, base: string, innerPointer: (e: GrammarError) => string, prefix = ''): unknown {
  if (!(error instanceof GrammarError)) return error;
  const inner = innerPointer(error);
  let message = error.message;
  if (error.location.kind === 'pointer') {
    const shown = `${error.location.pointer || '/'}: `;
    if (message.startsWith(shown)) message = message.slice(shown.length);
  }
  return GrammarError.at(base + inner, prefix + message);
}
