// XML tool-call styles: the top-level arguments object is written as parameters, without
// braces, separated by whitespace.
//   qwen_xml      <parameter=KEY>V</parameter>
//   minimax_xml   <parameter name="KEY">V</parameter>
//   deepseek_xml  <｜DSML｜parameter name="KEY" string="true|false">V</｜DSML｜parameter>
//   glm_xml       <arg_key>KEY</arg_key> ws <arg_value>V</arg_value>
//   kimi_k3_xml   <|open|>argument key="KEY" type="T"<|sep|>V<|close|>argument<|sep|>
//   cohere_xml    <cofl:value name="KEY" type="T">V</cofl:value>, recursively: an object is
//                 type "dict" holding named values, an array type "list" holding unnamed
//                 ones (<cofl:value type="T">V</cofl:value>), a string "raw", the rest "json"
//                 (and a value of any type too: any JSON value, as JSON text)
// Values nested deeper are plain JSON, except in cohere_xml. A value is written in one of
// several ways, one per JSON type its schema allows (each branch of anyOf, each type of a type
// array, each enum value): a string raw (free text up to the closing tag, which it cannot
// contain; under pattern, format and length over raw characters; an enum or const string bare,
// for qwen_xml also between newlines as Qwen3-Coder writes every value), anything else as
// whitespace, JSON, whitespace. Typed styles name the way in the tag (T), so the type
// attribute always matches the value. A value that may be anything is raw text, a JSON array or
// a JSON object (kimi_k3_xml: any type, each under its own name, a whole number also as
// "integer"; cohere_xml: any JSON value under "json", as xgrammar writes it). The arguments
// themselves may be anything too (`true`, `{}`): any parameters, keys as for
// additionalProperties.
import { GrammarError, pointerJoin } from '../errors.js';
import { alt, cls, type Expr, lit, NOTHING, ref, rep, seq, star } from '../ir.js';
import { MAX_CODE_POINT, normalizeRanges, subtractRanges } from '../charset.js';
import { MAX_NESTING } from '../limits.js';
import { dfaOfExpr } from '../dfa/byte-dfa.js';
import { combinatorPart, distribute } from './combinators.js';
import { constValue, holdsValues, valuesAllowed } from './constants.js';
import { excludingTrie } from './json-chars.js';
import { DEFAULT_MAX_WHITESPACE, whitespace } from './options.js';
import { emptyAt, isObject, type Lowering, type Schema } from './lowering.js';
import { keyValueSchemas, type KeySpelling } from './object-keys.js';
import { entrySequence, objectShape, ruleBase } from './objects.js';
import { commonTypes, conjunctionKey, conjunctionOf, conjunctionSchema, hasAssertions, NON_ASSERTIONS, type Part, partsOfConjunction, tightest } from './parts.js';
import { constrainedContent, RAW_SPELLING, stringConstraints } from './strings.js';
import { refResolver } from './refs.js';

type Kind = 'string' | 'integer' | 'number' | 'boolean' | 'null' | 'object' | 'array';

/** One way a value may be written: the JSON type it has and its text. */
interface Way {
  kind: Kind;
  expr: Expr;
  /** An enum or const object or array, written as JSON text (cohere_xml: type "json"). */
  listed?: boolean;
  /** The name a typed style gives this way, where it is not the one of its kind. */
  name?: string;
}

interface Style {
  /** The opening up to where a typed style names the value's type; `gap`: whitespace. */
  head(key: Expr, gap: Expr): Expr;
  /** What follows the head: the type where the style names one, the value, the closing. */
  tail(ways: Way[]): Expr;
  /** The closing text, which a raw string cannot contain. */
  close: string;
  /** Characters no key may hold (beside control characters), so the key cannot leave its place. */
  keyStops: string;
  /** A declared key as written (cohere_xml escapes XML's special characters). */
  spellKey?(name: string): string;
  /** The family's template writes each value between newlines: an enum or const string may be too. */
  framedLiterals?: boolean;
  /** The tag names the value's type (so a value of any type is written under each name). */
  typed?: boolean;
  /** Objects and arrays inside values are written in the style too (cohere_xml), not as JSON. */
  nested?: boolean;
}

const utf8 = new TextEncoder();

