// `response_format` into the grammar it asks for, with every field checked and named.
import type { GrammarSpec } from '../grammar-service/grammar-spec.js';
import { badRequest } from './api-error.js';

const FIELDS: Record<string, string[]> = {
  text: [],
  json_object: ['schema', 'max_whitespace'],
  json_schema: ['json_schema', 'max_whitespace'],
  structural_tag: ['format'],
  grammar: ['grammar'],
  regex: ['pattern'],
};

/**
 * The structural tag spec's default: a top-level tag's `type` is `structural_tag` when left
 * out, so a response_format with a `format` and no `type` is one. Applied to the request body
 * before it is validated; any other response_format still needs its `type`.
 */
export function withDefaultFormatType(body: unknown): unknown {
  const format = (body as { response_format?: unknown } | null)?.response_format;
  if (typeof format === 'object' && format !== null && !Array.isArray(format) && !('type' in format) && 'format' in format) {
    (format as Record<string, unknown>).type = 'structural_tag';
  }
  return body;
}

/** undefined for plain text; throws a 400 naming the field for anything malformed. */
export function grammarSpecOf(format: ({ type: string } & Record<string, unknown>) | null | undefined): GrammarSpec | undefined {
  if (!format) return undefined;
  const allowed = FIELDS[format.type]!;
  for (const key of Object.keys(format)) {
    if (key !== 'type' && !allowed.includes(key)) {
      // The older structural-tag form (structures + triggers) has a successor: say which.
      const legacy = format.type === 'structural_tag' ? legacyTagHint(key) : '';
      throw badRequest(`response_format of type '${format.type}' has no field '${key}'.${legacy}`, `response_format.${key}`);
    }
  }
  switch (format.type) {
    case 'text':
      return undefined;
    case 'json_object': {
      const options = whitespaceOption(format);
      return format.schema === undefined ? { kind: 'json_object', ...options } : { kind: 'json_schema', schema: parseSchema(format.schema, 'response_format.schema'), ...options };
    }
    case 'json_schema': {
      const wrapper = format.json_schema as Record<string, unknown> | undefined;
      if (typeof wrapper !== 'object' || wrapper === null || Array.isArray(wrapper)) {
        throw badRequest("response_format of type 'json_schema' needs 'json_schema': {\"name\", \"schema\", \"strict\"}.", 'response_format.json_schema');
      }
      for (const key of Object.keys(wrapper)) {
        if (!['name', 'description', 'schema', 'strict'].includes(key)) throw badRequest(`response_format.json_schema has no field '${key}'.`, `response_format.json_schema.${key}`);
      }
      // OpenAI requires `name`; llama-server's clients send the schema alone, so a missing name is
      // accepted (it labels nothing here), a malformed one is not.
      if (wrapper.name !== undefined && (typeof wrapper.name !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(wrapper.name))) {
        throw badRequest('response_format.json_schema.name must be 1 to 64 letters, digits, underscores or dashes.', 'response_format.json_schema.name');
      }
      if (wrapper.description !== undefined && typeof wrapper.description !== 'string') {
        throw badRequest('response_format.json_schema.description must be a string.', 'response_format.json_schema.description');
      }
      if (wrapper.strict != null && typeof wrapper.strict !== 'boolean') throw badRequest('response_format.json_schema.strict must be a boolean or null.', 'response_format.json_schema.strict');
      // Without a schema OpenAI's form means any JSON object; strict or not, the schema is enforced exactly.
      const options = whitespaceOption(format);
      return wrapper.schema === undefined ? { kind: 'json_object', ...options } : { kind: 'json_schema', schema: parseSchema(wrapper.schema, 'response_format.json_schema.schema'), ...options };
    }
    case 'structural_tag':
      if (typeof format.format !== 'object' || format.format === null) {
        throw badRequest("response_format of type 'structural_tag' needs a 'format' object.", 'response_format.format');
      }
      return { kind: 'structural_tag', tag: { type: 'structural_tag', format: format.format } };
    case 'grammar':
      if (typeof format.grammar !== 'string' || format.grammar.trim() === '') throw badRequest("response_format of type 'grammar' needs 'grammar': EBNF text.", 'response_format.grammar');
      return { kind: 'ebnf', text: format.grammar };
    case 'regex':
      if (typeof format.pattern !== 'string' || format.pattern === '') throw badRequest("response_format of type 'regex' needs 'pattern': a regular expression.", 'response_format.pattern');
      return { kind: 'regex', pattern: format.pattern };
    default:
      throw badRequest(`unknown response_format type '${format.type}'.`, 'response_format.type');
  }
}

