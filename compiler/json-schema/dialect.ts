// Which JSON Schema draft a schema is written in, and an ajv for it. 2020-12 by default; 2019-09
// and draft-07 (04 and 06 read as 07) when `$schema` says so; draft-07 too when the schema has
// no `$schema` and uses the tuple form (`items: [...]`), as llama.cpp and older tools write.
// ajv checks enum values and validates test outputs with our own formats (formats.ts), so
// what it calls valid is what the grammar enforces.
import { Ajv, type Format, type Options } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { FORMATS } from './formats.js';
import { isObject } from './lowering.js';

export type Dialect = '2020-12' | '2019-09' | 'draft-07';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export function dialectOf(schema: unknown): Dialect {
  const uri = isObject(schema) && typeof schema.$schema === 'string' ? schema.$schema : null;
  if (uri !== null) return /draft-0[467]\b/.test(uri) ? 'draft-07' : /2019-09/.test(uri) ? '2019-09' : '2020-12';
  return usesTupleItems(schema, 0) ? 'draft-07' : '2020-12';
}

/** Whether some sub-schema has `items: [...]` (data in enum, const, default and examples aside). */
function usesTupleItems(value: unknown, depth: number): boolean {
  if (depth > 300 || typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some((v) => usesTupleItems(v, depth + 1));
  const record = value as Record<string, unknown>;
  if (Array.isArray(record.items)) return true;
  return Object.entries(record).some(([k, v]) => !DATA.has(k) && usesTupleItems(v, depth + 1));
}

const DATA = new Set(['enum', 'const', 'default', 'examples']);

/** An ajv for the dialect, non-strict, with every format as formats.ts defines it (other ajv
 * options as given). */
export function ajvFor(dialect: Dialect, options: Options = {}): Ajv {
  const settings = { strict: false, ...options };
  const ajv: Ajv = dialect === 'draft-07' ? new Ajv(settings) : ((dialect === '2019-09' ? new Ajv2019(settings) : new Ajv2020(settings)) as unknown as Ajv);
  if (options.validateFormats === false) return ajv;
  addFormats(ajv);
  for (const [name, regex] of Object.entries(FORMATS)) ajv.addFormat(name, new RegExp(`^(?:${regex})$`, 'u') as Format);
  return ajv;
}
