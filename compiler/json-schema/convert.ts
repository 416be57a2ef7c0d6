// JSON Schema -> grammar IR. Types, enum/const, anyOf/oneOf, $ref (recursive too) and strings
// are here; objects, arrays and the XML styles have their own files.
import { GrammarError, pointerJoin } from '../errors.js';
import { alt, type Expr, GrammarBuilder, type GrammarIR, lit, ref, rep, seq } from '../ir.js';
import { MAX_NESTING } from '../limits.js';
import { checkNonEmpty } from '../passes/empty-language.js';
import { exprIsEmpty } from '../passes/productive.js';
import { regexToExpr } from '../regex/regex.js';
import { lowerArray } from './arrays.js';
import { checkSchema } from './check-schema.js';
import { checkSchemaSize } from './check-size.js';
import { constValue, valuesAllowedAt } from './constants.js';
import { FORMATS } from './formats.js';
import { JSON_CHAR_UNIT, JSON_STRING_BODY, jsonChars } from './json-chars.js';
import { emptyAt, isObject, type Lowering, type Schema } from './lowering.js';
import { intRange, numberRange } from './numbers.js';
import { lowerObject } from './objects.js';
import { combineBranches } from './combinators.js';
import { Formatting, type JsonSchemaOptions, MAX_INDENT_DEPTH } from './options.js';
import { lowerXmlRoot } from './xml.js';

export type { JsonSchemaOptions } from './options.js';

const ALL_TYPES = ['null', 'boolean', 'number', 'string', 'array', 'object'];

export function jsonSchemaToGrammar(schema: unknown, options: JsonSchemaOptions = {}): GrammarIR {
  checkSchemaSize(schema, options.strictMode ?? true);
  checkSchema(schema);
  const converter = new SchemaConverter(schema as Schema, options);
  const ir = converter.convert(options.style ?? 'json');
  checkNonEmpty(ir);
  return ir;
}

class SchemaConverter implements Lowering {
  readonly builder = new GrammarBuilder();
  readonly fmt: Formatting;
  readonly options: { strictMode: boolean; anyOrder: boolean };
  private readonly root: Schema;
  private readonly trailing: boolean;
  private readonly refRules = new Map<string, number>();
  private readonly shared = new Map<string, number>();
  /** Sub-schemas being lowered (following $refs), with how often each is on the path. */
  private readonly onPath = new Map<string, number>();
  /** The sub-schema being lowered, for errors of the rule-count limit. */
  private at = '';

  constructor(root: Schema, options: JsonSchemaOptions) {
    this.builder.limitRules(() => ({ kind: 'pointer', pointer: this.at }));
    this.root = root;
    this.trailing = options.trailingWhitespace ?? false;
    this.fmt = new Formatting(options);
    this.options = { strictMode: options.strictMode ?? true, anyOrder: options.anyOrder ?? false };
  }

  convert(style: string): GrammarIR {
    const root = this.builder.declare('root', { location: { kind: 'pointer', pointer: '' } });
    if (style === 'json') {
      // Nothing after the value: whitespace there would only keep a model going (inside a
      // structural tag one run may come, since the tag's end must follow).
      const value = this.value(this.root, '', 0);
      this.builder.define(root, this.trailing ? seq(this.fmt.ws(), value, this.fmt.ws()) : seq(this.fmt.ws(), value));
    } else {
      this.builder.define(root, lowerXmlRoot(this, this.root, style));
    }
    return this.builder.build(root);
  }

  rule(name: string, body: Expr, pointer?: string): Expr {
    return ref(this.builder.add(name, body, null, pointer === undefined ? undefined : { location: { kind: 'pointer', pointer } }));
  }

  /** A rule built once per key (basic types, any value per depth). */
  private sharedRule(key: string, make: (id: number) => Expr): Expr {
    let id = this.shared.get(key);
    if (id === undefined) {
      id = this.builder.declare(key.replace(/[^A-Za-z0-9_]/g, '_'));
      this.shared.set(key, id);
      this.builder.define(id, make(id));
    }
    return ref(id);
  }

