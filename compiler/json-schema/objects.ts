// Objects. Declared properties come in declaration order (required ones must appear), then
// additional or pattern-matched entries; min/maxProperties are tracked by indexing the tail
// rules with the number of entries so far. With anyOrder, one entry rule is repeated within
// the count bounds (the spec's rules: keys may repeat or be missing).
import { GrammarError, pointerJoin } from '../errors.js';
import { alt, EMPTY, type Expr, lit, NOTHING, ref, rep, seq, star } from '../ir.js';
import { contentExcluding } from './json-chars.js';
import { isObject, type Lowering, type Schema } from './lowering.js';

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
}

/** How a property value is lowered (JSON by default; the XML styles write raw text). */
export type ValueWriter = (schema: Schema, pointer: string) => Expr;

export function objectShape(ctx: Lowering, schema: Record<string, unknown>, pointer: string, depth: number, keys: KeyWriter, valueOf?: ValueWriter): ObjectShape | null {
  const props = isObject(schema.properties) ? (schema.properties as Record<string, Schema>) : {};
  const patterns = isObject(schema.patternProperties) ? Object.entries(schema.patternProperties as Record<string, Schema>) : [];
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  let additional: Schema = 'additionalProperties' in schema ? (schema.additionalProperties as Schema) : !ctx.options.strictMode;
  if (patterns.length > 0) {
    if (additional !== false) {
      throw GrammarError.at(pointerJoin(pointer, 'additionalProperties'), "additional properties next to 'patternProperties' cannot be enforced (keys would have to avoid every pattern)");
    }
    const first = JSON.stringify(patterns[0]![1]);
    if (patterns.some(([, s]) => JSON.stringify(s) !== first)) {
      throw GrammarError.at(pointerJoin(pointer, 'patternProperties'), 'patterns with different schemas cannot be enforced (a key may match several)');
    }
    for (const [p] of patterns) {
      const clash = Object.keys(props).find((name) => new RegExp(p, 'u').test(name));
      if (clash !== undefined) throw GrammarError.at(pointerJoin(pointer, 'patternProperties', p), `the pattern also matches the declared property '${clash}'`);
    }
  }
  const names = Object.keys(props);
  // A required key that is not declared is written as declared, with the schema that applies to it.
  for (const name of required) {
    if (name in props) continue;
    const pat = patterns.find(([p]) => new RegExp(p, 'u').test(name));
    const applies = pat ? pat[1] : additional;
    if (applies === false) return null; // required but never allowed: no object matches
    props[name] = applies;
    names.push(name);
  }
  const value = (s: Schema, at: string): Expr => ctx.rule(`${ruleBase(at)}_value`, valueOf ? valueOf(s, at) : ctx.value(s, at, depth + 1));
  const declared = names.map((name) => {
    const at = pointerJoin(pointer, 'properties', name);
    return { expr: keys.declared(name, value(props[name]!, at)), required: required.has(name) };
  });
  const extras: Expr[] = [];
  if (additional !== false) extras.push(keys.additional(names, value(additional, pointerJoin(pointer, 'additionalProperties'))));
  for (const [p, s] of patterns) {
    const at = pointerJoin(pointer, 'patternProperties', p);
    extras.push(keys.pattern(p, at, value(s, at)));
  }
  return {
    declared,
    extra: extras.length > 0 ? ctx.rule(`${ruleBase(pointer)}_extra`, alt(...extras)) : null,
    minProperties: typeof schema.minProperties === 'number' ? schema.minProperties : 0,
    maxProperties: typeof schema.maxProperties === 'number' ? schema.maxProperties : null,
  };
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
  const memo = new Map<string, Expr>();
  const next = (c: number): number => (maxP === null ? Math.min(c + 1, need) : c + 1);
  const tail = (i: number, c: number): Expr => {
    if (maxP !== null && c > maxP) return NOTHING;
    const key = `${i},${c}`;
    const hit = memo.get(key);
    if (hit) return hit;
    const lead = c > 0 ? sep : EMPTY;
    let body: Expr;
    if (i === declared.length) {
      const canEnd = c >= need;
      const more = extra !== null && (maxP === null || c < maxP);
      if (canEnd && more && maxP === null && c > 0) body = star(seq(sep, extra));
      else body = alt(...(canEnd ? [EMPTY] : []), ...(more ? [seq(lead, extra, tail(i, next(c)))] : []));
      if (body.kind === 'choice' && body.items.length === 0) body = NOTHING;
    } else {
      const d = declared[i]!;
      const take = seq(lead, d.expr, tail(i + 1, next(c)));
      body = d.required ? take : alt(take, tail(i + 1, c));
    }
    const id = ctx.builder.declare(`${name}_part_${i}_${c}`);
    const r = ref(id);
    memo.set(key, r);
    ctx.builder.define(id, body);
    return r;
  };
  return { nonEmpty: tail(0, 0), emptyAllowed };
}

export function lowerObject(ctx: Lowering, schema: Record<string, unknown>, pointer: string, depth: number): Expr {
  const fmt = ctx.fmt;
  const keySep = fmt.keySep();
  const shape = objectShape(ctx, schema, pointer, depth, {
    declared: (name, value) => seq(lit(JSON.stringify(name)), keySep, value),
    additional: (names, value) => seq(lit('"'), contentExcluding(names), lit('"'), keySep, value),
    pattern: (p, at, value) => seq(ctx.patternString(p, at), keySep, value),
  });
  if (!shape) return NOTHING;
  const { nonEmpty, emptyAllowed } = entrySequence(ctx, shape, fmt.itemSep(depth), ruleBase(pointer));
  return fmt.container('{', '}', depth, nonEmpty, emptyAllowed);
}
