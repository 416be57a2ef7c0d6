// A request body checked against its endpoint's schema: the field-by-field schema first, then
// the rules between fields (request-rules.ts). The first problem is a 400 naming the field the
// way OpenAI names parameters (`messages[0].role`).
import { Ajv, type ErrorObject } from 'ajv';
import { badRequest } from './api-error.js';
import { ruleChecker, withoutRules } from './request-rules.js';

// verbose: an error knows its schema, so a field with several shapes can say which it accepts.
const ajv = new Ajv({ allErrors: false, strict: false, verbose: true });

/** `/messages/0/role` -> `messages[0].role`, the way OpenAI names parameters. */
export function pointerToParam(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((param, part) => (/^\d+$/.test(part) ? `${param}[${part}]` : param ? `${param}.${part}` : part), '');
}

function describe(error: ErrorObject, unsupported: Readonly<Record<string, string>>): { param: string; message: string; code?: string } {
  const at = pointerToParam(error.instancePath);
  switch (error.keyword) {
    case 'additionalProperties': {
      const extra = String(error.params.additionalProperty);
      const param = at ? `${at}.${extra}` : extra;
      return { param, message: `Unrecognized request argument supplied: ${param}` };
    }
    case 'required': {
      const missing = String(error.params.missingProperty);
      const param = at ? `${at}.${missing}` : missing;
      return { param, message: `Missing required parameter: '${param}'.` };
    }
    case 'enum':
      return { param: at, message: `Invalid value for '${at}': must be one of ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}.` };
    case 'propertyNames': {
      const what = (error.parentSchema as { propertyNames?: { description?: string } } | undefined)?.propertyNames?.description ?? 'an allowed key';
      return { param: at, message: `Invalid key in '${at}': ${JSON.stringify(error.params.propertyName)} is not ${what}.` };
    }
    case 'type':
      // An unsupported field is declared as null in the schema: any other value fails its type.
      if (Object.hasOwn(unsupported, at)) return { param: at, message: `Unsupported parameter: '${at}' is not supported here: ${unsupported[at]}.`, code: 'unsupported_parameter' };
      return { param: at, message: `Invalid value for '${at}': must be ${typeNames(error.params.type)}, got ${valueText(error.data)}.` };
    case 'const': {
      const why = (error.parentSchema as { description?: string } | undefined)?.description;
      return { param: at, message: `Invalid value for '${at}': must be ${JSON.stringify(error.params.allowedValue)}${why ? ` (${why})` : ''}, got ${valueText(error.data)}.` };
    }
    case 'anyOf':
      return { param: at, message: `Invalid value for '${at}': ${shapesOf(error) ?? 'it has none of the allowed shapes'}.` };
    default:
      return { param: at, message: `Invalid value for '${at}': ${error.message ?? 'not valid'}.` };
  }
}

const TYPE_NAMES: Record<string, string> = { integer: 'an integer', number: 'a number', string: 'a string', boolean: 'a boolean', object: 'an object', array: 'a list', null: 'null' };

/** `['integer', 'null']` -> `an integer or null`. */
function typeNames(types: unknown): string {
  const names = (Array.isArray(types) ? types : String(types).split(',')).map((type) => TYPE_NAMES[type] ?? type);
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}

/** A value as the client sent it, cut short: an error message quotes it, it must not carry a whole body. */
function valueText(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

/** The description of a field whose allowed shapes are listed in it. */
const shapesOf = (error: ErrorObject): string | undefined => (error.parentSchema as { description?: string } | undefined)?.description?.replace(/\.$/, '');

/**
 * The error to report. Validation stops at the first bad field, but a field with several
 * allowed shapes (anyOf: `stop` is a string or a list) fails every branch: the branch whose
 * type matched says what is wrong, inside the value ("stop[0]: must NOT have fewer than 1
 * characters") or at it ("more than 16 items"), not the first ("must be string"); when none
 * did, the field's description lists its shapes, if it has one.
 */
function mostSpecific(errors: ErrorObject[]): ErrorObject | undefined {
  const keys = errors.find((error) => error.keyword === 'propertyNames');
  if (keys) return keys;
  const anyOf = errors.find((error) => error.keyword === 'anyOf');
  if (!anyOf) return errors[0];
  // Inside the value only when one shape alone has the value's type (with several, a prompt of
  // strings or of token ids, which one the client meant is a guess), and only for a bad value
  // there: an object of another shape inside (an image part among text parts) is better told
  // by the description's list of shapes.
  const shapes = Array.isArray(anyOf.schema) ? anyOf.schema.length : 0;
  const typeMisses = errors.filter((error) => error.instancePath === anyOf.instancePath && error.keyword === 'type').length;
  const inside =
    shapes - typeMisses === 1
      ? errors.find((error) => error.instancePath.startsWith(`${anyOf.instancePath}/`))
      : undefined;
  // A branch whose type missed says nothing more about the value (its enum was for another type).
  const missedBranches = errors.filter((error) => error.keyword === 'type' && error.instancePath === anyOf.instancePath).map((error) => error.schemaPath.replace(/type$/, ''));
  const sameField = errors.find(
    (error) => error.instancePath === anyOf.instancePath && error.keyword !== 'type' && error.keyword !== 'anyOf' && !missedBranches.some((branch) => error.schemaPath.startsWith(branch)),
  );
  return inside ?? sameField ?? (shapesOf(anyOf) ? anyOf : errors[0]);
}

/** A parser of bodies for `schema` (rules included): the body typed as T, or a 400 naming the field. */
export function requestValidator<T>(schema: object): (body: unknown) => T {
  const validate = ajv.compile<T>(withoutRules(schema));
  const checkRules = ruleChecker(schema);
  const unsupported = (schema as { 'x-unsupported'?: Readonly<Record<string, string>> })['x-unsupported'] ?? {};
  return (body) => {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('The request body must be a JSON object.');
    if (!validate(body)) {
      const error = mostSpecific(validate.errors ?? []);
      const { param, message, code } = error ? describe(error, unsupported) : { param: '', message: 'Invalid request.' };
      throw badRequest(message, param || null, code ?? null);
    }
    checkRules(body);
    return body;
  };
}