  resolve(schema: Schema, pointer: string): { schema: Schema; pointer: string } {
    const seen = new Set<string>();
    while (isObject(schema) && typeof schema.$ref === 'string') {
      const target = targetPointer(schema.$ref);
      if (seen.has(target)) throw GrammarError.at(pointerJoin(pointer, '$ref'), 'the reference only leads to itself');
      seen.add(target);
      schema = lookup(this.root, target, pointerJoin(pointer, '$ref'));
      pointer = target;
    }
    return { schema, pointer };
  }

  value(schema: Schema, pointer: string, depth: number): Expr {
    // Distinct sub-schemas on the path, following $refs: a chain of definitions nests like
    // inline sub-schemas. (With `indent` a recursive schema is unrolled per depth; the same
    // sub-schema again does not count twice.)
    const seen = this.onPath.get(pointer) ?? 0;
    if (seen === 0 && this.onPath.size + 1 > MAX_NESTING + 1) {
      throw GrammarError.at(pointer, `sub-schemas nest more than ${MAX_NESTING} levels deep here, counting each '$ref' followed (the limit)`);
    }
    const outer = this.at;
    this.onPath.set(pointer, seen + 1);
    this.at = pointer;
    try {
      return this.lower(schema, pointer, depth);
    } finally {
      if (seen === 0) this.onPath.delete(pointer);
      else this.onPath.set(pointer, seen);
      this.at = outer;
    }
  }

