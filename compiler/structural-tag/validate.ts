// Validation of a structural tag, before any compile work: every node's type, fields, field
// types and the rules between them are checked, and the result is a normalised tree (see
// types.ts). Errors are GrammarErrors with a JSON pointer to the offending node or field.
// The enclosing tag's end travels down the tree, so unlimited content learns what it must
// never produce (the tag could not close otherwise).
import { GrammarError, pointerJoin } from '../errors.js';
import type { JsonSchemaStyle } from '../json-schema/options.js';
import { aNode, describe, isPlainObject, type Json, NodeReader, tokenId, tokenIds } from './node-reader.js';
import { NODE_KINDS, type EnclosingEnd, NO_END, type NodeKind, type StNode, type StructuralTagOptions, type TagNode } from './types.js';
import { unique, type ValidateContext, withEnclosingEnd } from './validate-context.js';
import { validateDispatch, validateTokenDispatch } from './validate-dispatch.js';
import { validateTagsWithSeparator, validateTokenTriggeredTags, validateTriggeredTags } from './validate-triggered.js';

const STYLES: readonly JsonSchemaStyle[] = ['json', 'qwen_xml', 'minimax_xml', 'deepseek_xml', 'glm_xml', 'cohere_xml', 'kimi_k3_xml'];

/** Fields of each node kind besides `type`. */
const FIELDS: Record<NodeKind, readonly string[]> = {
  const_string: ['value'],
  json_schema: ['json_schema', 'style', 'any_order', 'max_whitespace', 'max_whitespace_cnt'],
  any_text: ['excludes'],
  token: ['token'],
  exclude_token: ['exclude_tokens'],
  any_tokens: ['exclude_tokens'],
  grammar: ['grammar'],
  regex: ['pattern'],
  qwen_xml_parameter: ['json_schema'],
  sequence: ['elements'],
  or: ['elements'],
  tag: ['begin', 'content', 'end'],
  triggered_tags: ['triggers', 'tags', 'at_least_one', 'stop_after_first', 'excludes'],
  token_triggered_tags: ['trigger_tokens', 'tags', 'exclude_tokens', 'at_least_one', 'stop_after_first'],
  tags_with_separator: ['tags', 'separator', 'at_least_one', 'stop_after_first'],
  optional: ['content'],
  plus: ['content'],
  star: ['content'],
  repeat: ['min', 'max', 'content'],
  dispatch: ['rules', 'loop', 'excludes'],
  token_dispatch: ['rules', 'loop', 'exclude_tokens'],
};

export class Validator implements ValidateContext {
  constructor(readonly options: StructuralTagOptions) {}

  /** The top-level object `{type: "structural_tag", format}`, or a bare format node. */
  root(input: Json): StNode {
    if (!isPlainObject(input)) throw GrammarError.at('', `a structural tag must be an object, not ${describe(input)}`);
    const isTop = input.type === 'structural_tag' || (input.type === undefined && 'format' in input);
    if (!isTop) return this.node(input, '', NO_END);
    const top = new NodeReader(input, '', 'structural_tag', ['format']);
    return this.node(top.required('format'), '/format', NO_END);
  }

  reader(value: Json, at: string, expectType?: NodeKind): NodeReader {
    if (!isPlainObject(value)) throw GrammarError.at(at, `a format node must be an object, not ${describe(value)}`);
    let type = value.type;
    if (type === undefined && expectType) type = expectType; // items of `tags` may omit "type": "tag"
    if (type === undefined) throw GrammarError.at(at, `a format node needs the field 'type' (one of ${NODE_KINDS.join(', ')})`);
    if (typeof type !== 'string') throw GrammarError.at(pointerJoin(at, 'type'), `'type' must be a string, not ${describe(type)}`);
    if (!(NODE_KINDS as readonly string[]).includes(type)) {
      throw GrammarError.at(pointerJoin(at, 'type'), `unknown format type '${type}' (expected one of ${NODE_KINDS.join(', ')})`);
    }
    if (expectType && type !== expectType) throw GrammarError.at(pointerJoin(at, 'type'), `expected ${aNode(expectType)} here, not ${type}`);
    return new NodeReader(value, at, type, FIELDS[type as NodeKind]);
  }

