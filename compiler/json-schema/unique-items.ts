// uniqueItems: true, where a grammar can hold it: the items are one of a short list of scalar
// values (an enum, consts, booleans; pydantic writes it for a set of an Enum or of Literals).
// The array is written as a walk through the subsets of those values: the values used so far
// are the state, and the next item is one not among them, so k values make 2^k states (one rule
// each), and the list is kept short. Items of any other kind (free strings, numbers, objects)
// are refused as before: no finite automaton remembers every item written.
import { alt, EMPTY, type Expr, NOTHING, seq } from '../ir.js';
import { GrammarError } from '../errors.js';
import { constValue, declaredValues, holdsValues, valuesAllowed } from './constants.js';
import { emptyAt, type Lowering, type Schema } from './lowering.js';
import { ruleBase } from './objects.js';
import { commonTypes, conjunctionOf, partsOfConjunction, type Part } from './parts.js';

/** The most distinct values a uniqueItems array's items may take: 2^8 subsets, 256 rules (10 values took 0.6 GB to compile every mask of SmolLM2's vocabulary, 8 took 0.28). */
export const MAX_UNIQUE_VALUES = 8;

/**
 * The array of distinct items from `items`, between minItems and maxItems (null: as many as
 * there are values). `at` is the uniqueItems keyword, for the error when it cannot be held.
 */
export function lowerUniqueArray(ctx: Lowering, items: { schema: Schema; pointer: string }, range: { minItems: number; maxItems: number | null }, at: string, pointer: string, depth: number): Expr {
  const values = finiteScalarValues(ctx, items);
  if (values === undefined) {
    throw GrammarError.at(at, `the keyword 'uniqueItems' cannot be enforced by a grammar for these items: only for items that take one of at most ${MAX_UNIQUE_VALUES} scalar values (an enum, consts, booleans); send an array without it (a list rather than a set)`);
  }
  if (values.length > MAX_UNIQUE_VALUES) {
    throw GrammarError.at(at, `the keyword 'uniqueItems' can be enforced for items of at most ${MAX_UNIQUE_VALUES} distinct values (2^${MAX_UNIQUE_VALUES} states), and these take ${values.length}`);
  }
  const { minItems } = range;
  const maxItems = Math.min(range.maxItems ?? values.length, values.length);
  if (minItems > maxItems) return emptyAt(pointer, `'minItems' is ${minItems}, but with 'uniqueItems' the items take only ${values.length} distinct values`);
  const fmt = ctx.fmt;
  const sep = fmt.itemSep(depth);
  const written = values.map((v) => constValue(fmt, v, depth + 1));
  const base = ruleBase(pointer);
  const tails = new Map<number, Expr>();
  /** What may follow once the values in `used` (a bit each) are written. */
  const tail = (used: number, count: number): Expr => {
    let rule = tails.get(used);
    if (!rule) {
      const next: Expr[] = count >= minItems ? [EMPTY] : [];
      if (count < maxItems) written.forEach((value, i) => (used & (1 << i)) === 0 && next.push(seq(sep, value, tail(used | (1 << i), count + 1))));
      rule = ctx.rule(`${base}_unique_${used}`, alt(...next), pointer);
      tails.set(used, rule);
    }
    return rule;
  };
  const nonEmpty = maxItems === 0 ? NOTHING : alt(...written.map((value, i) => seq(value, tail(1 << i, 1))));
  return fmt.container('[', ']', depth, nonEmpty, minItems === 0);
}

/**
 * The distinct scalar values an item may take, when they are a finite list (an enum or const,
 * null and the booleans), checked against every part of the item's schema; undefined otherwise.
 */
function finiteScalarValues(ctx: Lowering, items: { schema: Schema; pointer: string }): unknown[] | undefined {
  if (items.schema === true) return undefined;
  if (items.schema === false) return [];
  const parts = partsOfConjunction(items.schema) ?? conjunctionOf(items.schema, items.pointer, (ref, at) => ctx.lookupRef(ref, at));
  if (!Array.isArray(parts)) return [];
  const holder = parts.find(holdsValues);
  let values: unknown[];
  if (holder) {
    if (declaredValues(holder.schema).some((v) => v !== null && typeof v === 'object')) return undefined;
    // The values every part's whole schema accepts, as for any enum.
    values = valuesAllowed(ctx.root, parts);
  } else if (parts.some(hasBranches)) return undefined;
  else {
    // Only type says anything of null and the booleans (enum and const are above; not and if are refused).
    const types = commonTypes(parts);
    if (!types.every((t) => t === 'null' || t === 'boolean')) return undefined;
    values = [...(types.includes('null') ? [null] : []), ...(types.includes('boolean') ? [true, false] : [])];
  }
  // Equal values (1 and 1.0) count once.
  return [...new Map(values.map((v) => [JSON.stringify(v), v])).values()];
}

const hasBranches = (p: Part): boolean => 'anyOf' in p.schema || 'oneOf' in p.schema;
