// The grammar IR every front end lowers to. Rules hold expression trees; the passes in
// passes/ bring them to normal form and the FSM builder turns each rule into one automaton.
// Token-level kinds (token, excludeToken, tokenDispatch) are carried for the vocabulary-aware
// compiler; the byte-level matcher never matches them from text.
import { GrammarError, type GrammarErrorLocation } from './errors.js';
import { MAX_RULES } from './limits.js';

/** Code-point ranges as a flat, sorted, merged list [lo0, hi0, lo1, hi1, ...] (inclusive). */
export type Ranges = readonly number[];

export type Expr =
  | { kind: 'bytes'; bytes: Uint8Array } // literal; empty means ""
  | { kind: 'class'; ranges: Ranges } // one code point, encoded as UTF-8
  | { kind: 'byteRange'; lo: number; hi: number } // one raw byte (UTF-8 fragments, token pieces)
  | { kind: 'seq'; items: Expr[] }
  | { kind: 'choice'; items: Expr[]; cause?: EmptyCause } // no items: matches nothing (cause: why)
  | { kind: 'repeat'; body: Expr; min: number; max: number } // inline; max -1 = unbounded
  | { kind: 'ref'; rule: number }
  | { kind: 'counted'; rule: number; min: number; max: number } // matcher counts iterations
  | { kind: 'automaton'; states: number; finals: number[]; edges: number[]; units?: UnitCount } // see Automaton
  | { kind: 'token'; ids: number[] }
  | { kind: 'excludeToken'; ids: number[] }
  | { kind: 'tagDispatch'; tags: { trigger: Uint8Array; rule: number }[]; loop: boolean; excludes: Uint8Array[] }
  | { kind: 'tokenDispatch'; tags: { token: number; rule: number }[]; loop: boolean; excludes: number[] };

/**
 * A deterministic byte automaton, start state 0, built by dfa/ from products of languages
 * (a number range with a remainder, keys matched by some patterns and not others) that no
 * regular expression writes compactly. `edges` holds [from, lo, hi, to] quadruples, sorted by
 * source and byte; every state can reach a final one. It is never empty (an empty language is
 * `nothing`).
 */
export type Automaton = Extract<Expr, { kind: 'automaton' }>;

/**
 * An automaton's strings of at most `max` units (characters), counted by the matcher beside
 * its state instead of multiplying its states by every count (row-engine.ts): `ends` lists
 * the states entered as a unit ends (the start among them), each step into one counts one.
 * Such an automaton is a whole rule, where the count starts at 0 (passes/normalize.ts lifts it).
 */
export interface UnitCount {
  ends: number[];
  max: number;
}

/** Why a front end produced an expression that matches nothing, and where the input says so:
 * reported if the whole language turns out empty because of it (passes/empty-language.ts). */
export interface EmptyCause {
  message: string;
  location: GrammarErrorLocation;
}

/** Where a rule comes from in the input, for errors about it. */
export interface RuleOrigin {
  location: GrammarErrorLocation;
  /** The name the input gives the rule (EBNF), if any. */
  name?: string;
}

export interface Rule {
  name: string;
  body: Expr;
  /** What must follow every occurrence (only used to classify tokens ahead of time). */
  lookahead: Expr | null;
  /** True when the lookahead is the whole context, not only a necessary prefix of it. */
  exactLookahead: boolean;
  origin?: RuleOrigin;
  /** A JSON array (its body starts with `[`) whose items must differ from each other, which no
   * grammar can hold for free strings or numbers: the matcher refuses an item equal to an
   * earlier one (unique-items-guard.ts). Such a rule is never inlined. */
  uniqueItems?: boolean;
}

export interface GrammarIR {
  rules: Rule[];
  root: number;
}

const utf8 = new TextEncoder();

export const EMPTY: Expr = { kind: 'bytes', bytes: new Uint8Array(0) };
export const NOTHING: Expr = { kind: 'choice', items: [] };

/** Matches nothing, because of `message` at `location`. */
export function nothing(message: string, location: GrammarErrorLocation): Expr {
  return { kind: 'choice', items: [], cause: { message, location } };
}

export function lit(text: string): Expr {
  return { kind: 'bytes', bytes: utf8.encode(text) };
}
export function cls(ranges: Ranges): Expr {
  return { kind: 'class', ranges };
}
export function seq(...items: Expr[]): Expr {
  return items.length === 1 ? items[0]! : { kind: 'seq', items };
}
export function alt(...items: Expr[]): Expr {
  return items.length === 1 ? items[0]! : { kind: 'choice', items };
}
export function rep(body: Expr, min: number, max: number): Expr {
  return { kind: 'repeat', body, min, max };
}
export function opt(body: Expr): Expr {
  return rep(body, 0, 1);
}
export function star(body: Expr): Expr {
  return rep(body, 0, -1);
}
export function ref(rule: number): Expr {
  return { kind: 'ref', rule };
}