/**
 * `max_whitespace` (an lmforge addition): JSON output allows whitespace runs of one line break
 * and up to 20 spaces or tabs by default; a number sets that bound, null lifts it.
 */
function whitespaceOption(format: Record<string, unknown>): { options?: { maxWhitespace: number | null } } {
  if (!('max_whitespace' in format)) return {};
  const value = format.max_whitespace;
  if (value !== null && (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)) {
    throw badRequest('response_format.max_whitespace must be a whole number of at least 0 (spaces or tabs after a line break), or null for unbounded whitespace.', 'response_format.max_whitespace');
  }
  return { options: { maxWhitespace: value } };
}

/** The older structural-tag form (structures + triggers) has a successor: a field of it says which. */
const legacyTagHint = (key: string): string => (key === 'structures' || key === 'triggers' ? " That is the older form: write its tags as a 'triggered_tags' format (see the structural tag spec)." : '');

/** A structural tag sent as a value of its own (vLLM's structured_outputs.structural_tag): {"type": "structural_tag", "format": {...}}. */
export function structuralTagOf(value: unknown, param: string): GrammarSpec {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest(`${param} must be a structural tag: {"type": "structural_tag", "format": {...}}.`, param);
  const tag = value as Record<string, unknown>;
  for (const key of Object.keys(tag)) if (key !== 'type' && key !== 'format') throw badRequest(`${param} has no field '${key}'.${legacyTagHint(key)}`, `${param}.${key}`);
  if (tag.type !== undefined && tag.type !== 'structural_tag') throw badRequest(`${param}.type must be 'structural_tag'.`, `${param}.type`);
  if (typeof tag.format !== 'object' || tag.format === null || Array.isArray(tag.format)) throw badRequest(`${param} needs a 'format' object.`, `${param}.format`);
  return { kind: 'structural_tag', tag: { type: 'structural_tag', format: tag.format } };
}

/** A schema given as an object or as its JSON text. */
export function parseSchema(value: unknown, param: string): unknown {
  if (typeof value === 'string') {
    try {
      return JSON.parse(value);
    } catch (error) {
      throw badRequest(`${param} is a string but not JSON: ${(error as Error).message}`, param);
    }
  }
  if (typeof value !== 'object' && typeof value !== 'boolean') throw badRequest(`${param} must be a JSON schema (an object, or its JSON text).`, param);
  return value;
}

/** A grammar error's parameter: the request field, then the pointer inside the client's document. */
export type ErrorParamAt = (pointer: string | undefined) => string;

/**
 * Where in the request a grammar error points: the schema or tag field, joined to the pointer
 * inside it (response_format.json_schema.schema/properties/a).
 */
export function grammarErrorParam(spec: GrammarSpec, format: { type: string }): ErrorParamAt {
  if (format.type === 'json_schema') return inside('response_format.json_schema.schema');
  if (format.type === 'json_object') return inside('response_format.schema');
  // Structural-tag pointers start at the tag object, whose fields are response_format's own:
  // response_format.format/elements/1.
  if (format.type === 'structural_tag') {
    return (pointer) => {
      if (!pointer || pointer === '/') return 'response_format';
      const [field, ...rest] = pointer.slice(1).split('/');
      return `response_format.${field}${rest.length ? `/${rest.join('/')}` : ''}`;
    };
  }
  return inside(spec.kind === 'ebnf' ? 'response_format.grammar' : 'response_format.pattern');
}

function inside(base: string): ErrorParamAt {
  return (pointer) => (pointer && pointer !== '/' ? `${base}${pointer}` : base);
}
