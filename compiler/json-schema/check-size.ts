// The size and nesting limits of a JSON schema (limits.ts), checked first: ajv's meta-schema
// check and every later walk are recursive, so nothing deeper may reach them. One iterative
// pass over the raw JSON; pointers are built only for an error.
import { GrammarError, pointerJoin } from '../errors.js';
import { MAX_JSON_DEPTH, MAX_NAME_CHARS, MAX_NESTING, MAX_NODES } from '../limits.js';

/** Keywords whose value is a sub-schema, a list of them, or a map of names to them. */
const ONE = new Set(['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'additionalItems', 'unevaluatedItems', 'unevaluatedProperties']);
const LIST = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);
const MAP = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

interface Entry {
  value: unknown;
  parent: number;
  key: string;
  /** JSON nesting level. */
  json: number;
  /** Sub-schema nesting level, or -1 where the value is not a schema. */
  schema: number;
}

/** `strictMode`: absent `additionalProperties` means false (JsonSchemaOptions). */
export function checkSchemaSize(schema: unknown, strictMode = true): void {
  const entries: Entry[] = [{ value: schema, parent: -1, key: '', json: 0, schema: 0 }];
  const pointerOf = (i: number): string => {
    const keys: string[] = [];
    for (let at = i; at > 0; at = entries[at]!.parent) keys.push(entries[at]!.key);
    return pointerJoin('', ...keys.reverse());
  };
  let schemas = 0;
  let nameChars = 0;
  const countName = (name: string, at: () => string): void => {
    nameChars += name.length;
    if (nameChars > MAX_NAME_CHARS) throw GrammarError.at(at(), `the names of properties that other keys must differ from have more than ${MAX_NAME_CHARS} characters in all (the limit)`);
  };
  for (let i = 0; i < entries.length; i++) {
    const { value, json, schema: level } = entries[i]!;
    if (level >= 0) {
      if (++schemas > MAX_NODES) throw GrammarError.at(pointerOf(i), `the schema has more than ${MAX_NODES} sub-schemas (the limit)`);
      if (level > MAX_NESTING) throw GrammarError.at(pointerOf(i), `sub-schemas nest more than ${MAX_NESTING} levels deep here (the limit)`);
    }
    if (json > MAX_JSON_DEPTH) throw GrammarError.at(pointerOf(i), `the schema nests more than ${MAX_JSON_DEPTH} JSON levels deep here (the limit)`);
    if (typeof value !== 'object' || value === null) continue;
    const isSchema = level >= 0 && !Array.isArray(value);
    const push = (child: unknown, key: string, parent: number, jsonLevel: number, schemaLevel: number): void => {
      if (typeof child === 'object' && child !== null) entries.push({ value: child, parent, key, json: jsonLevel, schema: schemaLevel });
      else if (schemaLevel >= 0 && typeof child === 'boolean') entries.push({ value: child, parent, key, json: jsonLevel, schema: schemaLevel });
    };
    if (Array.isArray(value)) {
      value.forEach((child, k) => push(child, String(k), i, json + 1, -1));
      continue;
    }
    const record = value as Record<string, unknown>;
    const othersAllowed = isSchema && ('additionalProperties' in record ? record.additionalProperties !== false : !strictMode);
    for (const [key, child] of Object.entries(value)) {
      if (othersAllowed && key === 'properties' && typeof child === 'object' && child !== null) for (const name of Object.keys(child)) countName(name, () => pointerJoin(pointerOf(i), key, name));
      if (othersAllowed && key === 'required' && Array.isArray(child)) child.forEach((name, k) => typeof name === 'string' && countName(name, () => pointerJoin(pointerOf(i), key, k)));
      if (!isSchema) push(child, key, i, json + 1, -1);
      else if (ONE.has(key) && !Array.isArray(child)) push(child, key, i, json + 1, level + 1);
      // A draft-07 tuple (`items: [...]`) is a list of sub-schemas.
      else if (((LIST.has(key) || key === 'items') && Array.isArray(child)) || (MAP.has(key) && typeof child === 'object' && child !== null && !Array.isArray(child))) {
        // The list or map itself is one JSON level; its members are the sub-schemas.
        entries.push({ value: null, parent: i, key, json: json + 1, schema: -1 });
        const holder = entries.length - 1;
        if (json + 1 > MAX_JSON_DEPTH) throw GrammarError.at(pointerOf(holder), `the schema nests more than ${MAX_JSON_DEPTH} JSON levels deep here (the limit)`);
        for (const [k, sub] of Object.entries(child as object)) push(sub, k, holder, json + 2, level + 1);
      } else push(child, key, i, json + 1, -1);
    }
  }
}