/** A style that writes no type: the opening, any of the ways, the closing. */
function untyped(open: (key: Expr, gap: Expr) => Expr, close: string, keyStops: string, framedLiterals = false): Style {
  return { head: open, tail: (ways) => seq(alt(...ways.map((w) => w.expr)), lit(close)), close, keyStops, framedLiterals };
}

/** Ways grouped by the name a typed style gives their type: `name(type) value` per group. */
function typedTail(ways: Way[], typeName: (w: Way) => string, written: (type: string, value: Expr) => Expr): Expr {
  const groups = new Map<string, Expr[]>();
  for (const w of ways) {
    const name = typeName(w);
    groups.set(name, [...(groups.get(name) ?? []), w.expr]);
  }
  return alt(...[...groups].map(([name, exprs]) => written(name, alt(...exprs))));
}

const KIMI_CLOSE = '<|close|>argument<|sep|>';
const COHERE_CLOSE = '</cofl:value>';

// Kimi-K3's template (its _xtml_type) names every int and float "number"; a value of any type
// may also be called "integer" when it is a whole number (xgrammar's set for free-form keys).
const kimiType = (w: Way): string => w.name ?? (w.kind === 'integer' ? 'number' : w.kind);
const cohereType = (w: Way): string => w.name ?? (w.kind === 'string' ? 'raw' : w.kind === 'object' && !w.listed ? 'dict' : w.kind === 'array' && !w.listed ? 'list' : 'json');

const COHERE_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

