// enum and const: each allowed value written out in the grammar's own formatting. Values the
// rest of the schema rejects (for example an enum entry of the wrong type) are dropped, using
// ajv on the sub-schema itself.
import type { Ajv, ValidateFunction } from 'ajv';
import { GrammarError } from '../errors.js';
import { type Expr, lit, seq } from '../ir.js';
import { ajvFor, dialectOf } from './dialect.js';
import type { Schema } from './lowering.js';
import type { Formatting } from './options.js';
import { NON_ASSERTIONS, type Part } from './parts.js';

const validators = new WeakMap<object, Ajv>();
const ROOT_ID = 'lmforge:schema';

/** ajv's validator of the whole sub-schema at `pointer` of `root`. */
export function validatorAt(root: Schema, pointer: string): ValidateFunction {
  if (typeof root === 'boolean') throw new Error('internal: boolean root has no sub-schemas');
  let ajv = validators.get(root);
  if (!ajv) {
    ajv = ajvFor(dialectOf(root));
    // Read in its dialect whatever `$schema` URI names it (ajv knows one per class).
    const { $schema: _, ...body } = root;
    ajv.addSchema({ ...body, $id: ROOT_ID });
    validators.set(root, ajv);
  }
  const fragment = pointer.split('/').map((s) => encodeURIComponent(s)).join('/');
  const validate = ajv.getSchema(`${ROOT_ID}#${fragment}`);
  if (!validate) throw GrammarError.at(pointer, 'cannot compile this sub-schema');
  return validate;
}

/** Whether a part lists its values (an enum or a const). */
export const holdsValues = (part: Part): boolean => 'const' in part.schema || Array.isArray(part.schema.enum);

/** The values a schema lists: its const, else its enum. */
export function declaredValues(schema: Record<string, unknown>): unknown[] {
  return 'const' in schema ? [schema.const] : (schema.enum as unknown[]);
}

/**
 * The values of the first enum or const among the parts that every part accepts (checked by
 * ajv against each part's whole schema, so every other keyword is taken into account).
 */
export function valuesAllowed(root: Schema, parts: Part[]): unknown[] {
  const first = parts.find(holdsValues)!.schema;
  const values = declaredValues(first);
  // A const beside an enum must be among its values: ajv decides, as for any other keyword.
  const onlyValues = parts.length === 1 && !('const' in first && 'enum' in first) && Object.keys(first).every((k) => k === 'const' || k === 'enum' || NON_ASSERTIONS.has(k));
  if (onlyValues) return values;
  const checks = parts.map((p) => validatorAt(root, p.pointer));
  return values.filter((v) => checks.every((validate) => validate(v)));
}

/** A JSON value written with the grammar's separators and whitespace. */
export function constValue(fmt: Formatting, value: unknown, depth: number): Expr {
  if (Array.isArray(value)) {
    if (value.length === 0) return fmt.empty('[', ']');
    const items: Expr[] = [];
    value.forEach((v, i) => {
      if (i > 0) items.push(fmt.itemSep(depth));
      items.push(constValue(fmt, v, depth + 1));
    });
    return fmt.container('[', ']', depth, seq(...items), false);
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 0) return fmt.empty('{', '}');
    const items: Expr[] = [];
    entries.forEach(([k, v], i) => {
      if (i > 0) items.push(fmt.itemSep(depth));
      items.push(lit(JSON.stringify(k)), fmt.keySep(), constValue(fmt, v, depth + 1));
    });
    return fmt.container('{', '}', depth, seq(...items), false);
  }
  return lit(JSON.stringify(value));
}
