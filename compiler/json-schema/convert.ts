// JSON Schema -> grammar IR. A schema is lowered as a conjunction of parts (parts.ts: allOf,
// $ref with keywords beside it, a combinator's branch with its siblings); types, enum/const,
// anyOf/oneOf and $ref are here; numbers, strings, objects, arrays and the XML styles have
// their own files.
import { GrammarError, pointerJoin } from '../errors.js';
import { alt, type Expr, GrammarBuilder, type GrammarIR, lit, ref, rep, seq } from '../ir.js';
import { MAX_NESTING } from '../limits.js';
import { checkNonEmpty } from '../passes/empty-language.js';
import { lowerArray } from './arrays.js';
import { checkSchema } from './check-schema.js';
import { checkSchemaSize } from './check-size.js';
import { combinatorPart, distribute } from './combinators.js';
import { constValue, holdsValues, valuesAllowed } from './constants.js';
import { emptyAt, isObject, type Lowering, type Schema } from './lowering.js';
import { integerFormats, isUnboundedNumeric, lowerInteger, lowerNumber } from './numeric.js';
import { intRange, MAX_FREE_DIGITS } from './numbers.js';
import { lowerObject } from './objects.js';
import { Formatting, type JsonSchemaOptions, MAX_INDENT_DEPTH } from './options.js';
import { commonTypes, conjunctionKey, conjunctionOf, conjunctionSchema, hasAssertions, NON_ASSERTIONS, type Part, partsOfConjunction } from './parts.js';
import { refResolver, ruleNameOf, targetPointer } from './refs.js';
import { JSON_SPELLING, lowerString, patternContent } from './strings.js';
import { lowerXmlRoot } from './xml.js';