  node(value: Json, at: string, end: EnclosingEnd): StNode {
    const r = this.reader(value, at);
    const kind = r.kind as NodeKind;
    switch (kind) {
      case 'const_string':
        return { type: kind, at, value: r.string('value') };
      case 'json_schema':
      case 'qwen_xml_parameter': {
        const schema = r.required('json_schema');
        if (typeof schema !== 'boolean' && !isPlainObject(schema)) throw r.wrongType('json_schema', 'a JSON schema (an object or a boolean)');
        // Inside a tag its end follows the value, so one whitespace run may come before it.
        const insideTag = end.strings.length > 0 || end.token !== null;
        if (kind === 'qwen_xml_parameter') return { type: 'json_schema', at, schema, style: 'qwen_xml', anyOrder: false, ...this.whitespaceOf(r), insideTag };
        const style = r.string('style', 'json');
        if (!(STYLES as readonly string[]).includes(style)) throw GrammarError.at(r.ptr('style'), `unknown style '${style}' (expected one of ${STYLES.join(', ')})`);
        return { type: kind, at, schema, style: style as JsonSchemaStyle, anyOrder: r.boolean('any_order', false), ...this.whitespaceOf(r), insideTag };
      }
      case 'any_text': {
        const own = r.strings('excludes', { fallback: [], nonEmpty: 'excluded' });
        return { type: kind, at, excludes: withEnclosingEnd(own, end, at, kind) };
      }
      case 'token':
        return { type: kind, at, token: tokenId(r.required('token'), r.ptr('token'), 'token', this.options) };
      case 'exclude_token':
      case 'any_tokens': {
        const ids = tokenIds(r, 'exclude_tokens', 'excluded', this.options, []);
        if (end.token !== null) ids.push(end.token);
        return { type: kind, at, excludeTokens: unique(ids) };
      }
      case 'grammar':
        return { type: kind, at, grammar: r.string('grammar') };
      case 'regex':
        return { type: kind, at, pattern: r.string('pattern') };
      case 'sequence':
      case 'or': {
        const list = r.list('elements');
        if (list.length === 0) {
          throw GrammarError.at(r.ptr('elements'), kind === 'or' ? 'an empty or matches nothing: give at least one element' : 'an empty sequence: give at least one element (a const_string "" matches the empty text)');
        }
        return { type: kind, at, elements: list.map((e, i) => this.node(e, r.ptr('elements', i), end)) };
      }
      case 'tag':
        return this.tag(value, at);
      case 'optional':
      case 'plus':
      case 'star':
        return { type: kind, at, content: this.node(r.required('content'), r.ptr('content'), end) };
      case 'repeat': {
        const min = r.integer('min');
        const max = r.integer('max');
        if (min < 0) throw GrammarError.at(r.ptr('min'), `'min' of a repeat must be 0 or more, not ${min}`);
        if (max < -1) throw GrammarError.at(r.ptr('max'), `'max' of a repeat must be 0 or more, or -1 for unbounded, not ${max}`);
        if (max !== -1 && min > max) throw GrammarError.at(r.ptr('max'), `'max' (${max}) of a repeat is less than 'min' (${min})`);
        if (max > 0x7fffffff || min > 0x7fffffff) throw GrammarError.at(r.ptr(max > 0x7fffffff ? 'max' : 'min'), 'repeat bounds above 2^31-1 are not supported');
        return { type: kind, at, min, max, content: this.node(r.required('content'), r.ptr('content'), end) };
      }
      case 'triggered_tags':
        return validateTriggeredTags(this, r, end);
      case 'token_triggered_tags':
        return validateTokenTriggeredTags(this, r, end);
      case 'tags_with_separator':
        return validateTagsWithSeparator(this, r);
      case 'dispatch':
        return validateDispatch(this, r, end);
      case 'token_dispatch':
        return validateTokenDispatch(this, r, end);
    }
  }

