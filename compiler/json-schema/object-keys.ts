// Which keys an object may have and the schema each key's value takes, read across every part
// of a conjunction. A key takes the value schema of every part that applies to it: the part's
// `properties` entry, else each of its `patternProperties` the key matches, else its
// `additionalProperties`; an `unevaluatedProperties` applies where its subtree evaluates
// nothing; every `propertyNames` must accept the key. Declared names are decided one by one.
// The other keys fall into regions, one per set of patterns they match: a product automaton
// of the patterns, the property names and the declared names (dfa/product.ts) gives each
// region's keys, and the region's value schema is the conjunction of what applies there.
import { GrammarError, pointerJoin } from '../errors.js';
import { alt, type Expr, lit } from '../ir.js';
import { MAX_LANGUAGE_STATES } from '../limits.js';
import { type ByteDfa, dfaAccepts, dfaExpr, dfaOfExpr, EMPTY_DFA, isEmptyDfa, LanguageTooLarge } from '../dfa/byte-dfa.js';
import { chooseFinals, MAX_PRODUCT_PARTS, productDfa, productTable } from '../dfa/product.js';
import { combinatorPart, distribute } from './combinators.js';
import { holdsValues, validatorAt, valuesAllowed } from './constants.js';
import { canonicalSpelling } from './json-chars.js';
import { isObject, type Lowering, type Schema } from './lowering.js';
import { commonTypes, conjunctionOf, conjunctionSchema, type Part } from './parts.js';
import { LEADING_CASELESS } from '../regex/regex.js';
import { contentDfa, JSON_SPELLING, patternContent, RAW_SPELLING, type Spelling, stringConstraints } from './strings.js';

interface Located {
  schema: Schema;
  pointer: string;
}

export interface DeclaredKey {
  name: string;
  value: Located;
  required: boolean;
}

/** Keys other than the declared names, and the schema of their values. */
export type OtherKeys =
  | { kind: 'excluding'; names: string[]; value: Located } // any key but the declared names
  | { kind: 'pattern'; pattern: string; pointer: string; value: Located } // keys matching one pattern
  | { kind: 'region'; content: Expr; value: Located; pointer: string }; // the key's characters, as an automaton

export interface KeyPlan {
  declared: DeclaredKey[];
  others: OtherKeys[];
}

/** How keys are written: JSON's canonical spelling between quotes (the default), or raw
 * characters within a layout's own key language (the XML styles: `universe`). */
export interface KeySpelling {
  spelling: Spelling;
  /** Every key the layout can write, as characters. */
  universe(): ByteDfa;
}

export const JSON_KEYS: KeySpelling = { spelling: JSON_SPELLING, universe: () => contentDfa(stringConstraints([]), JSON_SPELLING) };

/** What one part says about keys. */
interface KeyView {
  part: Part;
  properties: Record<string, Schema>;
  patterns: { pattern: string; schema: Schema; pointer: string }[];
  additional: Located | undefined;
  /** unevaluatedProperties, unless its subtree has additionalProperties (then it never applies). */
  unevaluated: { schema: Located; names: Set<string>; patterns: string[] } | undefined;
  propertyNames: Located | undefined;
}

function viewOf(part: Part): KeyView {
  const s = part.schema;
  const properties = isObject(s.properties) ? (s.properties as Record<string, Schema>) : {};
  const patterns = isObject(s.patternProperties) ? Object.entries(s.patternProperties as Record<string, Schema>).map(([pattern, schema]) => ({ pattern, schema, pointer: pointerJoin(part.pointer, 'patternProperties', pattern) })) : [];
  const located = (k: string): Located | undefined => (k in s ? { schema: s[k] as Schema, pointer: pointerJoin(part.pointer, k) } : undefined);
  const view: KeyView = { part, properties, patterns, additional: located('additionalProperties'), unevaluated: undefined, propertyNames: located('propertyNames') };
  if ('unevaluatedProperties' in s) {
    const scope = (part.scope ?? [part]).map((p) => (p === part ? view : viewOf(p)));
    if (scope.every((v) => v.additional === undefined)) {
      view.unevaluated = {
        schema: located('unevaluatedProperties')!,
        names: new Set(scope.flatMap((v) => Object.keys(v.properties))),
        patterns: scope.flatMap((v) => v.patterns.map((p) => p.pattern)),
      };
    }
  }
  return view;
}

