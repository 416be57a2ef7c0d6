// Whether a value read from an XML tool-call parameter is one the tool's grammar allows as that
// value (xml-arguments.ts asks where the text could also have been a string): ajv on the
// parameter's schema, its references resolved in the arguments schema, with the grammar's
// formats (compiler/json-schema/dialect.ts) and patterns as the grammar reads them, the schema
// closed as the tool grammar closes objects and arrays (strict mode with open bare objects, as
// a structural tag compiles a tool's parameters):
//   - an object whose parts name keys (properties, patternProperties, required) takes only its
//     properties and keys matching its patterns, unless some part says additionalProperties
//     or unevaluatedProperties (compiler/json-schema/object-keys.ts);
//   - an array takes no items past its prefixItems (tuple items) unless some part says items,
//     additionalItems or unevaluatedItems (compiler/json-schema/arrays.ts);
//   - a value whose parts assert nothing is any value, and listed values (enum, const) are
//     as listed.
// The closing is worked out per value, over the parts the grammar reads together (allOf
// members, $ref targets, and an anyOf / oneOf branch with the parts beside it); an anyOf inside
// a $ref target closes with that target's parts only. A schema ajv cannot compile gets no check
// (null): the reader then decides by the types alone. Nothing here throws.
import type { Ajv, Options, ValidateFunction } from 'ajv';
import { ajvFor, dialectOf } from '../../compiler/json-schema/dialect.js';
import type { Schema } from '../../compiler/json-schema/lowering.js';
import { hasAssertions } from '../../compiler/json-schema/parts.js';
import { lookup as lookupPointer, targetPointer } from '../../compiler/json-schema/refs.js';
import { LEADING_CASELESS } from '../../compiler/regex/regex.js';

export type ValueCheck = (value: unknown) => boolean;

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The node a `#...` JSON pointer reference names in `root`, as the grammar resolves it
 * (compiler/json-schema/refs.ts); undefined when there is none. */
export function lookup(root: unknown, ref: string): unknown {
  try {
    return lookupPointer(root as Schema, targetPointer(ref), ref);
  } catch {
    return undefined;
  }
}

/** The parts the grammar reads together with `node`: itself, its allOf members and $ref targets, recursively. */
function partsOf(node: unknown, root: unknown, into: Node[] = [], depth = 0): Node[] {
  if (!isNode(node) || into.includes(node) || depth > 32) return into;
  into.push(node);
  if (Array.isArray(node.allOf)) for (const member of node.allOf) partsOf(member, root, into, depth + 1);
  if (typeof node.$ref === 'string' && node.$ref.startsWith('#')) partsOf(lookup(root, node.$ref), root, into, depth + 1);
  return into;
}

const namesOf = (parts: Node[], keyword: string) => [...new Set(parts.flatMap((p) => (isNode(p[keyword]) ? Object.keys(p[keyword]) : [])))];

/** What strict mode adds to a value's schema, given its parts (none while a branch is still to be chosen). */
function close(out: Node, parts: Node[]): void {
  // Branches still to be chosen close each on its own; listed values (enum, const) are written
  // as they are, whatever strict mode says.
  if (parts.some((p) => Array.isArray(p.anyOf) || Array.isArray(p.oneOf) || 'const' in p || 'enum' in p)) return;
  // Parts that assert nothing (`{}`, a description) leave the value any value, open.
  if (!parts.some((p) => hasAssertions(Object.fromEntries(Object.entries(p).filter(([k]) => k !== 'allOf' && k !== '$ref'))))) return;
  const keysSaid = parts.some((p) => 'additionalProperties' in p || 'unevaluatedProperties' in p);
  const names = namesOf(parts, 'properties');
  const patterns = namesOf(parts, 'patternProperties');
  if (!keysSaid && (names.length > 0 || patterns.length > 0 || parts.some((p) => 'required' in p))) {
    const allowed = [...(names.length > 0 ? [{ enum: names }] : []), ...patterns.map((pattern) => ({ pattern }))];
    const keys = allowed.length > 0 ? { anyOf: allowed } : false;
    out.propertyNames = 'propertyNames' in out ? { allOf: [out.propertyNames, keys] } : keys;
  }
  const restSaid = parts.some((p) => 'unevaluatedItems' in p || (Array.isArray(p.items) ? 'additionalItems' in p : 'items' in p));
  if (!restSaid) {
    const prefix = Math.max(0, ...parts.map((p) => (Array.isArray(p.items) ? p.items.length : Array.isArray(p.prefixItems) ? p.prefixItems.length : 0)));
    out.maxItems = typeof out.maxItems === 'number' ? Math.min(out.maxItems, prefix) : prefix;
  }
}

/** Where a sub-schema stands: a value of its own (closed over its parts and those `value` puts
 * beside it), a part of the value whose parts are `part`, or neither (definitions, not, if /
 * then / else). */
type Role = { value: Node[] } | { part: Node[] } | null;

const DATA = new Set(['const', 'enum', 'default', 'examples']);
const VALUE_MAPS = new Set(['properties', 'patternProperties']);
const VALUES = new Set(['additionalProperties', 'unevaluatedProperties', 'items', 'prefixItems', 'additionalItems', 'unevaluatedItems', 'contains']);
const OTHER_MAPS = new Set(['$defs', 'definitions', 'dependentSchemas']);
const OTHERS = new Set(['not', 'if', 'then', 'else', 'propertyNames']);

