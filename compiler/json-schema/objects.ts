// Objects. Declared properties come in declaration order (required ones must appear), then
// other entries (which keys, with which values: object-keys.ts); min/maxProperties are
// tracked by indexing the tail rules with the number of entries so far. With anyOrder, one entry rule is repeated within
// the count bounds (the spec's rules: keys may repeat or be missing). Bounds that no object
// can meet make the object empty, with the reason (see emptyAt).
import { GrammarError } from '../errors.js';
import { alt, EMPTY, type Expr, lit, NOTHING, ref, rep, seq } from '../ir.js';
import { contentExcluding } from './json-chars.js';
import { emptyAt, type Lowering, type Schema } from './lowering.js';
import { type KeySpelling, planKeys } from './object-keys.js';
import { type Part, tightest } from './parts.js';

export interface Entry {
  expr: Expr;
  required: boolean;
}

/** The entries an object schema allows, in the order they are written. */
export interface ObjectShape {
  declared: Entry[];
  /** Any number of further entries (additional or pattern keys), or null. */
  extra: Expr | null;
  minProperties: number;
  maxProperties: number | null;
}

export interface KeyWriter {
  /** A declared key and its value. */
  declared(name: string, value: Expr): Expr;
  /** A key that is none of `declared`, and its value. */
  additional(declared: string[], value: Expr): Expr;
  /** A key matching the regex, and its value. */
  pattern(pattern: string, pointer: string, value: Expr): Expr;
  /** A key whose characters (between the quotes) `content` matches, and its value; absent
   * where the layout cannot write such keys. */
  region?(content: Expr, value: Expr): Expr;
}

/** How a property value is lowered (JSON by default; the XML styles write raw text). */
export type ValueWriter = (schema: Schema, pointer: string) => Expr;

/** The shape of an object with every part's keywords (object-keys.ts), or why none matches. */
export function objectShape(ctx: Lowering, parts: Part[], pointer: string, depth: number, keys: KeyWriter, valueOf?: ValueWriter, spelling?: KeySpelling): ObjectShape | { empty: string } {
  const plan = planKeys(ctx, parts, pointer, spelling);
  if ('empty' in plan) return plan;
  const value = (v: { schema: Schema; pointer: string }): Expr => ctx.rule(`${ruleBase(v.pointer)}_value`, valueOf ? valueOf(v.schema, v.pointer) : ctx.value(v.schema, v.pointer, depth + 1), v.pointer);
  const declared = plan.declared.map((d) => ({ expr: keys.declared(d.name, value(d.value)), required: d.required }));
  const extras = plan.others.map((o) => {
    if (o.kind === 'excluding') return keys.additional(o.names, value(o.value));
    if (o.kind === 'pattern') return keys.pattern(o.pattern, o.pointer, value(o.value));
    if (!keys.region) throw GrammarError.at(o.pointer, 'keys given by patterns or property names are not supported in this layout');
    return keys.region(o.content, value(o.value));
  });
  const shape: ObjectShape = {
    declared,
    extra: extras.length > 0 ? ctx.rule(`${ruleBase(pointer)}_extra`, alt(...extras)) : null,
    minProperties: tightest(parts, 'minProperties', true) ?? 0,
    maxProperties: tightest(parts, 'maxProperties', false),
  };
  const problem = countProblem(shape, ctx.options.anyOrder);
  return problem === null ? shape : { empty: problem };
}

/** Why the property count bounds leave no object, or null. */
function countProblem(shape: ObjectShape, anyOrder: boolean): string | null {
  const { minProperties: min, maxProperties: max } = shape;
  const required = shape.declared.filter((d) => d.required).length;
  if (max !== null && min > max) return `'minProperties' (${min}) is greater than 'maxProperties' (${max})`;
  if (max !== null && required > max) return `${required} properties are required, but 'maxProperties' is ${max}`;
  // With anyOrder keys may repeat, so any declared key can fill the count.
  const most = shape.extra !== null || (anyOrder && shape.declared.length > 0) ? Infinity : shape.declared.length;
  if (min > most) return `'minProperties' is ${min}, but ${most === 0 ? 'no property is' : most === 1 ? 'only 1 property is' : `only ${most} properties are`} allowed (no additional properties)`;
  return null;
}

export function ruleBase(pointer: string): string {
  const parts = pointer.split('/').filter((p) => p !== '' && p !== 'properties');
  const name = parts.slice(-2).join('_').replace(/[^A-Za-z0-9_]/g, '_');
  return name === '' ? 'root' : name;
}