  private lower(schema: Schema, pointer: string, depth: number): Expr {
    if (this.fmt.depthMatters && depth > MAX_INDENT_DEPTH) return emptyAt(pointer, `with 'indent', values nest at most ${MAX_INDENT_DEPTH} levels deep`);
    if (schema === true || isUnconstrained(schema)) return this.anyValue(depth);
    if (schema === false) return emptyAt(pointer, 'the schema is false: no value matches it');
    if (typeof schema.$ref === 'string') return this.reference(schema, pointer, depth);
    if (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf)) {
      const branches = combineBranches(this, schema, pointer);
      return alt(...branches.map((b) => this.value(b.schema, b.pointer, depth)));
    }
    if ('const' in schema || Array.isArray(schema.enum)) {
      const values = valuesAllowedAt(this.root, schema, pointer);
      if (values.length === 0) return emptyAt(pointer, noValueAllowed(schema));
      return alt(...values.map((v) => constValue(this.fmt, v, depth)));
    }
    let types = typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? (schema.type as string[]) : ALL_TYPES;
    if (types.includes('number')) types = types.filter((t) => t !== 'integer');
    return alt(...types.map((t) => this.typed(t, schema, pointer, depth)));
  }

  private reference(schema: Record<string, unknown>, pointer: string, depth: number): Expr {
    const extra = Object.keys(schema).filter((k) => !['$ref', '$defs', 'definitions', 'title', 'description', '$comment', 'default', 'examples'].includes(k));
    if (extra.length > 0) throw GrammarError.at(pointerJoin(pointer, extra[0]!), `keywords next to '$ref' are not supported`);
    const target = targetPointer(schema.$ref as string);
    const key = this.fmt.depthMatters ? `${target}@${depth}` : target;
    let id = this.refRules.get(key);
    if (id === undefined) {
      const resolved = lookup(this.root, target, pointerJoin(pointer, '$ref'));
      id = this.builder.declare(ruleNameOf(target), { location: { kind: 'pointer', pointer: target } });
      this.refRules.set(key, id);
      this.builder.define(id, this.value(resolved, target, depth));
    }
    return ref(id);
  }

  private typed(type: string, schema: Record<string, unknown>, pointer: string, depth: number): Expr {
    switch (type) {
      case 'null':
        return lit('null');
      case 'boolean':
        return alt(lit('true'), lit('false'));
      case 'integer':
        return this.integer(schema, pointer);
      case 'number':
        return this.number(schema, pointer);
      case 'string':
        return this.string(schema, pointer);
      case 'array':
        return lowerArray(this, schema, pointer, depth);
      case 'object':
        return lowerObject(this, schema, pointer, depth);
      default:
        throw GrammarError.at(pointerJoin(pointer, 'type'), `unknown type '${type}'`);
    }
  }

  private integer(schema: Record<string, unknown>, pointer: string): Expr {
    const { lo, hi } = bounds(schema);
    const floorOf = (x: number): bigint => BigInt(Math.floor(x));
    const ceilOf = (x: number): bigint => BigInt(Math.ceil(x));
    const min = lo === null ? null : lo.strict ? floorOf(lo.value) + 1n : ceilOf(lo.value);
    const max = hi === null ? null : hi.strict ? ceilOf(hi.value) - 1n : floorOf(hi.value);
    if (min === null && max === null) return this.sharedRule('basic_integer', () => intRange(null, null));
    if (min !== null && max !== null && min > max) return emptyAt(pointer, emptyRange(lo!, hi!, 'integer'));
    return intRange(min, max);
  }

  private number(schema: Record<string, unknown>, pointer: string): Expr {
    const b = bounds(schema);
    if (b.lo === null && b.hi === null) {
      return this.sharedRule('basic_number', () =>
        seq(rep(lit('-'), 0, 1), alt(lit('0'), seq({ kind: 'class', ranges: [0x31, 0x39] }, rep({ kind: 'class', ranges: [0x30, 0x39] }, 0, -1))),
          rep(seq(lit('.'), rep({ kind: 'class', ranges: [0x30, 0x39] }, 1, -1)), 0, 1),
          rep(seq({ kind: 'class', ranges: [0x45, 0x45, 0x65, 0x65] }, rep({ kind: 'class', ranges: [0x2b, 0x2b, 0x2d, 0x2d] }, 0, 1), rep({ kind: 'class', ranges: [0x30, 0x39] }, 1, -1)), 0, 1)),
      );
    }
    if (b.lo && b.hi && (b.lo.value > b.hi.value || (b.lo.value === b.hi.value && (b.lo.strict || b.hi.strict)))) return emptyAt(pointer, emptyRange(b.lo, b.hi, 'number'));
    return numberRange(b);
  }

  private string(schema: Record<string, unknown>, pointer: string): Expr {
    const pattern = typeof schema.pattern === 'string' ? schema.pattern : null;
    const format = typeof schema.format === 'string' ? schema.format : null;
    const hasLength = typeof schema.minLength === 'number' || typeof schema.maxLength === 'number';
    const quote = lit('"');
    if (pattern !== null && format !== null) throw GrammarError.at(pointerJoin(pointer, 'format'), "'format' together with 'pattern' cannot be enforced");
    if ((pattern !== null || format !== null) && hasLength) {
      throw GrammarError.at(pointerJoin(pointer, typeof schema.minLength === 'number' ? 'minLength' : 'maxLength'), `a length limit together with '${pattern !== null ? 'pattern' : 'format'}' cannot be enforced`);
    }
    if (pattern !== null) {
      const expr = this.patternString(pattern, pointerJoin(pointer, 'pattern'));
      return exprIsEmpty(expr) ? emptyAt(pointer, "'pattern' matches no string") : expr;
    }
    if (format !== null) return seq(quote, regexToExpr(FORMATS[format]!, { chars: jsonChars }), quote);
    if (hasLength) {
      const min = (schema.minLength as number | undefined) ?? 0;
      const max = (schema.maxLength as number | undefined) ?? -1;
      if (max !== -1 && max < min) return emptyAt(pointer, `'minLength' (${min}) is greater than 'maxLength' (${max})`);
      const unit = this.sharedRule('json_char', () => JSON_CHAR_UNIT);
      return seq(quote, rep(unit, min, max), quote);
    }
    return this.sharedRule('basic_string', () => seq(quote, JSON_STRING_BODY, quote));
  }

  patternString(pattern: string, pointer: string): Expr {
    try {
      return seq(lit('"'), regexToExpr(pattern, { chars: jsonChars, search: true }), lit('"'));
    } catch (error) {
      if (error instanceof GrammarError) throw GrammarError.at(pointer, error.message);
      throw error;
    }
  }

  anyValue(depth: number): Expr {
    const key = this.fmt.depthMatters ? `any_value_${depth}` : 'any_value';
    if (this.fmt.depthMatters && depth > MAX_INDENT_DEPTH) return emptyAt(this.at, `with 'indent', values nest at most ${MAX_INDENT_DEPTH} levels deep`);
    return this.sharedRule(key, () => {
      const inner = this.anyValue(depth + 1);
      const str = this.string({}, '');
      const member = seq(str, this.fmt.keySep(), inner);
      const object = this.fmt.container('{', '}', depth, seq(member, rep(seq(this.fmt.itemSep(depth), member), 0, -1)), true);
      const array = this.fmt.container('[', ']', depth, seq(inner, rep(seq(this.fmt.itemSep(depth), inner), 0, -1)), true);
      return alt(lit('null'), lit('true'), lit('false'), this.number({}, ''), str, array, object);
    });
  }
}