const STYLES: Record<string, Style> = {
  qwen_xml: untyped((k) => seq(lit('<parameter='), k, lit('>')), '</parameter>', '<>', true),
  minimax_xml: untyped((k) => seq(lit('<parameter name="'), k, lit('">')), '</parameter>', '"<>'),
  deepseek_xml: untyped((k) => seq(lit('<｜DSML｜parameter name="'), k, lit('" string="'), alt(lit('true'), lit('false')), lit('">')), '</｜DSML｜parameter>', '"<>'),
  glm_xml: untyped((k, gap) => seq(lit('<arg_key>'), k, lit('</arg_key>'), gap, lit('<arg_value>')), '</arg_value>', '<>'),
  kimi_k3_xml: {
    head: (k) => seq(lit('<|open|>argument key="'), k),
    tail: (ways) => seq(lit('" type="'), typedTail(ways, kimiType, (type, value) => seq(lit(type), lit('"<|sep|>'), value)), lit(KIMI_CLOSE)),
    close: KIMI_CLOSE,
    keyStops: '"&<',
    // Kimi-K3's template escapes & and " in attribute values.
    spellKey: (name) => name.replace(/&/g, '&amp;').replace(/"/g, '&quot;'),
    typed: true,
  },
  cohere_xml: {
    head: (k) => seq(lit('<cofl:value name="'), k, lit('"')),
    tail: (ways) => seq(lit(' type="'), typedTail(ways, cohereType, (type, value) => seq(lit(type), lit('">'), value)), lit(COHERE_CLOSE)),
    close: COHERE_CLOSE,
    keyStops: '"&<>',
    spellKey: (name) => name.replace(/[&<>"]/g, (c) => COHERE_ENTITIES[c]!),
    typed: true,
    nested: true,
  },
};

export const XML_STYLE_NAMES = Object.keys(STYLES);

const ID_START = normalizeRanges([0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a]);
const ID_REST = normalizeRanges([0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a]);

/** Identifiers `[A-Za-z_][A-Za-z0-9_]*` other than `names`. */
function identifierExcluding(names: string[]): Expr {
  const words = names.filter((n) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(n)).map((n) => [...n].map((ch) => ch.charCodeAt(0)));
  return excludingTrie(words, (depth) => (depth === 0 ? ID_START : ID_REST), (c) => lit(String.fromCharCode(c)), (others) => seq(cls(others), star(cls(ID_REST))), true);
}

function kindOfValue(v: unknown): Kind {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v as Kind;
}

export function lowerXmlRoot(ctx: Lowering, root: Schema, styleName: string): Expr {
  const style = STYLES[styleName];
  if (!style) throw GrammarError.at('', `unknown style '${styleName}'`);
  const bare = isObject(root) && typeof root.$ref === 'string' && Object.keys(root).every((k) => k === '$ref' || NON_ASSERTIONS.has(k));
  const resolved = bare ? ctx.resolve(root, '') : { schema: root, pointer: '' };
  const pointer = resolved.pointer;
  // Arguments that may be anything are any parameters (xgrammar reads `true` and `{}` alike).
  const schema = isAny(resolved.schema) ? ANY_ARGUMENTS : resolved.schema;
  if (!isObject(schema) || (schema.type !== undefined && schema.type !== 'object')) {
    throw GrammarError.at(pointer, `the '${styleName}' style needs an object schema at the top level`);
  }
  const parts = conjunctionOf(schema, pointer, ctx.lookupRef);
  if (!Array.isArray(parts)) return emptyAt(parts.falseAt, 'the schema is false: no value matches it');
  const split = combinatorPart(parts);
  if (split >= 0) {
    const keyword = Array.isArray(parts[split]!.schema.anyOf) ? 'anyOf' : 'oneOf';
    // Each parameter is read back (and streamed) on its own, its type from the schema, while
    // which alternative the arguments take is known only once they are all written.
    throw GrammarError.at(
      pointerJoin(parts[split]!.pointer, keyword),
      `'${keyword}' on the top-level object is not supported with the '${styleName}' style: its parameters are written and read back one by one, and which alternative they follow is known only once all are written; write one object (allOf and $ref may build it)`,
    );
  }
  return new XmlLowering(ctx, style, styleName).object(parts, pointer, 0);
}

/**
 * The schema a parameter's value takes under the arguments schema `args`, as the grammar reads
 * it: every schema that applies to `key` in the arguments' parts (a root `$ref`, `allOf`
 * members, followed as far as they go), together as an `allOf` whose references point into
 * `args`. For reading a value back where the style does not say its type
 * (runtime/chat-format/xml-arguments.ts).
 */
export function xmlParameterSchema(args: Schema, key: string): Schema {
  const parts = conjunctionOf(args, '', refResolver(args));
  return Array.isArray(parts) ? { allOf: keyValueSchemas(parts, key).map((m) => m.schema) } : false;
}

class XmlLowering {
  private readonly rawText: Expr;
  private readonly ws: Expr;
  private readonly gap: Expr;
  private readonly keys: KeySpelling;
  /** Rules of value tails, declared before they are built (a recursive schema in cohere_xml). */
  private readonly tails = new Map<string, number>();
  private nesting = 0;

  constructor(
    private readonly ctx: Lowering,
    private readonly style: Style,
    private readonly name: string,
  ) {
    this.rawText = ctx.sharedRule(`xml_raw_text_${name}`, () => ({ kind: 'tagDispatch', tags: [], loop: false, excludes: [utf8.encode(style.close)] }));
    this.ws = ctx.fmt.ws();
    // GLM writes a newline inside the opening whatever the layout elsewhere.
    this.gap = ctx.fmt.anyWhitespace ? this.ws : whitespace(DEFAULT_MAX_WHITESPACE);
    const stops = [...style.keyStops].flatMap((c) => [c.charCodeAt(0), c.charCodeAt(0)]);
    const keyChars = subtractRanges([0x20, MAX_CODE_POINT], normalizeRanges(stops));
    this.keys = { spelling: RAW_SPELLING, universe: () => dfaOfExpr(rep(cls(keyChars), 1, -1)) };
  }

  /** The entries of an object (the arguments, or a cohere_xml dict), whitespace around and between. */
  object(parts: Part[], pointer: string, depth: number): Expr {
    const { ctx, style } = this;
    const head = (key: Expr): Expr => style.head(key, this.gap);
    const shape = objectShape(
      ctx,
      parts,
      pointer,
      depth,
      {
        declared: (name, tail) => seq(head(lit(style.spellKey ? style.spellKey(name) : name)), tail),
        additional: (names, tail) => seq(head(identifierExcluding(names)), tail),
        pattern: () => NOTHING, // patterns come as regions of the style's keys
        region: (content, tail) => seq(head(content), tail),
      },
      (s, at) => this.tail(s, at, depth + 1),
      this.keys,
    );
    if ('empty' in shape) return emptyAt(pointer, shape.empty);
    const { nonEmpty, emptyAllowed } = entrySequence(ctx, shape, this.ws, `${ruleBase(pointer)}_xml`);
    const body = seq(this.ws, nonEmpty, this.ws);
    return emptyAllowed ? alt(this.ws, body) : body;
  }

  /** The ways a value may be written, then the closing (one rule per schema). */
  private tail(schema: Schema, pointer: string, depth: number): Expr {
    const r = this.resolve(schema, pointer);
    const given = partsOfConjunction(r.schema);
    const key = isAny(r.schema) ? 'any' : given ? conjunctionKey(given) : `${r.pointer}#${typeof r.schema}`;
    let id = this.tails.get(key);
    if (id === undefined) {
      id = this.ctx.builder.declare(`${key === 'any' ? 'xml_any' : ruleBase(r.pointer)}_xml_value`, { location: { kind: 'pointer', pointer: r.pointer } });
      this.tails.set(key, id);
      this.ctx.builder.define(id, this.style.tail(this.ways(r.schema, r.pointer, depth)));
    }
    return ref(id);
  }

  /** Follows a `$ref` standing alone (one with keywords beside it is a conjunction). */
  private resolve(schema: Schema, pointer: string): { schema: Schema; pointer: string } {
    const bare = isObject(schema) && typeof schema.$ref === 'string' && Object.keys(schema).every((k) => k === '$ref' || NON_ASSERTIONS.has(k));
    return bare ? this.ctx.resolve(schema, pointer) : { schema, pointer };
  }

  private ways(schema: Schema, pointer: string, depth: number): Way[] {
    const r = this.resolve(schema, pointer);
    if (r.schema === false) return [{ kind: 'null', expr: emptyAt(r.pointer, 'the schema is false: no value matches it') }];
    if (isAny(r.schema)) return this.anyWays(depth);
    const parts = conjunctionOf(r.schema, r.pointer, this.ctx.lookupRef);
    if (!Array.isArray(parts)) return [{ kind: 'null', expr: emptyAt(parts.falseAt, 'the schema is false: no value matches it') }];
    return this.partsWays(parts, r.pointer, depth);
  }

  private partsWays(parts: Part[], at: string, depth: number): Way[] {
    const { ctx } = this;
    if (parts.length === 0) return this.anyWays(depth);
    const split = combinatorPart(parts);
    if (split >= 0) {
      // Branches that lead back to the same value at the same level would never end.
      if (++this.nesting > MAX_NESTING) throw GrammarError.at(at, `combinators nest more than ${MAX_NESTING} levels deep here (the limit)`);
      try {
        return distribute(parts, split, ctx.lookupRef).flatMap((b): Way[] => {
          if (b.alone) return this.ways(b.alone.schema, b.alone.pointer, depth);
          const c = b.conjunction!;
          return Array.isArray(c) ? this.partsWays(c, b.pointer, depth) : [{ kind: 'null', expr: emptyAt(c.falseAt, 'the schema is false: no value matches it') }];
        });
      } finally {
        this.nesting--;
      }
    }
    if (parts.some(holdsValues)) {
      const values = valuesAllowed(ctx.root, parts);
      if (values.length === 0) return [{ kind: 'null', expr: emptyAt(at, "none of the 'enum' or 'const' values satisfies the other keywords") }];
      return values.map((v): Way => (typeof v === 'string' ? { kind: 'string', expr: this.literal(v) } : { kind: kindOfValue(v), expr: seq(this.ws, constValue(ctx.fmt, v, depth), this.ws), listed: true }));
    }
    let types = commonTypes(parts) as Kind[];
    if (types.length === 0) return [{ kind: 'null', expr: emptyAt(at, "the parts' 'type' keywords have no type in common") }];
    if (types.includes('number')) types = types.filter((t) => t !== 'integer');
    return types.map((kind) => ({ kind, expr: this.typed(kind, parts, at, depth, types.length === 1) }));
  }

  private typed(kind: Kind, parts: Part[], at: string, depth: number, only: boolean): Expr {
    if (kind === 'string') return constrainedContent(stringConstraints(parts), RAW_SPELLING, at) ?? this.rawText;
    if (this.style.nested && kind === 'object') return this.object(parts, at, depth);
    if (this.style.nested && kind === 'array') return this.list(parts, at, depth);
    // Values of the other types are JSON meeting every part and of this one type.
    const schema = conjunctionSchema(only ? parts : [...parts, { schema: { type: kind }, pointer: at }]);
    return seq(this.ws, this.ctx.value(schema, at, depth), this.ws);
  }

  /** An enum or const string, bare (or between newlines where the template writes so). */
  private literal(v: string): Expr {
    const framed = this.style.framedLiterals === true && !v.startsWith('\n') && !v.endsWith('\n');
    return framed ? alt(lit(v), lit(`\n${v}\n`)) : lit(v);
  }

  private anyWays(depth: number): Way[] {
    const { ctx, style } = this;
    if (!style.typed) return this.untypedAny(depth);
    const json = (schema: Schema): Expr => seq(this.ws, ctx.value(schema, '', depth), this.ws);
    // cohere_xml: any JSON value as JSON text under "json", never raw, dict or list (xgrammar's
    // reading of a value no schema describes; the text is JSON, so it reads back as written).
    if (style.nested) return [{ kind: 'object', name: 'json', expr: alt(...ANY_JSON.map(json)) }];
    return [
      { kind: 'string', expr: this.rawText },
      ...ANY_JSON.filter((s) => s.type !== 'string').map((s) => ({ kind: s.type, expr: json(s) })),
      { kind: 'integer', name: 'integer', expr: json({ type: 'integer' }) },
    ];
  }

  /** Raw text, a JSON array or a JSON object (numbers and booleans arrive as raw text). */
  private untypedAny(depth: number): Way[] {
    const { ctx, ws } = this;
    const expr = ctx.sharedRule(`xml_any_value_${this.name}`, () => alt(this.rawText, seq(ws, ctx.value({ type: 'array', items: true }, '', depth), ws), seq(ws, ctx.value({ type: 'object', additionalProperties: true }, '', depth), ws)));
    return [{ kind: 'string', expr }];
  }

  /** A cohere_xml list: unnamed values, whitespace around and between. */
  private list(parts: Part[], at: string, depth: number): Expr {
    const { ctx, ws } = this;
    for (const p of parts) {
      for (const keyword of ['prefixItems', 'unevaluatedItems', 'additionalItems', 'contains']) {
        if (keyword in p.schema) throw GrammarError.at(pointerJoin(p.pointer, keyword), `'${keyword}' is not supported inside a '${this.name}' value (lists are written item by item, all of one schema)`);
      }
      if (Array.isArray(p.schema.items)) throw GrammarError.at(pointerJoin(p.pointer, 'items'), `tuple 'items' is not supported inside a '${this.name}' value`);
      if (p.schema.uniqueItems === true) throw GrammarError.at(pointerJoin(p.pointer, 'uniqueItems'), `the keyword 'uniqueItems' cannot be enforced inside a '${this.name}' value`);
    }
    const given = parts.filter((p) => 'items' in p.schema).map((p) => ({ schema: p.schema.items as Schema, pointer: pointerJoin(p.pointer, 'items') }));
    const items = given.length === 0 ? { schema: !ctx.options.strictMode, pointer: at } : ctx.conjunction(given);
    const minItems = tightest(parts, 'minItems', true) ?? 0;
    let maxItems = tightest(parts, 'maxItems', false);
    if (items.schema === false) maxItems = 0;
    if (maxItems !== null && minItems > maxItems) return emptyAt(at, maxItems === 0 ? `'minItems' is ${minItems}, but no item is allowed` : `'minItems' (${minItems}) is greater than 'maxItems' (${maxItems})`);
    if (maxItems === 0) return ws;
    const item = seq(lit('<cofl:value'), this.tail(items.schema, items.pointer, depth + 1));
    const some = seq(ws, item, rep(seq(ws, item), Math.max(minItems - 1, 0), maxItems === null ? -1 : maxItems - 1), ws);
    return minItems === 0 ? alt(ws, some) : some;
  }
}

/** Any parameters: keys as for additionalProperties, values of any type. */
const ANY_ARGUMENTS = { type: 'object', additionalProperties: true };

/** Every JSON value, one schema per type (objects and arrays open under strict mode). */
const ANY_JSON: readonly { type: Kind; items?: true; additionalProperties?: true }[] = [
  { type: 'string' },
  { type: 'number' },
  { type: 'boolean' },
  { type: 'null' },
  { type: 'array', items: true },
  { type: 'object', additionalProperties: true },
];

function isAny(schema: Schema): boolean {
  return schema === true || (isObject(schema) && !partsOfConjunction(schema) && !hasAssertions(schema));
}
