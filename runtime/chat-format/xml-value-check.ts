// Whether a value read from an XML tool-call parameter is one the tool's grammar allows as that
// value (xml-arguments.ts asks where the text could also have been a string): ajv on the
// parameter's schema, its references resolved in the arguments schema, with the grammar's
// formats (compiler/json-schema/dialect.ts) and patterns as the grammar reads them. A schema
// ajv cannot compile gets no check (null): the reader then decides by the types alone.
// Nothing here throws.
import type { Ajv, Options, ValidateFunction } from 'ajv';
import { ajvFor, dialectOf } from '../../compiler/json-schema/dialect.js';
import { LEADING_CASELESS } from '../../compiler/regex/regex.js';

export type ValueCheck = (value: unknown) => boolean;

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The node a `#...` JSON pointer reference names in `root` (undefined when there is none). */
export function lookup(root: unknown, ref: string): unknown {
  return ref
    .slice(1)
    .split('/')
    .filter((p) => p !== '')
    .reduce<unknown>((node, p) => (node as Node | undefined)?.[decodeURIComponent(p).replace(/~1/g, '/').replace(/~0/g, '~')], root);
}

interface Copying {
  ref: (ref: string) => string;
}

/** A copy of `node`, its `#` references rewritten, without `$id`s (the grammar reads every
 * reference in the arguments schema as a whole). */
function copyOf(node: unknown, c: Copying, depth: number): unknown {
  if (Array.isArray(node)) return node.map((x) => copyOf(x, c, depth + 1));
  if (!isNode(node)) return node;
  if (depth > 256) throw new Error('too deep');
  const out: Node = {};
  for (const [k, v] of Object.entries(node)) {
    if (DATA.has(k)) out[k] = v;
    else if (k === '$ref' && typeof v === 'string') out[k] = v.startsWith('#') ? c.ref(v) : v;
    else if (!(k === '$id' && typeof v === 'string')) out[k] = copyOf(v, c, depth + 1);
  }
  return out;
}

const DATA = new Set(['const', 'enum', 'default', 'examples']);

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
      const copy = copyOf(root, { ref: (r) => r }, 0) as Node;
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
    const copy = copyOf(schema, { ref: (r) => `${ARGUMENTS_ID}${r}` }, 0) as Node;
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
