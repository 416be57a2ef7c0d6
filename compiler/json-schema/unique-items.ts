// uniqueItems: true. Where the items are one of a short list of scalar values (an enum, consts,
// booleans; pydantic writes it for a set of an Enum or of Literals) a grammar holds it: the
// array is written as a walk through the subsets of those values (the values used so far are
// the state, the next item one not among them), so k values make 2^k states (one rule each),
// and the list is kept short. No finite automaton remembers every free string or number
// written (a `Set[str]`): there the array becomes a rule marked `uniqueItems` and the matcher
// refuses an item equal to an earlier one (unique-items-guard.ts). Items that can be objects
// or arrays are refused.
import { alt, EMPTY, type Expr, NOTHING, seq } from '../ir.js';
import { GrammarError } from '../errors.js';
import { constValue, declaredValues, holdsValues, valuesAllowed } from './constants.js';
import { emptyAt, type Lowering, type Schema } from './lowering.js';
import { ruleBase } from './objects.js';
import { integersWithin } from './numeric.js';
import { commonTypes, conjunctionOf, partsOfConjunction, type Part } from './parts.js';

/** The most distinct values a uniqueItems array's items may take: 2^8 subsets, 256 rules (10 values took 0.6 GB to compile every mask of SmolLM2's vocabulary, 8 took 0.28). */
export const MAX_UNIQUE_VALUES = 8;

/**
 * How distinct `items` are held: by the grammar over their `values` (guard false), or by the
 * matcher's guard (`most`: how many distinct items there can be, when that is known: a finite
 * list of values, a bounded range of integers; else null). Throws at `at` (the uniqueItems
 * keyword) where neither can.
 */
export function distinctItems(ctx: Lowering, items: { schema: Schema; pointer: string }, at: string): { guard: false; values: unknown[] } | { guard: true; most: number | null } {
  const values = finiteScalarValues(ctx, items) ?? null;
  if (values !== null && values.length <= MAX_UNIQUE_VALUES) return { guard: false, values };
  if (onlyScalars(ctx, items, 0)) return { guard: true, most: values?.length ?? integersAllowed(ctx, items) };
  throw GrammarError.at(at, "the keyword 'uniqueItems' can be enforced only for items that are scalars (strings, numbers, booleans, null), and these items can be objects or arrays; send an array without it (a list rather than a set)");
}

/**
 * The array of distinct items among `values`, between minItems and maxItems (null: as many as
 * there are values).
 */
export function lowerUniqueArray(ctx: Lowering, values: unknown[], range: { minItems: number; maxItems: number | null }, pointer: string, depth: number): Expr {
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
  const parts = partsOf(ctx, items);
  if (!parts) return [];
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

/** The parts of a sub-schema (an object, not true or false: parts.ts), or null where one of them is false (no value). */
function partsOf(ctx: Lowering, located: { schema: Schema; pointer: string }): Part[] | null {
  const parts = partsOfConjunction(located.schema) ?? conjunctionOf(located.schema, located.pointer, (ref, at) => ctx.lookupRef(ref, at));
  return Array.isArray(parts) ? parts : null;
}

const hasBranches = (p: Part): boolean => 'anyOf' in p.schema || 'oneOf' in p.schema;

/** How many integers items of only integers may be, at most, when their bounds say (null otherwise). */
function integersAllowed(ctx: Lowering, items: { schema: Schema; pointer: string }): number | null {
  if (typeof items.schema !== 'object') return null;
  const parts = partsOf(ctx, items);
  if (!parts || parts.some(hasBranches)) return null;
  const types = commonTypes(parts);
  if (types.length !== 1 || types[0] !== 'integer') return null;
  const count = integersWithin(parts);
  return count === null || count > BigInt(Number.MAX_SAFE_INTEGER) ? null : Number(count);
}

const SCALAR_TYPES = new Set(['null', 'boolean', 'integer', 'number', 'string']);
/** How deep `onlyScalars` follows branches and references before it says no. */
const MAX_SCALAR_DEPTH = 8;

/** Whether every value `schema` allows is a scalar (no object, no array): what the matcher's guard compares. */
function onlyScalars(ctx: Lowering, located: { schema: Schema; pointer: string }, depth: number): boolean {
  if (located.schema === false) return true;
  if (located.schema === true || depth > MAX_SCALAR_DEPTH) return false;
  const parts = partsOf(ctx, located);
  if (!parts) return true;
  if (parts.some(holdsValues)) return declaredValues(parts.find(holdsValues)!.schema).every((v) => v === null || typeof v !== 'object');
  if (commonTypes(parts).every((t) => SCALAR_TYPES.has(t))) return true;
  // A conjunction holds only scalars when one of its parts does: a part whose every branch does.
  return parts.some((p) =>
    (['anyOf', 'oneOf'] as const).some((k) => Array.isArray(p.schema[k]) && (p.schema[k] as Schema[]).every((branch, i) => onlyScalars(ctx, { schema: branch, pointer: `${p.pointer}/${k}/${i}` }, depth + 1))),
  );
}
