// XML tool-call styles: the top-level arguments object is written as parameters, without
// braces, separated by whitespace; values nested deeper are plain JSON.
//   qwen_xml      <parameter=KEY>V</parameter>
//   minimax_xml   <parameter name="KEY">V</parameter>
//   deepseek_xml  <｜DSML｜parameter name="KEY" string="true|false">V</｜DSML｜parameter>
//   glm_xml       <arg_key>KEY</arg_key> ws <arg_value>V</arg_value>
// A string value is raw text: unconstrained, it is anything up to the closing tag (which it
// cannot contain); with pattern, format or length it follows them over raw characters; an
// enum or const string is written bare (for qwen_xml also between newlines, as Qwen3-Coder's
// template writes every value). Anything else is whitespace, JSON, whitespace; a value that
// may be anything is raw text, a JSON array or a JSON object.
import { GrammarError, pointerJoin } from '../errors.js';
import { alt, cls, type Expr, lit, NOTHING, seq, star } from '../ir.js';
import { normalizeRanges } from '../charset.js';
import { excludingTrie } from './json-chars.js';
import { DEFAULT_MAX_WHITESPACE, whitespace } from './options.js';
import { emptyAt, isObject, type Lowering, type Schema } from './lowering.js';
import { entrySequence, objectShape } from './objects.js';
import { commonTypes, conjunctionOf, partsOfConjunction } from './parts.js';
import { constrainedContent, RAW_SPELLING, stringConstraints } from './strings.js';

interface Style {
  /** `ws`: the whitespace allowed between parts of the opening (bounded like all whitespace). */
  open(key: Expr, ws: Expr): Expr;
  close: string;
  /** The family's template writes each value between newlines: an enum or const string may be too. */
  framedLiterals?: boolean;
}

const utf8 = new TextEncoder();

const STYLES: Record<string, Style> = {
  qwen_xml: { open: (k) => seq(lit('<parameter='), k, lit('>')), close: '</parameter>', framedLiterals: true },
  minimax_xml: { open: (k) => seq(lit('<parameter name="'), k, lit('">')), close: '</parameter>' },
  deepseek_xml: {
    open: (k) => seq(lit('<｜DSML｜parameter name="'), k, lit('" string="'), alt(lit('true'), lit('false')), lit('">')),
    close: '</｜DSML｜parameter>',
  },
  glm_xml: {
    open: (k, ws) => seq(lit('<arg_key>'), k, lit('</arg_key>'), ws, lit('<arg_value>')),
    close: '</arg_value>',
  },
};

const ID_START = normalizeRanges([0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a]);
const ID_REST = normalizeRanges([0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a]);

/** Identifiers `[A-Za-z_][A-Za-z0-9_]*` other than `names`. */
function identifierExcluding(names: string[]): Expr {
  const words = names.filter((n) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(n)).map((n) => [...n].map((ch) => ch.charCodeAt(0)));
  return excludingTrie(words, (depth) => (depth === 0 ? ID_START : ID_REST), (c) => lit(String.fromCharCode(c)), (others) => seq(cls(others), star(cls(ID_REST))), true);
}

export function lowerXmlRoot(ctx: Lowering, root: Schema, styleName: string): Expr {
  const style = STYLES[styleName];
  if (!style) throw GrammarError.at('', `unknown style '${styleName}'`);
  const { schema, pointer } = ctx.resolve(root, '');
  if (!isObject(schema) || (schema.type !== undefined && schema.type !== 'object')) {
    throw GrammarError.at(pointer, `the '${styleName}' style needs an object schema at the top level`);
  }
  for (const keyword of ['patternProperties', 'propertyNames', 'unevaluatedProperties', 'allOf']) {
    if (schema[keyword] !== undefined) throw GrammarError.at(pointerJoin(pointer, keyword), `'${keyword}' is not supported with the '${styleName}' style`);
  }
  const rawText = ctx.rule('xml_raw_text', {
    kind: 'tagDispatch',
    tags: [],
    loop: false,
    excludes: [utf8.encode(style.close)],
  });
  const ws = ctx.fmt.ws();
  // GLM writes a newline inside the opening whatever the layout elsewhere.
  const gap = ctx.fmt.anyWhitespace ? ws : whitespace(DEFAULT_MAX_WHITESPACE);
  const param = (key: Expr, value: Expr): Expr => seq(style.open(key, gap), value, lit(style.close));
  const shape = objectShape(
    ctx,
    [{ schema: { ...schema, type: 'object' }, pointer }],
    pointer,
    0,
    {
      declared: (name, value) => param(lit(name), value),
      additional: (names, value) => param(identifierExcluding(names), value),
      pattern: () => NOTHING,
    },
    (s, at) => xmlValue(ctx, s, at, rawText, style.framedLiterals === true),
  );
  if ('empty' in shape) return emptyAt(pointer, shape.empty);
  const { nonEmpty, emptyAllowed } = entrySequence(ctx, shape, ws, 'xml');
  const body = seq(ws, nonEmpty, ws);
  return emptyAllowed ? alt(ws, body) : body;
}

function xmlValue(ctx: Lowering, s: Schema, pointer: string, rawText: Expr, framedLiterals: boolean): Expr {
  const resolved = ctx.resolve(s, pointer);
  const schema = resolved.schema;
  const at = resolved.pointer;
  if (isObject(schema) && (partsOfConjunction(schema) || Array.isArray(schema.allOf) || typeof schema.$ref === 'string')) {
    // A conjunction that may be a string would be written as JSON: not this layout's raw text.
    const parts = conjunctionOf(schema, at, ctx.lookupRef);
    if (Array.isArray(parts) && commonTypes(parts).includes('string')) throw GrammarError.at(at, `a string value made of several schemas ('allOf', '$ref' with keywords beside it) is not supported in an XML style`);
    return seq(ctx.fmt.ws(), ctx.value(schema, at, 1), ctx.fmt.ws());
  }
  const ws = ctx.fmt.ws();
  if (schema === true || (isObject(schema) && Object.keys(schema).filter((k) => !['title', 'description', '$comment', 'default', 'examples'].includes(k)).length === 0)) {
    return ctx.rule('xml_any_value', alt(rawText, seq(ws, ctx.value({ type: 'array', items: true }, at, 1), ws), seq(ws, ctx.value({ type: 'object', additionalProperties: true }, at, 1), ws)));
  }
  if (!isObject(schema) || schema.type !== 'string') return seq(ws, ctx.value(schema, at, 1), ws);
  if ('const' in schema || Array.isArray(schema.enum)) {
    const values = ('const' in schema ? [schema.const] : (schema.enum as unknown[])).filter((v): v is string => typeof v === 'string');
    // Framed as "\n" v "\n" too, unless v itself starts or ends with one (the tool-call parser
    // takes a listed value as it is, else unframes it).
    const framed = (v: string): boolean => framedLiterals && !v.startsWith('\n') && !v.endsWith('\n');
    if (values.length === 0) return emptyAt(at, `none of the ${'const' in schema ? "'const'" : "'enum'"} values is a string`);
    return alt(...values.map((v) => (framed(v) ? alt(lit(v), lit(`\n${v}\n`)) : lit(v))));
  }
  return constrainedContent(stringConstraints([{ schema, pointer: at }]), RAW_SPELLING, at) ?? rawText;
}