/** Builds a grammar rule by rule; a rule can be declared first and defined later (recursion). */
export class GrammarBuilder {
  readonly rules: Rule[] = [];
  private readonly byName = new Map<string, number>();
  private where: (() => GrammarErrorLocation) | null = null;

  /** From now on, declaring more than MAX_RULES rules is a GrammarError at `where()` (a front
   * end lowering a client's input; a few lines of schema can ask for millions of rules). */
  limitRules(where: () => GrammarErrorLocation): void {
    this.where = where;
  }

  /** A fresh rule name based on `base` (base, base_1, base_2, ...). */
  freshName(base: string): string {
    if (!this.byName.has(base)) return base;
    for (let i = 1; ; i++) if (!this.byName.has(`${base}_${i}`)) return `${base}_${i}`;
  }

  declare(name: string, origin?: RuleOrigin): number {
    const id = this.rules.length;
    if (this.where && id >= MAX_RULES) throw GrammarError.located(this.where(), `the grammar would need more than ${MAX_RULES} rules (the limit); simplify the schema here`);
    const unique = this.freshName(name);
    this.rules.push({ name: unique, body: NOTHING, lookahead: null, exactLookahead: false, ...(origin ? { origin } : {}) });
    this.byName.set(unique, id);
    return id;
  }

  define(id: number, body: Expr, lookahead: Expr | null = null): number {
    const rule = this.rules[id]!;
    rule.body = body;
    rule.lookahead = lookahead;
    return id;
  }

  add(name: string, body: Expr, lookahead: Expr | null = null, origin?: RuleOrigin): number {
    return this.define(this.declare(name, origin), body, lookahead);
  }

  idOf(name: string): number | undefined {
    return this.byName.get(name);
  }

  build(root: number): GrammarIR {
    return { rules: this.rules, root };
  }

  /** Copies a whole grammar in (renaming and renumbering its rules); returns its root's id.
   * Structural tags assemble their JSON-schema, regex and EBNF parts this way; `origin`
   * replaces the copied rules' own (which point into the embedded input, not this one). */
  embed(grammar: GrammarIR, prefix: string, origin?: RuleOrigin): number {
    const ids = grammar.rules.map((r) => this.declare(`${prefix}_${r.name}`, origin));
    const map = (r: number): number => ids[r]!;
    grammar.rules.forEach((r, i) => {
      const rule = this.rules[ids[i]!]!;
      rule.body = mapRefs(r.body, map);
      rule.lookahead = r.lookahead && mapRefs(r.lookahead, map);
      rule.exactLookahead = r.exactLookahead;
      if (r.uniqueItems) rule.uniqueItems = true;
    });
    return ids[grammar.root]!;
  }
}

/** Every rule id an expression refers to, in order of appearance. */
export function forEachRef(expr: Expr, visit: (rule: number, how: 'ref' | 'counted' | 'dispatch') => void): void {
  switch (expr.kind) {
    case 'ref':
      return visit(expr.rule, 'ref');
    case 'counted':
      return visit(expr.rule, 'counted');
    case 'seq':
    case 'choice':
      for (const item of expr.items) forEachRef(item, visit);
      return;
    case 'repeat':
      return forEachRef(expr.body, visit);
    case 'tagDispatch':
    case 'tokenDispatch':
      for (const tag of expr.tags) visit(tag.rule, 'dispatch');
      return;
    default:
      return;
  }
}

/** Rewrites rule references (used by renumbering passes). */
export function mapRefs(expr: Expr, map: (rule: number) => number): Expr {
  switch (expr.kind) {
    case 'ref':
      return { kind: 'ref', rule: map(expr.rule) };
    case 'counted':
      return { ...expr, rule: map(expr.rule) };
    case 'seq':
    case 'choice': {
      // A loop, not items.map with a closure: a fresh closure per node, and V8 optimised and
      // dropped that closure's code again and again while grammars were compiled.
      const items: Expr[] = [];
      for (const item of expr.items) items.push(mapRefs(item, map));
      return { ...expr, items };
    }
    case 'repeat':
      return { ...expr, body: mapRefs(expr.body, map) };
    case 'tagDispatch':
      return { ...expr, tags: expr.tags.map((t) => ({ trigger: t.trigger, rule: map(t.rule) })) };
    case 'tokenDispatch':
      return { ...expr, tags: expr.tags.map((t) => ({ token: t.token, rule: map(t.rule) })) };
    default:
      return expr;
  }
}
