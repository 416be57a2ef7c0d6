// Conjunctions of schemas. `allOf`, a `$ref` with keywords beside it, and the keywords next to
// an `anyOf`/`oneOf` branch all say "every one of these schemas holds". They are lowered as one
// list of parts, each keyword read across all of them (the tightest bound, every pattern, the
// value schemas of every part that applies to a key), which is exact where a keyword-by-keyword
// merge would not be. Each part keeps the pointer of the schema it comes from, for errors and
// for checking enum values against it.
import { GrammarError, pointerJoin } from '../errors.js';
import { isObject, type Schema } from './lowering.js';

export interface Part {
  /** The schema's own keywords (allOf and $ref taken out: their parts are listed apart). */
  schema: Record<string, unknown>;
  /** Where the whole schema is; it is valid to check a value against all of it. */
  pointer: string;
  /** With unevaluatedProperties or unevaluatedItems: the parts whose keywords evaluate keys
   * and items for it (the schema's own subtree of allOf and $ref). */
  scope?: Part[];
}

/** A value must satisfy every part; `false` marks a part that no value satisfies. */
export type Conjunction = Part[] | { falseAt: string };

const PARTS = Symbol('parts');

/** A schema standing for the conjunction of parts (a property that two patterns give schemas). */
export function conjunctionSchema(parts: Part[]): Schema {
  return { [PARTS]: parts } as unknown as Schema;
}

export function partsOfConjunction(schema: Schema): Part[] | null {
  return isObject(schema) ? ((schema as { [PARTS]?: Part[] })[PARTS] ?? null) : null;
}

/** Keywords that do not constrain a value (nor point at schemas that would). */
export const NON_ASSERTIONS = new Set([
  'title', 'description', 'examples', 'default', '$comment', '$schema', '$id', '$defs', 'definitions',
  'deprecated', 'readOnly', 'writeOnly', 'contentMediaType', 'contentEncoding', 'contentSchema', '$vocabulary', 'discriminator',
]);

export function hasAssertions(schema: Record<string, unknown>): boolean {
  // `uniqueItems: false` allows every array.
  return Object.keys(schema).some((k) => !NON_ASSERTIONS.has(k) && !(k === 'uniqueItems' && schema[k] === false));
}

/**
 * The parts of a schema: its allOf members and $ref target (recursively, following chains)
 * and its own remaining keywords. `resolve(ref, at)` looks a reference up. A conjunction that
 * refers back into itself ({"allOf": [{"$ref": "#"}]}) is an error: its value would have to
 * contain itself at the same level.
 */
export function conjunctionOf(schema: Schema, pointer: string, resolve: (ref: string, at: string) => { schema: Schema; pointer: string }): Conjunction {
  const out: Part[] = [];
  const onStack = new Set<string>();
  let falseAt: string | null = null;
  const visit = (s: Schema, at: string): void => {
    if (falseAt !== null || s === true) return;
    if (s === false) {
      falseAt = at;
      return;
    }
    const given = partsOfConjunction(s);
    if (given) {
      out.push(...given);
      return;
    }
    if (onStack.has(at)) throw GrammarError.at(at, 'this schema is part of itself through allOf or $ref: a value would have to satisfy it inside itself, at the same level');
    onStack.add(at);
    const first = out.length;
    if (typeof s.$ref === 'string') {
      const target = resolve(s.$ref, pointerJoin(at, '$ref'));
      visit(target.schema, target.pointer);
    }
    if (Array.isArray(s.allOf)) (s.allOf as Schema[]).forEach((member, i) => visit(member, pointerJoin(at, 'allOf', i)));
    const own = 'allOf' in s || '$ref' in s ? Object.fromEntries(Object.entries(s).filter(([k]) => k !== 'allOf' && k !== '$ref')) : s;
    if (hasAssertions(own)) {
      const part: Part = { schema: own, pointer: at };
      out.push(part);
      if ('unevaluatedProperties' in own || 'unevaluatedItems' in own) {
        part.scope = out.slice(first);
        // Which keys and items an anyOf branch evaluates depends on which branches match.
        const keyword = 'unevaluatedProperties' in own ? 'unevaluatedProperties' : 'unevaluatedItems';
        if (part.scope.some((p) => 'anyOf' in p.schema || 'oneOf' in p.schema)) throw GrammarError.at(pointerJoin(at, keyword), `'${keyword}' beside 'anyOf' or 'oneOf' cannot be enforced exactly (what is evaluated depends on which branches match)`);
      }
    }
    onStack.delete(at);
  };
  visit(schema, pointer);
  return falseAt !== null ? { falseAt } : out;
}

/** A key for memoising a conjunction's rule: the parts by place and keywords. */
export function conjunctionKey(parts: Part[]): string {
  return parts.map((p) => `${p.pointer}{${Object.keys(p.schema).sort().join(',')}}`).join('&');
}

/** Each part's value of a keyword, where it has one, with the keyword's pointer. */
export function keywordValues<T>(parts: Part[], keyword: string, isValue: (v: unknown) => v is T): { value: T; pointer: string }[] {
  const out: { value: T; pointer: string }[] = [];
  for (const p of parts) {
    const v = p.schema[keyword];
    if (isValue(v)) out.push({ value: v, pointer: pointerJoin(p.pointer, keyword) });
  }
  return out;
}

export const isNumber = (v: unknown): v is number => typeof v === 'number';
export const isString = (v: unknown): v is string => typeof v === 'string';

/** The largest lower bound (`larger`) or smallest upper bound among the parts, or null. */
export function tightest(parts: Part[], keyword: string, larger: boolean): number | null {
  let best: number | null = null;
  for (const { value } of keywordValues(parts, keyword, isNumber)) if (best === null || (larger ? value > best : value < best)) best = value;
  return best;
}

const ALL_TYPES = ['null', 'boolean', 'integer', 'number', 'string', 'array', 'object'];

/** The JSON types every part allows ('integer' apart from 'number': a number that is whole),
 * in the order the first part with a `type` writes them; OpenAPI's `nullable: true` adds null
 * to its part's `type` (its enum or const still decides whether null is among the values). */
export function commonTypes(parts: Part[]): string[] {
  let types: string[] | null = null;
  for (const p of parts) {
    const t = p.schema.type;
    if (t === undefined) continue;
    const own = [...(typeof t === 'string' ? [t] : (t as string[])), ...(p.schema.nullable === true ? ['null'] : [])];
    const withInteger = own.flatMap((x) => (x === 'number' && !own.includes('integer') ? ['number', 'integer'] : [x]));
    types = types === null ? withInteger : types.filter((x) => withInteger.includes(x));
  }
  return types ?? ALL_TYPES;
}