/** Automata of patterns seen, for matching declared names (a schema repeats its patterns per object). */
const patternAutomata = new Map<string, ByteDfa>();
const KEPT_PATTERN_AUTOMATA = 256;

/**
 * Whether a JSON Schema pattern (a search) matches a declared name, read as the grammar reads
 * it (`(?i)` and modifier groups too, which JavaScript's RegExp here lacks: they threw); a
 * pattern too large for an automaton is run as a RegExp.
 */
export function patternMatches(pattern: string, name: string, pointer = ''): boolean {
  let dfa = patternAutomata.get(pattern);
  if (!dfa) {
    try {
      dfa = dfaOfExpr(patternContent(pattern, pointer, RAW_SPELLING));
    } catch (error) {
      if (!(error instanceof LanguageTooLarge)) throw error;
      return searchRegExp(pattern, pointer).test(name);
    }
    if (patternAutomata.size >= KEPT_PATTERN_AUTOMATA) patternAutomata.clear();
    patternAutomata.set(pattern, dfa);
  }
  return dfaAccepts(dfa, UTF8.encode(name));
}

const UTF8 = new TextEncoder();

/**
 * A pattern too large for an automaton as a RegExp, read as the grammar's parse reads it: in
 * Unicode mode, else in the older mode, a leading `(?i)` as the i flag. A modifier group, which
 * this Node's RegExp lacks, is an error naming the pattern.
 */
function searchRegExp(pattern: string, pointer: string): RegExp {
  const caseless = pattern.startsWith(LEADING_CASELESS);
  const source = caseless ? pattern.slice(LEADING_CASELESS.length) : pattern;
  const flags = caseless ? 'i' : '';
  try {
    return new RegExp(source, `${flags}u`);
  } catch {
    try {
      return new RegExp(source, flags);
    } catch {
      throw GrammarError.at(pointer, `the pattern is too large to match property names with an automaton (more than ${MAX_LANGUAGE_STATES} states), and JavaScript's RegExp here cannot run its modifier group`);
    }
  }
}

/** Whether a key matches `pattern` (found at `at`). */
type KeyMatcher = (pattern: string, at?: string) => boolean;

/**
 * The value schemas the parts' keywords give a key (`name`, or null for a key that is none
 * of the declared names), given which patterns it matches: each part's `properties` entry and
 * every pattern it matches, else the part's `additionalProperties`; its
 * `unevaluatedProperties` where its subtree evaluates nothing for the key.
 */
function viewMembers(views: KeyView[], matches: KeyMatcher, name: string | null): Located[] {
  const out: Located[] = [];
  for (const v of views) {
    const declared = name !== null && Object.hasOwn(v.properties, name);
    if (declared) out.push({ schema: v.properties[name]!, pointer: pointerJoin(v.part.pointer, 'properties', name) });
    const matched = v.patterns.filter((p) => matches(p.pattern, p.pointer));
    out.push(...matched);
    if (!declared && matched.length === 0 && v.additional) out.push(v.additional);
    const u = v.unevaluated;
    if (u && (name === null || !u.names.has(name)) && !u.patterns.some((p) => matches(p))) out.push(u.schema);
  }
  return out;
}

/** The value schemas `parts` give the key `name` (patterns matched as the grammar matches
 * them). Strict mode's closing is left out: a key it shuts out is never written. */
export function keyValueSchemas(parts: Part[], name: string): Located[] {
  return viewMembers(parts.map(viewOf), (p, at) => patternMatches(p, name, at), name);
}

