// What the type-specific lowerings (objects, arrays, XML styles) need from the converter.
import { type Expr, type GrammarBuilder, nothing } from '../ir.js';
import type { Formatting, JsonSchemaOptions } from './options.js';

export type Schema = boolean | Record<string, unknown>;

export interface Lowering {
  readonly builder: GrammarBuilder;
  readonly fmt: Formatting;
  readonly options: Required<Pick<JsonSchemaOptions, 'strictMode' | 'anyOrder' | 'openBareObjects'>>;
  /** The whole schema (references point into it; enum values are checked against it). */
  readonly root: Schema;
  /** A value of `schema` (found at `pointer`) nested `depth` containers deep. */
  value(schema: Schema, pointer: string, depth: number): Expr;
  /** The conjunction of sub-schemas (a property that several parts give schemas): `true` for
   * none, the one itself, or a conjunction schema (parts.ts); `false` if one is false. */
  conjunction(members: { schema: Schema; pointer: string }[]): { schema: Schema; pointer: string };
  /** The schema a `$ref` names (`at`: the reference, for an error). */
  lookupRef(refText: string, at: string): { schema: Schema; pointer: string };
  /** Follows `$ref`s: the schema a pointer ends at, and its own pointer. */
  resolve(schema: Schema, pointer: string): { schema: Schema; pointer: string };
  /** Any JSON value. */
  anyValue(depth: number): Expr;
  /** A JSON string whose decoded value matches the regex (JSON Schema `pattern` semantics). */
  patternString(pattern: string, pointer: string): Expr;
  /** One rule per key for the whole grammar (basic strings, any value), made on first use. */
  sharedRule(key: string, make: () => Expr): Expr;
  /** Wraps an expression in a rule (shared by every use) and returns a reference to it;
   * `pointer` names the sub-schema it stands for, for errors. */
  rule(name: string, body: Expr, pointer?: string): Expr;
  /** As `rule`, for a JSON array whose items the matcher keeps distinct (ir.ts Rule.uniqueItems). */
  uniqueItemsRule(name: string, body: Expr, pointer: string): Expr;
}

/** Matches nothing: the sub-schema at `pointer` allows no value, for the reason given. Only an
 * error if the whole schema is empty because of it (passes/empty-language.ts). */
export function emptyAt(pointer: string, message: string): Expr {
  return nothing(message, { kind: 'pointer', pointer });
}

export function isObject(s: unknown): s is Record<string, unknown> {
  return typeof s === 'object' && s !== null && !Array.isArray(s);
}