/**
 * The entries of a non-empty object (at least one entry) joined by `sep`, or NOTHING.
 * `emptyAllowed` says whether the object may also have no entries at all.
 */
export function entrySequence(ctx: Lowering, shape: ObjectShape, sep: Expr, name: string): { nonEmpty: Expr; emptyAllowed: boolean } {
  const { declared, extra } = shape;
  const requiredCount = declared.filter((d) => d.required).length;
  // Bounds that can never bind need no counting (fewer tail rules). With anyOrder keys may
  // repeat, so there the maximum always binds.
  const minP = shape.minProperties <= requiredCount ? 0 : shape.minProperties;
  const unbindable = !ctx.options.anyOrder && extra === null && shape.maxProperties !== null && shape.maxProperties >= declared.length;
  const maxP = unbindable ? null : shape.maxProperties;
  const emptyAllowed = requiredCount === 0 && minP === 0;
  if (ctx.options.anyOrder) {
    const items = [...declared.map((d) => d.expr), ...(extra ? [extra] : [])];
    const n = Math.max(minP, requiredCount, 1);
    if (items.length === 0 || (maxP !== null && maxP < n)) return { nonEmpty: NOTHING, emptyAllowed: emptyAllowed };
    const item = ctx.rule(`${name}_item`, alt(...items));
    return { nonEmpty: seq(item, rep(seq(sep, item), n - 1, maxP === null ? -1 : maxP - 1)), emptyAllowed };
  }
  const need = Math.max(minP, 1);
  const next = (c: number): number => (maxP === null ? Math.min(c + 1, need) : c + 1);
  // Which counts can be reached before each declared property: a contiguous range.
  const lo: number[] = [0];
  const hi: number[] = [0];
  declared.forEach((d, i) => {
    lo.push(d.required ? next(lo[i]!) : lo[i]!);
    hi.push(next(hi[i]!));
  });
  // Built from the last property back (no recursion, however many properties), one rule per
  // reachable (property, count) pair; counts beyond maxProperties match nothing.
  const parts = new Map<string, Expr>();
  const tail = (i: number, c: number): Expr => (maxP !== null && c > maxP ? NOTHING : parts.get(`${i},${c}`)!);
  for (let i = declared.length; i >= 0; i--) {
    for (let c = Math.min(hi[i]!, maxP ?? Infinity); c >= lo[i]!; c--) {
      const lead = c > 0 ? sep : EMPTY;
      let body: Expr;
      if (i === declared.length) body = extraEntries(c, lead);
      else {
        const d = declared[i]!;
        const take = seq(lead, d.expr, tail(i + 1, next(c)));
        body = d.required ? take : alt(take, tail(i + 1, c));
      }
      const id = ctx.builder.declare(`${name}_part_${i}_${c}`);
      ctx.builder.define(id, body);
      parts.set(`${i},${c}`, ref(id));
    }
  }
  return { nonEmpty: tail(0, 0), emptyAllowed };

  /** After the declared properties, with `c` entries so far: further extra entries. */
  function extraEntries(c: number, lead: Expr): Expr {
    const fewest = Math.max(need - c, 0);
    if (extra === null || (maxP !== null && c >= maxP)) return fewest === 0 ? EMPTY : NOTHING;
    const most = maxP === null ? -1 : maxP - c;
    if (c > 0) return rep(seq(sep, extra), fewest, most);
    // The first entry of the object has no separator before it.
    const some = seq(lead, extra, rep(seq(sep, extra), Math.max(fewest - 1, 0), most === -1 ? -1 : most - 1));
    return fewest === 0 ? alt(EMPTY, some) : some;
  }
}

export function lowerObject(ctx: Lowering, parts: Part[], pointer: string, depth: number): Expr {
  const fmt = ctx.fmt;
  const keySep = fmt.keySep();
  const shape = objectShape(ctx, parts, pointer, depth, {
    declared: (name, value) => seq(lit(JSON.stringify(name)), keySep, value),
    additional: (names, value) => seq(lit('"'), contentExcluding(names, (body) => ctx.rule('other_key', body)), lit('"'), keySep, value),
    pattern: (p, at, value) => seq(ctx.patternString(p, at), keySep, value),
    region: (content, value) => seq(lit('"'), content, lit('"'), keySep, value),
  });
  if ('empty' in shape) return emptyAt(pointer, shape.empty);
  const { nonEmpty, emptyAllowed } = entrySequence(ctx, shape, fmt.itemSep(depth), ruleBase(pointer));
  return fmt.container('{', '}', depth, nonEmpty, emptyAllowed);
}