export function planKeys(ctx: Lowering, parts: Part[], pointer: string, keys: KeySpelling = JSON_KEYS): KeyPlan | { empty: string } {
  const views = parts.map(viewOf);
  const explicit = views.some((v) => v.additional !== undefined || 'unevaluatedProperties' in v.part.schema);
  const bare = ctx.options.openBareObjects && views.every((v) => Object.keys(v.properties).length === 0 && v.patterns.length === 0 && !('required' in v.part.schema));
  // Strict mode: with no part saying what other keys take, there are none (unless no part
  // names a key and bare objects are open; propertyNames then still limits them).
  const closed: Located | null = explicit ? null : { schema: !ctx.options.strictMode || bare, pointer };
  const required = new Set(parts.flatMap((p) => (Array.isArray(p.schema.required) ? (p.schema.required as string[]) : [])));
  const names = [...new Set([...views.flatMap((v) => Object.keys(v.properties)), ...required])];
  const anyPattern = views.some((v) => v.patterns.length > 0);

  // What applies to a key, given which patterns it matches; under strict mode, `closed` too.
  const membersFor = (matches: KeyMatcher, name: string | null): Located[] => {
    const out = viewMembers(views, matches, name);
    if (closed && (name === null || !views.some((v) => Object.hasOwn(v.properties, name))) && !views.some((v) => v.patterns.some((p) => matches(p.pattern, p.pointer)))) out.push(closed);
    return out;
  };

  const declared: DeclaredKey[] = [];
  for (const name of names) {
    const members = membersFor((p, at) => patternMatches(p, name, at), name);
    const rejectedBy = views.find((v) => v.propertyNames && !nameAllowed(ctx, v.propertyNames, name));
    if (rejectedBy) members.push({ schema: false, pointer: rejectedBy.propertyNames!.pointer });
    const value = ctx.conjunction(members);
    const isDeclared = views.some((v) => Object.hasOwn(v.properties, name));
    // A declared property whose own schemas allow nothing is reported where they are.
    if (value.schema === false && (!required.has(name) || rejectedBy || !isDeclared)) {
      if (!required.has(name)) continue;
      const why = rejectedBy ? "'propertyNames' does not accept it" : views.some((v) => v.patterns.some((p) => patternMatches(p.pattern, name, p.pointer))) ? "its pattern property's schema is false" : "it is not among 'properties' and additional properties are not allowed";
      return { empty: `the property '${name}' is required, but ${why}` };
    }
    declared.push({ name, value, required: required.has(name) });
  }
  const nameRules = views.filter((v) => v.propertyNames);
  if (!anyPattern && nameRules.length === 0) {
    const value = ctx.conjunction(membersFor(() => false, null));
    return { declared, others: value.schema === false ? [] : [{ kind: 'excluding', names: names, value }] };
  }
  // Patterns as they stand are JSON keys; another layout's keys go through its universe.
  const simple = closed?.schema === true || keys !== JSON_KEYS ? null : simplePatterns(views, names);
  if (simple && nameRules.length === 0) {
    return { declared, others: simple.map((p) => ({ kind: 'pattern' as const, pattern: p.pattern, pointer: p.pointer, value: { schema: p.schema, pointer: p.pointer } })) };
  }
  return { declared, others: regions(ctx, views, names, membersFor, pointer, keys) };
}

/** The patterns as they stand, when that is exact: one part, no other keys, no pattern
 * matching a declared name, and every pattern with the same schema (a key matching two then
 * takes that schema once). */
function simplePatterns(views: KeyView[], names: string[]): KeyView['patterns'] | null {
  if (views.length !== 1) return null;
  const v = views[0]!;
  if (v.unevaluated || (v.additional && v.additional.schema !== false)) return null;
  const first = JSON.stringify(v.patterns[0]?.schema);
  if (v.patterns.some((p) => JSON.stringify(p.schema) !== first)) return null;
  if (v.patterns.some((p) => names.some((n) => patternMatches(p.pattern, n, p.pointer)))) return null;
  return v.patterns;
}

