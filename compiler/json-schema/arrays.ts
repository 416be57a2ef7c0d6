// Arrays: prefixItems in order (an array may stop early), then items, within minItems and
// maxItems. In strict mode an absent `items` allows no items beyond prefixItems.
import { alt, EMPTY, type Expr, NOTHING, rep, seq } from '../ir.js';
import { pointerJoin } from '../errors.js';
import type { Lowering, Schema } from './lowering.js';
import { ruleBase } from './objects.js';

export function lowerArray(ctx: Lowering, schema: Record<string, unknown>, pointer: string, depth: number): Expr {
  const fmt = ctx.fmt;
  const prefix = Array.isArray(schema.prefixItems) ? (schema.prefixItems as Schema[]) : [];
  const items: Schema = 'items' in schema ? (schema.items as Schema) : !ctx.options.strictMode;
  const minItems = typeof schema.minItems === 'number' ? schema.minItems : 0;
  let maxItems = typeof schema.maxItems === 'number' ? schema.maxItems : null;
  if (items === false) maxItems = Math.min(maxItems ?? prefix.length, prefix.length);
  if (maxItems !== null && minItems > maxItems) return NOTHING;
  const base = ruleBase(pointer);
  const prefixValues = prefix.map((s, i) => ctx.rule(`${base}_item_${i}`, ctx.value(s, pointerJoin(pointer, 'prefixItems', i), depth + 1)));
  const itemValue = items === false ? NOTHING : ctx.rule(`${base}_item`, ctx.value(items, pointerJoin(pointer, 'items'), depth + 1));
  const sep = fmt.itemSep(depth);
  // What may follow once k items are written.
  const after = (k: number): Expr => {
    if (k >= prefix.length) {
      const lo = Math.max(minItems - k, 0);
      const hi = maxItems === null ? -1 : maxItems - k;
      return hi === 0 ? EMPTY : rep(seq(sep, itemValue), lo, hi);
    }
    const more = maxItems === null || k < maxItems ? [seq(sep, prefixValues[k]!, after(k + 1))] : [];
    return alt(...(k >= minItems ? [EMPTY] : []), ...more);
  };
  const first = prefix.length > 0 ? prefixValues[0]! : itemValue;
  const nonEmpty = maxItems === 0 ? NOTHING : seq(first, after(1));
  return fmt.container('[', ']', depth, nonEmpty, minItems === 0);
}
