// Rules that tie request fields together, kept as data: /openapi.json carries each one as a JSON
// Schema if/then in its object's `allOf`, so a generated client or a fuzzer can follow them, and
// the request parser checks each one after the field-by-field schema, answering with the rule's
// own sentence and the field it names.
import { Ajv, type ValidateFunction } from 'ajv';
import { badRequest } from './api-error.js';

export interface RequestRule {
  /** The field at fault, relative to the object the rule sits on. */
  'x-param': string;
  /** The rule as a sentence; a 400 for a request that breaks it says this. */
  description: string;
  if: object;
  then: object | boolean;
}

/** `{field: non-null}`: the condition "the request sets `field`". */
export const sets = (field: string) => ({ required: [field], properties: { [field]: { not: { type: 'null' } } } });

type Schema = Record<string, unknown>;

const isRule = (entry: unknown) => typeof entry === 'object' && entry !== null && 'x-param' in entry;

/** The schema with its rules left out: what the field-by-field validator compiles. */
export function withoutRules<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(withoutRules) as T;
  if (typeof schema !== 'object' || schema === null) return schema;
  const entries = Object.entries(schema).filter(([key, value]) => !(key === 'allOf' && Array.isArray(value) && value.every(isRule)));
  return Object.fromEntries(entries.map(([key, value]) => [key, withoutRules(value)])) as T;
}

/** A step from an object to the values a rule below it applies to: a property, or each array item. */
type Step = { property: string } | 'items';

interface CompiledRule {
  path: Step[];
  rule: RequestRule;
  check: ValidateFunction;
}

const ajv = new Ajv({ allErrors: false, strict: false });

/** Every rule in `schema`, at the top or under properties and array items, with where it applies. */
function rulesIn(schema: Schema, path: Step[] = []): CompiledRule[] {
  const here = Array.isArray(schema.allOf) && schema.allOf.every(isRule) ? (schema.allOf as RequestRule[]) : [];
  const found = here.map((rule) => ({ path, rule, check: ajv.compile({ if: rule.if, then: rule.then }) }));
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) found.push(...rulesIn(property, [...path, { property: name }]));
  if (typeof schema.items === 'object' && schema.items !== null) found.push(...rulesIn(schema.items as Schema, [...path, 'items']));
  return found;
}

/** The values at `path` in `value`, each with its parameter name (`messages[2]`). */
function* valuesAt(value: unknown, path: Step[], at = ''): Generator<[unknown, string]> {
  if (path.length === 0) {
    yield [value, at];
    return;
  }
  const [step, ...rest] = path;
  if (step === 'items') {
    if (Array.isArray(value)) for (const [i, item] of value.entries()) yield* valuesAt(item, rest, `${at}[${i}]`);
  } else if (typeof value === 'object' && value !== null && step!.property in value) {
    yield* valuesAt((value as Schema)[step!.property], rest, at ? `${at}.${step!.property}` : step!.property);
  }
}

/** Checks a body that passed the schema against the schema's rules; the first broken one is a 400 naming its field. */
export function ruleChecker(schema: object): (body: unknown) => void {
  const rules = rulesIn(schema as Schema);
  return (body) => {
    for (const { path, rule, check } of rules) {
      for (const [value, at] of valuesAt(body, path)) {
        if (!check(value)) throw badRequest(at ? `${at}: ${rule.description}` : rule.description, at ? `${at}.${rule['x-param']}` : rule['x-param']);
      }
    }
  };
}
