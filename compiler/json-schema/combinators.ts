// anyOf and oneOf. Keywords next to the combinator are merged into every branch (an
// intersection) where that is exact; keywords that interact across schemas (properties with
// additionalProperties, items with prefixItems) or clash are errors. oneOf becomes a choice
// only when its branches are provably disjoint: a grammar cannot check "exactly one".
import { GrammarError, pointerJoin } from '../errors.js';
import { isObject, type Lowering, type Schema } from './lowering.js';

const ANNOTATION = new Set(['title', 'description', '$comment', 'default', 'examples', '$defs', 'definitions', '$schema', '$id']);
const GROUPS = [['properties', 'patternProperties', 'additionalProperties'], ['items', 'prefixItems']];

export interface Branch {
  schema: Schema;
  pointer: string;
}

export function combineBranches(ctx: Lowering, schema: Record<string, unknown>, pointer: string): Branch[] {
  if (Array.isArray(schema.anyOf) && Array.isArray(schema.oneOf)) {
    throw GrammarError.at(pointerJoin(pointer, 'oneOf'), "'anyOf' and 'oneOf' in one schema cannot be combined");
  }
  const key = Array.isArray(schema.oneOf) ? 'oneOf' : 'anyOf';
  const siblings = Object.fromEntries(Object.entries(schema).filter(([k]) => k !== key && !ANNOTATION.has(k)));
  const branches = (schema[key] as Schema[]).map((b, i) => {
    const at = pointerJoin(pointer, key, i);
    if (Object.keys(siblings).length === 0) return { schema: b, pointer: at };
    const resolved = ctx.resolve(b, at);
    return { schema: merge(siblings, resolved.schema, pointer), pointer: resolved.pointer };
  });
  if (key === 'oneOf') {
    for (let i = 0; i < branches.length; i++) {
      for (let j = i + 1; j < branches.length; j++) {
        const a = ctx.resolve(branches[i]!.schema, branches[i]!.pointer).schema;
        const b = ctx.resolve(branches[j]!.schema, branches[j]!.pointer).schema;
        if (!disjoint(ctx, a, b, 0)) {
          throw GrammarError.at(pointerJoin(pointer, 'oneOf'), `branches ${i} and ${j} may both match a value, so 'oneOf' cannot be enforced; use 'anyOf' or make them disjoint (different types, consts or a required discriminator)`);
        }
      }
    }
  }
  return branches;
}

function merge(siblings: Record<string, unknown>, branch: Schema, pointer: string): Schema {
  if (branch === false) return false;
  if (branch === true) return siblings;
  const out: Record<string, unknown> = { ...branch };
  for (const [k, v] of Object.entries(siblings)) {
    if (k === 'required' && Array.isArray(out.required)) out.required = [...new Set([...(out.required as string[]), ...(v as string[])])];
    else if (k in out && JSON.stringify(out[k]) !== JSON.stringify(v)) {
      throw GrammarError.at(pointerJoin(pointer, k), `'${k}' next to a combinator clashes with the same keyword in a branch`);
    } else out[k] = v;
  }
  for (const group of GROUPS) {
    const fromSiblings = group.filter((k) => k in siblings);
    const fromBranch = group.filter((k) => k in branch);
    if (fromSiblings.length > 0 && fromBranch.some((k) => !fromSiblings.includes(k) || JSON.stringify(siblings[k]) !== JSON.stringify(branch[k]))) {
      throw GrammarError.at(pointerJoin(pointer, fromSiblings[0]!), `'${fromSiblings[0]}' next to a combinator interacts with '${fromBranch[0]}' in a branch; move it into the branches`);
    }
  }
  return out;
}

/** JSON types a schema can match, as far as its own keywords tell. */
function types(s: Schema): Set<string> {
  const all = ['null', 'boolean', 'number', 'integer', 'string', 'array', 'object'];
  if (s === false) return new Set();
  if (s === true) return new Set(all);
  const values = 'const' in s ? [s.const] : Array.isArray(s.enum) ? s.enum : null;
  if (values) return new Set(values.map(typeOfValue));
  const t = typeof s.type === 'string' ? [s.type] : Array.isArray(s.type) ? (s.type as string[]) : null;
  if (!t) return new Set(all);
  const set = new Set(t);
  if (set.has('number')) set.add('integer');
  if (set.has('integer')) set.add('number');
  return set;
}

function typeOfValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v === 'number' ? 'number' : typeof v;
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isObject(v)) return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
  return JSON.stringify(v);
}

function disjoint(ctx: Lowering, a: Schema, b: Schema, depth: number): boolean {
  if (depth > 8) return false;
  const ta = types(a);
  if (![...types(b)].some((t) => ta.has(t))) return true;
  if (!isObject(a) || !isObject(b)) return false;
  const va = 'const' in a ? [a.const] : Array.isArray(a.enum) ? a.enum : null;
  const vb = 'const' in b ? [b.const] : Array.isArray(b.enum) ? b.enum : null;
  if (va && vb) {
    const set = new Set(va.map(canonical));
    if (!vb.some((v) => set.has(canonical(v)))) return true;
  }
  // A discriminator: a property both require, with disjoint values.
  const ra = Array.isArray(a.required) ? (a.required as string[]) : [];
  const rb = new Set(Array.isArray(b.required) ? (b.required as string[]) : []);
  const pa = isObject(a.properties) ? a.properties : {};
  const pb = isObject(b.properties) ? b.properties : {};
  for (const name of ra) {
    if (!rb.has(name) || !(name in pa) || !(name in pb)) continue;
    const sa = ctx.resolve(pa[name] as Schema, '').schema;
    const sb = ctx.resolve(pb[name] as Schema, '').schema;
    if (disjoint(ctx, sa, sb, depth + 1)) return true;
  }
  return false;
}
