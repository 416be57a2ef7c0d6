// The legacy structural-tag form (xgrammar's older API): a list of items {begin, schema, end}
// plus a list of trigger strings. Reading: the output is free text; when a trigger occurs,
// the item whose `begin` starts with that trigger follows, its content a JSON value valid
// against `schema` (an object, a boolean, or the schema as a JSON string); after its `end`,
// free text resumes. That is exactly a `triggered_tags` node with default flags.
import { GrammarError, pointerJoin } from '../errors.js';
import { describe, isPlainObject } from './node-reader.js';

export interface LegacyTagItem {
  begin: string;
  schema: object | boolean | string;
  end: string;
}

export function structuralTagFromLegacy(tags: readonly LegacyTagItem[], triggers: readonly string[]): {
  type: 'structural_tag';
  format: Record<string, unknown>;
} {
  if (!Array.isArray(tags)) throw GrammarError.at('/tags', `the legacy tags must be a list, not ${describe(tags)}`);
  if (!Array.isArray(triggers)) throw GrammarError.at('/triggers', `the legacy triggers must be a list, not ${describe(triggers)}`);
  const converted = tags.map((item: unknown, i) => {
    const at = pointerJoin('/tags', i);
    if (!isPlainObject(item)) throw GrammarError.at(at, `a legacy tag item must be an object {begin, schema, end}, not ${describe(item)}`);
    for (const key of Object.keys(item)) {
      if (!['begin', 'schema', 'end'].includes(key)) throw GrammarError.at(pointerJoin(at, key), `unknown field '${key}' in a legacy tag item (its fields: begin, schema, end)`);
    }
    for (const key of ['begin', 'end']) {
      if (typeof item[key] !== 'string') throw GrammarError.at(pointerJoin(at, key), `'${key}' of a legacy tag item must be a string, not ${describe(item[key])}`);
    }
    return { type: 'tag', begin: item.begin, content: { type: 'json_schema', json_schema: schemaOf(item.schema, pointerJoin(at, 'schema')) }, end: item.end };
  });
  return { type: 'structural_tag', format: { type: 'triggered_tags', triggers: [...triggers], tags: converted } };
}

function schemaOf(schema: unknown, at: string): unknown {
  if (typeof schema === 'string') {
    try {
      return JSON.parse(schema);
    } catch (error) {
      throw GrammarError.at(at, `the schema string is not JSON: ${(error as Error).message}`);
    }
  }
  if (typeof schema === 'boolean' || isPlainObject(schema)) return schema;
  throw GrammarError.at(at, `a legacy schema must be an object, a boolean or a JSON string, not ${describe(schema)}`);
}
