// anyOf and oneOf among the parts of a conjunction: each branch becomes the conjunction of the
// branch and everything else (the keywords beside the combinator, the other parts), which is
// exact. Two combinators multiply out. oneOf becomes a choice only when its branches are
// provably disjoint: a grammar cannot check "exactly one".
import { GrammarError, pointerJoin } from '../errors.js';
import { isObject, type Schema } from './lowering.js';
import { commonTypes, type Conjunction, conjunctionOf, hasAssertions, type Part } from './parts.js';

/** Most branches the combinators of one conjunction may multiply out to (each becomes rules
 * of its own; a dozen anyOf in an allOf would otherwise ask for millions). */
export const MAX_BRANCHES = 1024;

export interface Branch {
  /** The branch schema alone, where nothing else applies to it (lowered as it stands). */
  alone?: { schema: Schema; pointer: string };
  /** Else the conjunction it takes part in. */
  conjunction?: Conjunction;
  pointer: string;
}

type Resolve = (ref: string, at: string) => { schema: Schema; pointer: string };

/** The index of the first part with anyOf or oneOf, or -1. */
export function combinatorPart(parts: Part[]): number {
  return parts.findIndex((p) => Array.isArray(p.schema.anyOf) || Array.isArray(p.schema.oneOf));
}

/** The branches of that part's combinator (anyOf before oneOf; the other stays beside each
 * branch and multiplies out when that branch is lowered). */
export function distribute(parts: Part[], index: number, resolve: Resolve): Branch[] {
  const holder = parts[index]!;
  const key = Array.isArray(holder.schema.anyOf) ? 'anyOf' : 'oneOf';
  const list = holder.schema[key] as Schema[];
  let product = 1;
  for (const p of parts) for (const k of ['anyOf', 'oneOf']) if (Array.isArray(p.schema[k])) product *= Math.max(1, (p.schema[k] as unknown[]).length);
  if (product > MAX_BRANCHES) throw GrammarError.at(pointerJoin(holder.pointer, key), `the combinators of this schema and the schemas it is combined with multiply out to ${product} branches (the limit is ${MAX_BRANCHES})`);
  const rest = Object.fromEntries(Object.entries(holder.schema).filter(([k]) => k !== key));
  const others = parts.filter((_, i) => i !== index);
  if (hasAssertions(rest)) others.push({ schema: rest, pointer: holder.pointer });
  const branches: Branch[] = list.map((b, i) => {
    const at = pointerJoin(holder.pointer, key, i);
    if (others.length === 0) return { alone: { schema: b, pointer: at }, pointer: at };
    const own = conjunctionOf(b, at, resolve);
    return { conjunction: Array.isArray(own) ? [...others, ...own] : own, pointer: at };
  });
  if (key === 'oneOf') {
    const partsOf = (b: Branch): Part[] | null => {
      if (b.alone) {
        const own = conjunctionOf(b.alone.schema, b.alone.pointer, resolve);
        return Array.isArray(own) ? own : null;
      }
      return Array.isArray(b.conjunction) ? b.conjunction : null;
    };
    for (let i = 0; i < branches.length; i++) {
      for (let j = i + 1; j < branches.length; j++) {
        const a = partsOf(branches[i]!);
        const b = partsOf(branches[j]!);
        if (a !== null && b !== null && !disjoint(a, b, resolve, 0)) {
          throw GrammarError.at(pointerJoin(holder.pointer, 'oneOf'), `branches ${i} and ${j} may both match a value, so 'oneOf' cannot be enforced; use 'anyOf' or make them disjoint (different types, consts or a required discriminator)`);
        }
      }
    }
  }
  return branches;
}

/** Values an enum or const allows, from the first part that has one; null if none does. */
function listedValues(parts: Part[]): unknown[] | null {
  for (const { schema: s } of parts) {
    if ('const' in s) return [s.const];
    if (Array.isArray(s.enum)) return s.enum;
  }
  return null;
}

function typeOfValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** JSON types the parts can match, as far as type, enum and const tell. */
function typesOf(parts: Part[]): Set<string> {
  const types = new Set(commonTypes(parts));
  const values = listedValues(parts);
  if (values === null) return types;
  return new Set(values.map(typeOfValue).filter((t) => types.has(t)));
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isObject(v)) return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
  return JSON.stringify(v);
}

/** Whether no value can satisfy both conjunctions, as far as types, values and a required
 * discriminator property show (false when unsure). */
function disjoint(a: Part[], b: Part[], resolve: Resolve, depth: number): boolean {
  if (depth > 8) return false;
  const tb = typesOf(b);
  const shared = [...typesOf(a)].filter((t) => tb.has(t) || (t === 'integer' && tb.has('number')) || (t === 'number' && tb.has('integer')));
  if (shared.length === 0) return true;
  const va = listedValues(a);
  const vb = listedValues(b);
  if (va && vb) {
    const set = new Set(va.map(canonical));
    if (!vb.some((v) => set.has(canonical(v)))) return true;
  }
  // A discriminator: a property both require, whose schemas are disjoint. It parts objects only:
  // a value of another type both allow (a null beside nullable, any value without a type) matches both.
  if (shared.some((t) => t !== 'object')) return false;
  const required = (parts: Part[]): Set<string> => new Set(parts.flatMap((p) => (Array.isArray(p.schema.required) ? (p.schema.required as string[]) : [])));
  const propertyParts = (parts: Part[], name: string): Part[] | null => {
    const out: Part[] = [];
    for (const p of parts) {
      const props = p.schema.properties;
      if (!isObject(props) || !(name in props)) continue;
      const own = conjunctionOf(props[name] as Schema, pointerJoin(p.pointer, 'properties', name), resolve);
      if (!Array.isArray(own)) return null;
      out.push(...own);
    }
    return out.length > 0 ? out : null;
  };
  const rb = required(b);
  for (const name of required(a)) {
    if (!rb.has(name)) continue;
    const pa = propertyParts(a, name);
    const pb = propertyParts(b, name);
    if (pa && pb && disjoint(pa, pb, resolve, depth + 1)) return true;
  }
  return false;
}
