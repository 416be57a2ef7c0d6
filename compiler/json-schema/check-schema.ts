// Up-front checks of a JSON schema: valid JSON Schema (ajv's meta-schema of its dialect), and
// every keyword either enforced by the converter or a pure annotation. An assertion the grammar
// cannot enforce is an error naming it by JSON pointer, never a silent relaxation.
import type { Ajv } from 'ajv';
import { GrammarError, pointerJoin } from '../errors.js';
import { ajvFor, type Dialect, dialectOf } from './dialect.js';
import { ANNOTATION_FORMATS, FORMATS } from './formats.js';
import { NUMBER_FORMATS } from './numeric.js';

const ENFORCED = new Set([
  'type', 'enum', 'const', 'anyOf', 'oneOf', 'allOf', '$ref', '$defs', 'definitions',
  'properties', 'required', 'additionalProperties', 'patternProperties', 'propertyNames', 'unevaluatedProperties',
  'minProperties', 'maxProperties', 'items', 'prefixItems', 'additionalItems', 'unevaluatedItems', 'minItems', 'maxItems',
  'minLength', 'maxLength', 'pattern', 'format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf',
  'uniqueItems', // by the grammar over a short list of values, or by the matcher's guard (unique-items.ts)
  'nullable', // OpenAPI 3.0's, as OpenAI's SDKs write it: null joins the `type` beside it (parts.ts)
]);
const ANNOTATIONS = new Set([
  'title', 'description', 'examples', 'default', '$comment', '$schema', 'deprecated', 'readOnly',
  'writeOnly', 'contentMediaType', 'contentEncoding', 'contentSchema', '$vocabulary',
  // OpenAPI's hint of which oneOf/anyOf branch a property's value selects (pydantic writes it for
  // discriminated unions): the branches themselves say it, and are enforced.
  'discriminator',
]);

/** Every format a schema may name: strings' (formats.ts), numbers' (numeric.ts), and those that only annotate. */
const KNOWN_FORMATS = [...Object.keys(FORMATS), ...NUMBER_FORMATS, ...ANNOTATION_FORMATS];

const metaValidators = new Map<Dialect, Ajv>();

export function checkSchema(schema: unknown): void {
  if (typeof schema !== 'boolean' && (typeof schema !== 'object' || schema === null || Array.isArray(schema))) {
    throw GrammarError.at('', 'a JSON schema must be an object or a boolean');
  }
  const dialect = dialectOf(schema);
  let metaValidator = metaValidators.get(dialect);
  if (!metaValidator) {
    metaValidator = ajvFor(dialect, { validateFormats: false });
    metaValidators.set(dialect, metaValidator);
  }
  // Against the dialect's own meta-schema, whatever `$schema` URI names it.
  const body = typeof schema === 'object' && '$schema' in schema ? Object.fromEntries(Object.entries(schema).filter(([k]) => k !== '$schema')) : schema;
  if (!metaValidator.validateSchema(body as object)) {
    const error = metaValidator.errors?.[0];
    const pointer = error?.instancePath ?? '';
    throw GrammarError.at(pointer, `not a valid JSON schema: ${error?.message ?? 'invalid'}`);
  }
  walk(schema, '', true);
}

function walk(schema: unknown, pointer: string, isRoot: boolean): void {
  if (typeof schema === 'boolean') return;
  const s = schema as Record<string, unknown>;
  for (const key of Object.keys(s)) {
    const at = pointerJoin(pointer, key);
    if (key === '$id' && isRoot) continue;
    if (ANNOTATIONS.has(key)) continue;
    if (!ENFORCED.has(key)) {
      throw GrammarError.at(at, `the keyword '${key}' cannot be enforced by a grammar`);
    }
  }
  if ('nullable' in s && typeof s.nullable !== 'boolean') throw GrammarError.at(pointerJoin(pointer, 'nullable'), "'nullable' must be true or false");
  if (s.nullable === false && (s.type === 'null' || (Array.isArray(s.type) && s.type.includes('null')))) {
    throw GrammarError.at(pointerJoin(pointer, 'nullable'), "'nullable': false contradicts the 'type' beside it, which allows null (as ajv reads it)");
  }
  // As OpenAPI 3.0.3 and ajv read it: without a `type` beside it, it would allow nothing more.
  if (s.nullable === true && s.type === undefined) {
    throw GrammarError.at(pointerJoin(pointer, 'nullable'), `'nullable' adds null to the 'type' beside it, and there is none here: give a 'type', or write {"anyOf": [{…}, {"type": "null"}]}`);
  }
  if (typeof s.format === 'string' && !KNOWN_FORMATS.includes(s.format)) {
    throw GrammarError.at(pointerJoin(pointer, 'format'), `the format '${s.format}' is not supported (supported: ${KNOWN_FORMATS.join(', ')})`);
  }
  if (typeof s.$ref === 'string' && !s.$ref.startsWith('#')) {
    throw GrammarError.at(pointerJoin(pointer, '$ref'), `only local references ('#...') are supported, not '${s.$ref}'`);
  }
  for (const key of ['properties', 'patternProperties', '$defs', 'definitions']) {
    const map = s[key];
    if (map && typeof map === 'object') {
      for (const [name, sub] of Object.entries(map)) walk(sub, pointerJoin(pointer, key, name), false);
    }
  }
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems', 'items']) {
    const list = s[key];
    if (Array.isArray(list)) list.forEach((sub, i) => walk(sub, pointerJoin(pointer, key, i), false));
  }
  for (const key of ['additionalProperties', 'items', 'additionalItems', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems']) {
    if (key in s && !Array.isArray(s[key])) walk(s[key], pointerJoin(pointer, key), false);
  }
}