  /** A `tag` node: string or token begin; string, list of strings, or token end. */
  tag(value: Json, at: string, expectTag = false): TagNode {
    const r = this.reader(value, at, expectTag ? 'tag' : undefined);
    const beginValue = r.required('begin');
    const begin: TagNode['begin'] =
      typeof beginValue === 'string' ? { kind: 'string', text: beginValue } : { kind: 'token', id: this.tokenFormat(beginValue, r.ptr('begin'), "a tag's begin") };
    const endValue = r.required('end');
    let end: TagNode['end'];
    let enclosing: EnclosingEnd;
    if (typeof endValue === 'string' || Array.isArray(endValue)) {
      const texts = typeof endValue === 'string' ? [endValue] : r.strings('end');
      if (texts.length === 0) throw GrammarError.at(r.ptr('end'), "an empty list of ends: the tag could never close (give at least one string)");
      end = { kind: 'strings', texts: unique(texts) };
      enclosing = { strings: end.texts, token: null, at: r.ptr('end') };
    } else {
      end = { kind: 'token', id: this.tokenFormat(endValue, r.ptr('end'), "a tag's end") };
      enclosing = { strings: [], token: end.id, at: r.ptr('end') };
    }
    const content = this.node(r.required('content'), r.ptr('content'), enclosing);
    return { type: 'tag', at, begin, content, end };
  }

  /** A json_schema node's whitespace bound: its own `max_whitespace` or `max_whitespace_cnt`
   * (not both), else the compile option's count, else the default layout bound. */
  whitespaceOf(r: NodeReader): { maxWhitespace: number | null | undefined; maxWhitespaceCount: number | undefined } {
    const maxWhitespace = maxWhitespaceField(r);
    const own = maxWhitespaceCountField(r);
    if (own !== undefined && maxWhitespace !== undefined) throw GrammarError.at(r.ptr('max_whitespace_cnt'), "give either 'max_whitespace' (spaces or tabs after a line break) or 'max_whitespace_cnt' (any whitespace), not both");
    return { maxWhitespace, maxWhitespaceCount: own ?? (maxWhitespace === undefined ? this.options.maxWhitespaceCount : undefined) };
  }

  /** A token format node (`{"type": "token", "token": ...}`) used as a tag's begin or end. */
  tokenFormat(value: Json, at: string, what: string): number {
    if (!isPlainObject(value) || value.type !== 'token') {
      throw GrammarError.at(at, `${what} must be a string or a token node ({"type": "token", "token": ...}), not ${describe(value)}`);
    }
    const r = new NodeReader(value, at, 'token', FIELDS.token);
    return tokenId(r.required('token'), r.ptr('token'), what, this.options);
  }
}

/** lmforge's `max_whitespace` of a json_schema node: a whole number, or null for unbounded. */
function maxWhitespaceField(r: NodeReader): number | null | undefined {
  if (!('max_whitespace' in r.obj)) return undefined;
  const value = r.obj.max_whitespace;
  if (value === null) return null;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw r.wrongType('max_whitespace', 'a whole number of at least 0, or null for unbounded whitespace');
  return value;
}

/** xgrammar's `max_whitespace_cnt` of a json_schema node: each whitespace run at most this
 * many characters of any kind. */
function maxWhitespaceCountField(r: NodeReader): number | undefined {
  if (!('max_whitespace_cnt' in r.obj)) return undefined;
  const value = r.obj.max_whitespace_cnt;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw r.wrongType('max_whitespace_cnt', 'a whole number of at least 0');
  return value;
}

