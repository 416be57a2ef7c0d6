// Arrays: the leading items in order (prefixItems, or the draft-07 tuple form items: [...]),
// an array may stop early, then the rest (items, or additionalItems beside a tuple), within
// minItems and maxItems. Read across every part of a conjunction: position i takes the schema
// each part gives it. In strict mode, when no part says what the rest is, there is none.
// unevaluatedItems applies past the leading items its own subtree evaluates, unless that
// subtree has a rest. Counts no array can meet make it empty, with the reason (see emptyAt).
// uniqueItems: unique-items.ts.
import { alt, EMPTY, type Expr, NOTHING, rep, seq } from '../ir.js';
import { GrammarError, pointerJoin } from '../errors.js';
import { beyondExpansionLimit, repeatStates } from '../expanded-size.js';
import { MAX_AUTOMATON_STATES } from '../limits.js';
import { emptyAt, type Lowering, type Schema } from './lowering.js';
import { ruleBase } from './objects.js';
import { isNumber, keywordValues, type Part, tightest } from './parts.js';
import { distinctItems, lowerUniqueArray } from './unique-items.js';

interface Located {
  schema: Schema;
  pointer: string;
}

/** What one part says about the items. */
interface ArrayView {
  prefix: Located[];
  /** The items after the prefix, if the part says. */
  rest: Located | undefined;
  /** unevaluatedItems, from this many items on (undefined: none, or its subtree has a rest). */
  unevaluated: { from: number; schema: Located } | undefined;
}

function viewOf(part: Part): ArrayView {
  const s = part.schema;
  const tuple = Array.isArray(s.items);
  const prefixKey = tuple ? 'items' : 'prefixItems';
  const prefix = Array.isArray(s[prefixKey]) ? (s[prefixKey] as Schema[]).map((schema, i) => ({ schema, pointer: pointerJoin(part.pointer, prefixKey, i) })) : [];
  const restKey = tuple ? 'additionalItems' : 'items';
  const rest = restKey in s ? { schema: s[restKey] as Schema, pointer: pointerJoin(part.pointer, restKey) } : undefined;
  let unevaluated: ArrayView['unevaluated'];
  if ('unevaluatedItems' in s) {
    const scope = (part.scope ?? [part]).map((p) => (p === part ? { prefix, rest, unevaluated: undefined } : viewOf(p)));
    if (scope.every((v) => v.rest === undefined)) {
      unevaluated = { from: Math.max(0, ...scope.map((v) => v.prefix.length)), schema: { schema: s.unevaluatedItems as Schema, pointer: pointerJoin(part.pointer, 'unevaluatedItems') } };
    }
  }
  return { prefix, rest, unevaluated };
}

export function lowerArray(ctx: Lowering, parts: Part[], pointer: string, depth: number): Expr {
  const fmt = ctx.fmt;
  const views = parts.map(viewOf);
  const saysRest = parts.some((p) => 'unevaluatedItems' in p.schema) || views.some((v) => v.rest !== undefined);
  const closed = !saysRest && ctx.options.strictMode;
  const length = Math.max(0, ...views.map((v) => v.prefix.length));
  /** The schemas every part gives item i (i = length: every item past the prefix). */
  const at = (i: number): Located => {
    const members: Located[] = [];
    for (const v of views) {
      if (i < v.prefix.length) members.push(v.prefix[i]!);
      else if (v.rest) members.push(v.rest);
      else if (v.unevaluated && i >= v.unevaluated.from) members.push(v.unevaluated.schema);
    }
    if (i >= length && closed) members.push({ schema: false, pointer });
    return ctx.conjunction(members);
  };
  const prefix = Array.from({ length }, (_, i) => at(i));
  const items = at(length);
  const minItems = tightest(parts, 'minItems', true) ?? 0;
  let maxItems = tightest(parts, 'maxItems', false);
  if (maxItems !== null && minItems > maxItems) return emptyAt(pointer, `'minItems' (${minItems}) is greater than 'maxItems' (${maxItems})`);
  if (items.schema === false) maxItems = Math.min(maxItems ?? length, length);
  if (maxItems !== null && minItems > maxItems) {
    const why = closed ? "without 'items', strict mode allows none beyond them" : "'items' is false";
    return emptyAt(pointer, `'minItems' is ${minItems}, but at most ${maxItems} ${maxItems === 1 ? 'item is' : 'items are'} allowed ('prefixItems' has ${length}; ${why})`);
  }
  // Distinct items: by the grammar over a short list of values, or by the matcher's guard
  // (unique-items.ts); one item is always distinct.
  const unique = parts.find((p) => p.schema.uniqueItems === true);
  let guarded = false;
  if (unique && (maxItems === null || maxItems > 1)) {
    const at = pointerJoin(unique.pointer, 'uniqueItems');
    if (length > 0) throw GrammarError.at(at, "the keyword 'uniqueItems' cannot be enforced beside leading items ('prefixItems')");
    const distinct = distinctItems(ctx, items, at);
    if (!distinct.guard) return lowerUniqueArray(ctx, distinct.values, { minItems, maxItems }, pointer, depth);
    if (distinct.most !== null && minItems > distinct.most) return emptyAt(pointer, `'minItems' is ${minItems}, but with 'uniqueItems' the items take at most ${distinct.most} distinct values`);
    guarded = true;
  }
  const base = ruleBase(pointer);
  const prefixValues = prefix.map((s, i) => ctx.rule(`${base}_item_${i}`, ctx.value(s.schema, s.pointer, depth + 1), s.pointer));
  const itemValue = items.schema === false ? NOTHING : ctx.rule(`${base}_item`, ctx.value(items.schema, items.pointer, depth + 1), items.pointer);
  const sep = fmt.itemSep(depth);
  // What may follow once k items are written, from the last prefix item back (no recursion,
  // however many prefix items).
  // Checked before the repetition is built (each item would be a copy, written out).
  const states = repeatStates(seq(sep, itemValue), minItems, maxItems ?? -1);
  if (states > MAX_AUTOMATON_STATES) {
    const keyword = maxItems === null ? 'minItems' : 'maxItems';
    const bound = keywordValues(parts, keyword, isNumber).find((k) => k.value === (maxItems ?? minItems));
    throw GrammarError.at(bound?.pointer ?? pointer, `'${keyword}' (${maxItems ?? minItems}) ${beyondExpansionLimit(states)}`);
  }
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
  const array = fmt.container('[', ']', depth, nonEmpty, minItems === 0);
  return guarded ? ctx.uniqueItemsRule(`${base}_unique`, array, pointer) : array;
}
