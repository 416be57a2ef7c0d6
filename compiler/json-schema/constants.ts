// enum and const: each allowed value written out in the grammar's own formatting. Values the
// rest of the schema rejects (for example an enum entry of the wrong type) are dropped, using
// ajv on the sub-schema itself.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { GrammarError } from '../errors.js';
import { type Expr, lit, seq } from '../ir.js';
import type { Schema } from './lowering.js';
import type { Formatting } from './options.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const validators = new WeakMap<object, Ajv2020>();
const ROOT_ID = 'lmforge:schema';

function validatorAt(root: Schema, pointer: string): ValidateFunction {
  if (typeof root === 'boolean') throw new Error('internal: boolean root has no sub-schemas');
  let ajv = validators.get(root);
  if (!ajv) {
    ajv = addFormats(new Ajv2020({ strict: false, allErrors: false }));
    ajv.addSchema({ ...root, $id: ROOT_ID });
    validators.set(root, ajv);
  }
  const fragment = pointer.split('/').map((s) => encodeURIComponent(s)).join('/');
  const validate = ajv.getSchema(`${ROOT_ID}#${fragment}`);
  if (!validate) throw GrammarError.at(pointer, 'cannot compile this sub-schema');
  return validate;
}

export function valuesAllowedAt(root: Schema, schema: Record<string, unknown>, pointer: string): unknown[] {
  const values = 'const' in schema ? [schema.const] : (schema.enum as unknown[]);
  if (Object.keys(schema).every((k) => ['const', 'enum', 'title', 'description', '$comment', 'default', 'examples'].includes(k))) return values;
  const validate = validatorAt(root, pointer);
  return values.filter((v) => validate(v));
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