export type { JsonSchemaOptions } from './options.js';

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
  readonly options: { strictMode: boolean; anyOrder: boolean; openBareObjects: boolean };
  readonly root: Schema;
  readonly lookupRef: Lowering['lookupRef'];
  private readonly trailing: boolean;
  /** Rules of referenced schemas and of conjunctions, declared before they are lowered (recursion). */
  private readonly memo = new Map<string, number>();
  private readonly shared = new Map<string, number>();
  /** Sub-schemas being lowered (following $refs), with how often each is on the path. */
  private readonly onPath = new Map<string, number>();
  /** The sub-schema being lowered, for errors of the rule-count limit. */
  private at = '';

  constructor(root: Schema, options: JsonSchemaOptions) {
    this.builder.limitRules(() => ({ kind: 'pointer', pointer: this.at }));
    this.root = root;
    this.lookupRef = refResolver(root);
    this.trailing = options.trailingWhitespace ?? false;
    this.fmt = new Formatting(options);
    this.options = { strictMode: options.strictMode ?? true, anyOrder: options.anyOrder ?? false, openBareObjects: options.openBareObjects ?? false };
  }

  convert(style: string): GrammarIR {
    const root = this.builder.declare('root', { location: { kind: 'pointer', pointer: '' } });
    if (style === 'json') {
      // The value alone: whitespace before it is where a model whose first choice is masked
      // drifts into runs of spaces, and after it only keeps a model going. Inside a
      // structural tag one run may come on each side (the tag's end must follow).
      const value = this.value(this.root, '', 0);
      this.builder.define(root, this.trailing ? seq(this.fmt.ws(), value, this.fmt.ws()) : value);
    } else {
      this.builder.define(root, lowerXmlRoot(this, this.root, style));
    }
    return this.builder.build(root);
  }

  rule(name: string, body: Expr, pointer?: string): Expr {
    return ref(this.builder.add(name, body, null, pointer === undefined ? undefined : { location: { kind: 'pointer', pointer } }));
  }

  uniqueItemsRule(name: string, body: Expr, pointer: string): Expr {
    const id = this.builder.add(name, body, null, { location: { kind: 'pointer', pointer } });
    this.builder.rules[id]!.uniqueItems = true;
    return ref(id);
  }

  sharedRule(key: string, make: () => Expr): Expr {
    let id = this.shared.get(key);
    if (id === undefined) {
      id = this.builder.declare(key.replace(/[^A-Za-z0-9_]/g, '_'));
      this.shared.set(key, id);
      this.builder.define(id, make());
    }
    return ref(id);
  }

  /** A rule per key, declared before `make` runs, so a recursion reaching the same key refers to it. */
  private memoRule(key: string, name: string, pointer: string, make: () => Expr): Expr {
    const memoKey = this.fmt.depthMatters ? key : key.replace(/@\d+$/, '');
    let id = this.memo.get(memoKey);
    if (id === undefined) {
      id = this.builder.declare(name, { location: { kind: 'pointer', pointer } });
      this.memo.set(memoKey, id);
      this.builder.define(id, make());
    }
    return ref(id);
  }

  resolve(schema: Schema, pointer: string): { schema: Schema; pointer: string } {
    const seen = new Set<string>();
    while (isObject(schema) && typeof schema.$ref === 'string') {
      const at = pointerJoin(pointer, '$ref');
      if (seen.has(targetPointer(schema.$ref))) throw GrammarError.at(at, 'the reference only leads to itself');
      ({ schema, pointer } = this.lookupRef(schema.$ref, at));
      seen.add(pointer);
    }
    return { schema, pointer };
  }

  conjunction(members: { schema: Schema; pointer: string }[]): { schema: Schema; pointer: string } {
    const live = members.filter((m, i) => m.schema !== true && members.findIndex((o) => o.schema === m.schema && o.pointer === m.pointer) === i);
    if (live.length <= 1) return live[0] ?? { schema: true, pointer: members[0]?.pointer ?? this.at };
    const parts: Part[] = [];
    for (const m of live) {
      const own = conjunctionOf(m.schema, m.pointer, this.lookupRef);
      if (!Array.isArray(own)) return { schema: false, pointer: own.falseAt };
      parts.push(...own);
    }
    return { schema: conjunctionSchema(parts), pointer: live[0]!.pointer };
  }


  value(schema: Schema, pointer: string, depth: number): Expr {
    // Distinct sub-schemas on the path, following $refs: a chain of definitions nests like
    // inline sub-schemas. (With `indent` a recursive schema is unrolled per depth; the same
    // sub-schema again does not count twice.)
    const given = partsOfConjunction(schema);
    const pathKey = given ? conjunctionKey(given) : pointer;
    const seen = this.onPath.get(pathKey) ?? 0;
    if (seen === 0 && this.onPath.size + 1 > MAX_NESTING + 1) {
      throw GrammarError.at(pointer, `sub-schemas nest more than ${MAX_NESTING} levels deep here, counting each '$ref' followed (the limit)`);
    }
    const outer = this.at;
    this.onPath.set(pathKey, seen + 1);
    this.at = pointer;
    try {
      return this.lower(schema, pointer, depth);
    } finally {
      if (seen === 0) this.onPath.delete(pathKey);
      else this.onPath.set(pathKey, seen);
      this.at = outer;
    }
  }

  private lower(schema: Schema, pointer: string, depth: number): Expr {
    if (this.fmt.depthMatters && depth > MAX_INDENT_DEPTH) return emptyAt(pointer, `with 'indent', values nest at most ${MAX_INDENT_DEPTH} levels deep`);
    if (schema === false) return emptyAt(pointer, 'the schema is false: no value matches it');
    if (schema === true || (!partsOfConjunction(schema) && !hasAssertions(schema))) return this.anyValue(depth);
    if (typeof schema.$ref === 'string' && Object.keys(schema).every((k) => k === '$ref' || NON_ASSERTIONS.has(k))) return this.reference(schema.$ref, pointer, depth);
    const parts = conjunctionOf(schema, pointer, this.lookupRef);
    if (!Array.isArray(parts)) return emptyAt(parts.falseAt, 'the schema is false: no value matches it');
    if (parts.length === 0) return this.anyValue(depth);
    if (parts.length === 1 && parts[0]!.schema === schema) return this.lowerParts(parts, pointer, depth);
    // A conjunction: one rule per distinct one, so a recursion through it ends.
    return this.memoRule(`${conjunctionKey(parts)}@${depth}`, `${ruleNameOf(pointer)}_all`, pointer, () => this.lowerParts(parts, pointer, depth));
  }

  private reference(refText: string, pointer: string, depth: number): Expr {
    const { schema: resolved, pointer: target } = this.lookupRef(refText, pointerJoin(pointer, '$ref'));
    return this.memoRule(`#${target}@${depth}`, ruleNameOf(target), target, () => this.value(resolved, target, depth));
  }

  /** Values meeting every part. */
  private lowerParts(parts: Part[], pointer: string, depth: number): Expr {
    const split = combinatorPart(parts);
    if (split >= 0) {
      return alt(
        ...distribute(parts, split, this.lookupRef).map((b) => {
          if (b.alone) return this.value(b.alone.schema, b.alone.pointer, depth);
          const c = b.conjunction!;
          if (!Array.isArray(c)) return emptyAt(c.falseAt, 'the schema is false: no value matches it');
          return c.length === 0 ? this.anyValue(depth) : this.memoRule(`${conjunctionKey(c)}@${depth}`, `${ruleNameOf(b.pointer)}_branch`, b.pointer, () => this.lowerParts(c, b.pointer, depth));
        }),
      );
    }
    if (parts.some(holdsValues)) {
      const values = valuesAllowed(this.root, parts);
      if (values.length === 0) return emptyAt(pointer, noValueAllowed(parts));
      return alt(...values.map((v) => constValue(this.fmt, v, depth)));
    }
    let types = commonTypes(parts);
    if (types.length === 0) return emptyAt(pointer, `the parts' 'type' keywords (${parts.filter((p) => p.schema.type !== undefined).map((p) => JSON.stringify(p.schema.type)).join(', ')}) have no type in common`);
    if (types.includes('number')) types = types.filter((t) => t !== 'integer');
    return alt(...types.map((t) => this.typed(t, parts, pointer, depth)));
  }

  private typed(type: string, parts: Part[], pointer: string, depth: number): Expr {
    switch (type) {
      case 'null':
        return lit('null');
      case 'boolean':
        return alt(lit('true'), lit('false'));
      case 'integer':
        return isUnboundedNumeric(parts) ? this.sharedRule('basic_integer', () => intRange(null, null)) : lowerInteger(parts, pointer);
      case 'number':
        // An integer format (int32, int64) makes a number an integer, as ajv-formats checks it.
        if (integerFormats(parts).length > 0) return lowerInteger(parts, pointer);
        return isUnboundedNumeric(parts) ? this.basicNumber() : lowerNumber(parts, pointer);
      case 'string':
        return lowerString(this, parts, pointer);
      case 'array':
        return lowerArray(this, parts, pointer, depth);
      case 'object':
        return lowerObject(this, parts, pointer, depth);
      default:
        throw GrammarError.at(pointerJoin(pointer, 'type'), `unknown type '${type}'`);
    }
  }

  private basicNumber(): Expr {
    return this.sharedRule('basic_number', () =>
      seq(rep(lit('-'), 0, 1), alt(lit('0'), seq({ kind: 'class', ranges: [0x31, 0x39] }, rep({ kind: 'class', ranges: [0x30, 0x39] }, 0, MAX_FREE_DIGITS))),
        rep(seq(lit('.'), rep({ kind: 'class', ranges: [0x30, 0x39] }, 1, MAX_FREE_DIGITS)), 0, 1),
        rep(seq({ kind: 'class', ranges: [0x45, 0x45, 0x65, 0x65] }, rep({ kind: 'class', ranges: [0x2b, 0x2b, 0x2d, 0x2d] }, 0, 1), rep({ kind: 'class', ranges: [0x30, 0x39] }, 1, MAX_FREE_DIGITS)), 0, 1)),
    );
  }

  patternString(pattern: string, pointer: string): Expr {
    return seq(lit('"'), patternContent(pattern, pointer, JSON_SPELLING), lit('"'));
  }

  anyValue(depth: number): Expr {
    const key = this.fmt.depthMatters ? `any_value_${depth}` : 'any_value';
    if (this.fmt.depthMatters && depth > MAX_INDENT_DEPTH) return emptyAt(this.at, `with 'indent', values nest at most ${MAX_INDENT_DEPTH} levels deep`);
    return this.sharedRule(key, () => {
      const inner = this.anyValue(depth + 1);
      const str = lowerString(this, [], '');
      const member = seq(str, this.fmt.keySep(), inner);
      const object = this.fmt.container('{', '}', depth, seq(member, rep(seq(this.fmt.itemSep(depth), member), 0, -1)), true);
      const array = this.fmt.container('[', ']', depth, seq(inner, rep(seq(this.fmt.itemSep(depth), inner), 0, -1)), true);
      return alt(lit('null'), lit('true'), lit('false'), this.basicNumber(), str, array, object);
    });
  }
}

/** Why an enum or const allows nothing: it is empty, or the other keywords reject every value. */
function noValueAllowed(parts: Part[]): string {
  const holder = parts.find(holdsValues)!.schema;
  if (!('const' in holder) && (holder.enum as unknown[]).length === 0) return "'enum' is empty: no value matches it";
  // The values come from the holder's const (else its enum); every other assertion is a reason.
  const source = 'const' in holder ? 'const' : 'enum';
  const others = [...new Set(parts.flatMap((p) => Object.keys(p.schema)))].filter((k) => k !== source && !NON_ASSERTIONS.has(k)).map((k) => `'${k}'`).join(', ');
  return source === 'const' ? `the 'const' value does not satisfy ${others}` : `none of the 'enum' values satisfies ${others}`;
}