/** The keys other than `names`, split by the patterns they match, each region with its value. */
function regions(ctx: Lowering, views: KeyView[], names: string[], membersFor: (matches: (p: string) => boolean, name: null) => Located[], pointer: string, keys: KeySpelling): OtherKeys[] {
  const patterns = [...new Set(views.flatMap((v) => v.patterns.map((p) => p.pattern)))];
  const patternPointer = (p: string): string => views.flatMap((v) => v.patterns).find((x) => x.pattern === p)!.pointer;
  const nameRules = views.filter((v) => v.propertyNames).map((v) => v.propertyNames!);
  const at = nameRules[0]?.pointer ?? pointerJoin(pointer, 'patternProperties');
  if (patterns.length + nameRules.length + 2 > MAX_PRODUCT_PARTS) throw GrammarError.at(at, `more than ${MAX_PRODUCT_PARTS - 2} patterns and property-name schemas in one object cannot be combined (the limit)`);
  try {
    const universe = keys.universe();
    const declared = names.length > 0 ? spelledDfa(names, keys.spelling) : null;
    const components: ByteDfa[] = [universe, ...(declared ? [declared] : []), ...patterns.map((p) => dfaOfExpr(patternContent(p, patternPointer(p), keys.spelling))), ...nameRules.map((r) => nameLanguage(ctx, r.schema, r.pointer, keys.spelling))];
    const first = declared ? 2 : 1;
    const ruleBits = ((1 << nameRules.length) - 1) << (first + patterns.length);
    const table = productTable(components);
    const out: OtherKeys[] = [];
    const seen = new Set<number>();
    for (const bits of table.accepting) {
      const ok = (bits & 1) === 1 && (!declared || (bits & 2) === 0) && (bits & ruleBits) === ruleBits;
      if (!ok || seen.has(bits)) continue;
      seen.add(bits);
      const matched = new Set(patterns.filter((_, i) => (bits & (1 << (first + i))) !== 0));
      const value = ctx.conjunction(membersFor((p) => matched.has(p), null));
      if (value.schema === false) continue;
      const keys = chooseFinals(table, (b) => b === bits);
      if (isEmptyDfa(keys)) continue;
      out.push({ kind: 'region', content: dfaExpr(keys), value, pointer: matched.size > 0 ? patternPointer([...matched][0]!) : value.pointer });
    }
    return out;
  } catch (error) {
    if (!(error instanceof LanguageTooLarge)) throw error;
    throw GrammarError.at(at, `the patterns and property names of this object together need more than ${MAX_LANGUAGE_STATES} automaton states (the limit)`);
  }
}

/** Whether `propertyNames` accepts a declared name (ajv, on its whole schema). */
function nameAllowed(ctx: Lowering, rule: Located, name: string): boolean {
  if (typeof rule.schema === 'boolean') return rule.schema;
  return validatorAt(ctx.root, rule.pointer)(name) as boolean;
}

/**
 * The keys a `propertyNames` schema accepts, as the characters between the quotes. Only what
 * applies to strings matters: type, enum, const, pattern, format, lengths, and anyOf, oneOf,
 * allOf and $ref of those.
 */
export function nameLanguage(ctx: Lowering, schema: Schema, pointer: string, spelling: Spelling = JSON_SPELLING): ByteDfa {
  const none = EMPTY_DFA;
  if (schema === false) return none;
  const parts = conjunctionOf(schema, pointer, ctx.lookupRef);
  if (!Array.isArray(parts)) return none;
  const split = combinatorPart(parts);
  if (split >= 0) {
    const branches = distribute(parts, split, ctx.lookupRef).map((b) => {
      if (b.alone) return nameLanguage(ctx, b.alone.schema, b.alone.pointer, spelling);
      return Array.isArray(b.conjunction) ? nameLanguageOfParts(ctx, b.conjunction, spelling) : none;
    });
    return branches.reduce((a, b) => productDfa([a, b], (bits) => bits !== 0));
  }
  return nameLanguageOfParts(ctx, parts, spelling);
}

function nameLanguageOfParts(ctx: Lowering, parts: Part[], spelling: Spelling): ByteDfa {
  if (combinatorPart(parts) >= 0) return nameLanguage(ctx, conjunctionSchema(parts), parts[0]!.pointer, spelling);
  if (!commonTypes(parts).includes('string')) return EMPTY_DFA;
  if (parts.some(holdsValues)) {
    const values = valuesAllowed(ctx.root, parts).filter((v): v is string => typeof v === 'string');
    if (values.length === 0) return EMPTY_DFA;
    return spelledDfa(values, spelling);
  }
  return contentDfa(stringConstraints(parts), spelling);
}


/** The given strings as the characters between quotes, each in its one spelling. */
function spelledDfa(strings: string[], spelling: Spelling): ByteDfa {
  if (spelling !== JSON_SPELLING) return dfaOfExpr(alt(...strings.map((v) => lit(v))));
  return dfaOfExpr(alt(...strings.map((v) => lit([...v].map((ch) => canonicalSpelling(ch.codePointAt(0)!)).join('')))));
}
