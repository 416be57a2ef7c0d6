// Arrays: prefixItems in order (an array may stop early), then items, within minItems and
// maxItems. In strict mode an absent `items` allows no items beyond prefixItems. Counts no
// array can meet make it empty, with the reason (see emptyAt).
import { alt, EMPTY, type Expr, NOTHING, rep, seq } from '../ir.js';
import { pointerJoin } from '../errors.js';
import { emptyAt, type Lowering, type Schema } from './lowering.js';
import { ruleBase } from './objects.js';

export function lowerArray(ctx: Lowering, schema: Record<string, unknown>, pointer: string, depth: number): Expr {
  const fmt = ctx.fmt;
  const prefix = Array.isArray(schema.prefixItems) ? (schema.prefixItems as Schema[]) : [];
  const items: Schema = 'items' in schema ? (schema.items as Schema) : !ctx.options.strictMode;
  const minItems = typeof schema.minItems === 'number' ? schema.minItems : 0;
  let maxItems = typeof schema.maxItems === 'number' ? schema.maxItems : null;
  if (maxItems !== null && minItems > maxItems) return emptyAt(pointer, `'minItems' (${minItems}) is greater than 'maxItems' (${maxItems})`);
  if (items === false) maxItems = Math.min(maxItems ?? prefix.length, prefix.length);
  if (maxItems !== null && minItems > maxItems) {
    const why = 'items' in schema ? "'items' is false" : "without 'items', strict mode allows none beyond them";
    return emptyAt(pointer, `'minItems' is ${minItems}, but at most ${maxItems} ${maxItems === 1 ? 'item is' : 'items are'} allowed ('prefixItems' has ${prefix.length}; ${why})`);
  }
  const base = ruleBase(pointer);
  const prefixValues = prefix.map((s, i) => {
    const at = pointerJoin(pointer, 'prefixItems', i);
    return ctx.rule(`${base}_item_${i}`, ctx.value(s, at, depth + 1), at);
  });
  const itemValue = items === false ? NOTHING : ctx.rule(`${base}_item`, ctx.value(items, pointerJoin(pointer, 'items'), depth + 1), pointerJoin(pointer, 'items'));
  const sep = fmt.itemSep(depth);
  // What may follow once k items are written, from the last prefix item back (no recursion,
  // however many prefix items).
  const beyondPrefix = (k: number): Expr => {
    const lo = Math.max(minItems - k, 0);
    const hi = maxItems === null ? -1 : maxItems - k;
    return hi === 0 ? EMPTY : rep(seq(sep, itemValue), lo, hi);
  };
  let after = beyondPrefix(Math.max(prefix.length, 1));
  for (let k = prefix.length - 1; k >= 1; k--) {
    const more = maxItems === null || k < maxItems ? [seq(sep, prefixValues[k]!, after)] : [];
    after = alt(...(k >= minItems ? [EMPTY] : []), ...more);
  }
  const first = prefix.length > 0 ? prefixValues[0]! : itemValue;
  const nonEmpty = maxItems === 0 ? NOTHING : seq(first, after);
  return fmt.container('[', ']', depth, nonEmpty, minItems === 0);
}