function bounds(schema: Record<string, unknown>): { lo: { value: number; strict: boolean } | null; hi: { value: number; strict: boolean } | null } {
  let lo: { value: number; strict: boolean } | null = null;
  let hi: { value: number; strict: boolean } | null = null;
  const tighten = (value: unknown, strict: boolean, lower: boolean): void => {
    if (typeof value !== 'number') return;
    const cur = lower ? lo : hi;
    const better = cur === null || (lower ? value > cur.value : value < cur.value) || (value === cur.value && strict);
    if (better) {
      if (lower) lo = { value, strict };
      else hi = { value, strict };
    }
  };
  tighten(schema.minimum, false, true);
  tighten(schema.exclusiveMinimum, true, true);
  tighten(schema.maximum, false, false);
  tighten(schema.exclusiveMaximum, true, false);
  return { lo, hi };
}

type Bound = { value: number; strict: boolean };

/** Why no value lies between two bounds (they are known to leave none). */
function emptyRange(lo: Bound, hi: Bound, type: 'integer' | 'number'): string {
  const loText = `'${lo.strict ? 'exclusiveMinimum' : 'minimum'}' (${lo.value})`;
  const hiText = `'${hi.strict ? 'exclusiveMaximum' : 'maximum'}' (${hi.value})`;
  if (lo.value > hi.value) return `${loText} is greater than ${hiText}`;
  if (lo.value === hi.value) return `${loText} and ${hiText} leave no value`;
  return `no ${type} lies between ${loText} and ${hiText}`;
}

/** Why an enum or const allows nothing: it is empty, or the other keywords reject every value. */
function noValueAllowed(schema: Record<string, unknown>): string {
  if (!('const' in schema) && (schema.enum as unknown[]).length === 0) return "'enum' is empty: no value matches it";
  const others = Object.keys(schema).filter((k) => k !== 'const' && k !== 'enum' && !NON_ASSERTIONS.has(k)).map((k) => `'${k}'`).join(', ');
  return 'const' in schema ? `the 'const' value does not satisfy ${others}` : `none of the 'enum' values satisfies ${others}`;
}

const NON_ASSERTIONS = new Set(['title', 'description', 'examples', 'default', '$comment', '$schema', '$id', '$defs', 'definitions', 'deprecated', 'readOnly', 'writeOnly', 'contentMediaType', 'contentEncoding']);

/** `{}` and schemas with only annotations accept any value, strict mode or not. */
function isUnconstrained(schema: Schema): boolean {
  return isObject(schema) && Object.keys(schema).every((k) => NON_ASSERTIONS.has(k));
}

function targetPointer(refText: string): string {
  return refText.slice(1).split('/').map((s) => decodeURIComponent(s)).join('/');
}

function lookup(root: Schema, pointer: string, at: string): Schema {
  let cur: unknown = root;
  if (pointer !== '') {
    for (const raw of pointer.split('/').slice(1)) {
      const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      cur = isObject(cur) || Array.isArray(cur) ? (cur as Record<string, unknown>)[seg] : undefined;
    }
  }
  if (cur === undefined || (typeof cur !== 'boolean' && !isObject(cur))) {
    throw GrammarError.at(at, `the reference '#${pointer}' does not resolve to a schema`);
  }
  return cur as Schema;
}

function ruleNameOf(pointer: string): string {
  const last = pointer.split('/').at(-1) ?? '';
  return last === '' ? 'root_ref' : `def_${last.replace(/[^A-Za-z0-9_]/g, '_')}`;
}