interface Copying {
  root: unknown;
  ref: (ref: string) => string;
}

/** A copy of `node` closed where it is a value, its `#` references rewritten, without `$id`s
 * (the grammar reads every reference in the arguments schema as a whole). */
function closedCopy(node: unknown, role: Role, c: Copying, depth: number): unknown {
  if (!isNode(node)) return node;
  if (depth > 256) throw new Error('too deep');
  const parts = role && 'part' in role ? role.part : [...(role?.value ?? []), ...partsOf(node, c.root)];
  const each = (v: unknown, r: Role) => (Array.isArray(v) ? v.map((x) => closedCopy(x, r, c, depth + 1)) : closedCopy(v, r, c, depth + 1));
  const eachOf = (v: unknown, r: Role) => (isNode(v) ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, closedCopy(x, r, c, depth + 1)])) : v);
  const out: Node = {};
  for (const [k, v] of Object.entries(node)) {
    if (DATA.has(k)) out[k] = v;
    else if (k === '$ref' && typeof v === 'string') out[k] = v.startsWith('#') ? c.ref(v) : v;
    else if (k === '$id' && typeof v === 'string') continue;
    else if (VALUE_MAPS.has(k)) out[k] = eachOf(v, { value: [] });
    else if (OTHER_MAPS.has(k)) out[k] = eachOf(v, null);
    else if (VALUES.has(k)) out[k] = each(v, { value: [] });
    else if (OTHERS.has(k)) out[k] = each(v, null);
    else if (k === 'allOf') out[k] = each(v, { part: parts });
    else if (k === 'anyOf' || k === 'oneOf') {
      // A branch is read with the parts beside it, this choice made.
      const { [k]: _, ...chosen } = node;
      out[k] = each(v, { value: parts.map((p) => (p === node ? chosen : p)) });
    } else out[k] = v;
  }
  if (role && 'value' in role) close(out, parts);
  return out;
}

const ARGUMENTS_ID = 'lmforge:arguments';

// Patterns as the grammar reads them (compiler/regex/regex.ts): a leading `(?i)` makes the whole
// pattern caseless, and one that is not valid in Unicode mode (`\-`, `a{,3}`) is read in
// JavaScript's older mode.
const regExp: NonNullable<NonNullable<Options['code']>['regExp']> = Object.assign(
  (pattern: string, u: string) => {
    const caseless = pattern.startsWith(LEADING_CASELESS);
    const source = caseless ? pattern.slice(LEADING_CASELESS.length) : pattern;
    try {
      return new RegExp(source, `${u}${caseless ? 'i' : ''}`);
    } catch {
      return new RegExp(source, caseless ? 'i' : '');
    }
  },
  { code: 'lmforgePattern' },
);

interface ArgumentsEntry {
  /** null: the arguments schema does not compile. */
  ajv: Ajv | null;
  checks: Map<string, ValueCheck | null>;
}

/** By the arguments schema's JSON text: a tool's schema comes anew with each request. */
const entries = new Map<string, ArgumentsEntry>();
const MAX_ENTRIES = 64;
/** The same, by the objects of a request (a scan rereads a call's parameters). */
const byObject = new WeakMap<object, { entry: ArgumentsEntry; checks: WeakMap<object, ValueCheck | null> }>();
/** Arguments that are not an object: there is nothing to refer to. */
const NO_ROOT: Node = {};

function entryFor(root: Node): ArgumentsEntry {
  const text = JSON.stringify(root);
  let entry = entries.get(text);
  if (entry) {
    entries.delete(text); // most recently used last
  } else {
    let ajv: Ajv | null = null;
    try {
      ajv = ajvFor(dialectOf(root), { logger: false, validateSchema: false, code: { regExp } });
      const copy = closedCopy(root, { value: [] }, { root, ref: (r) => r }, 0) as Node;
      const { $schema: _, ...body } = copy;
      ajv.addSchema({ ...body, $id: ARGUMENTS_ID });
    } catch {
      ajv = null;
    }
    entry = { ajv, checks: new Map() };
  }
  entries.set(text, entry);
  if (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value!);
  return entry;
}

function compile(entry: ArgumentsEntry, schema: Node, root: Node): ValueCheck | null {
  if (!entry.ajv) return null;
  try {
    const copy = closedCopy(schema, { value: [] }, { root, ref: (r) => `${ARGUMENTS_ID}${r}` }, 0) as Node;
    const validate: ValidateFunction = entry.ajv.compile(copy);
    return (value) => {
      try {
        return validate(value) === true;
      } catch {
        return true; // as without a check
      }
    };
  } catch {
    return null;
  }
}

/**
 * The check of a parameter's value, its schema `schema` (references into `root`, the
 * arguments schema), compiled once per tool schema; null where there is none to make (a
 * boolean schema) or ajv cannot compile it.
 */
export function valueCheck(schema: unknown, root: unknown): ValueCheck | null {
  if (!isNode(schema)) return null;
  const args = isNode(root) ? root : NO_ROOT;
  let known = byObject.get(args);
  if (!known) {
    known = { entry: entryFor(args), checks: new WeakMap() };
    byObject.set(args, known);
  }
  let check = known.checks.get(schema);
  if (check === undefined) {
    const text = JSON.stringify(schema);
    check = known.entry.checks.get(text);
    if (check === undefined) {
      check = compile(known.entry, schema, args);
      known.entry.checks.set(text, check);
    }
    known.checks.set(schema, check);
  }
  return check;
}
