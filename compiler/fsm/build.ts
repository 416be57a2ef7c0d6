// Thompson construction of one byte-level automaton per rule, from a normalised grammar.
import { utf8Sequences } from '../charset.js';
import { GrammarError } from '../errors.js';
import { MAX_AUTOMATON_STATES } from '../limits.js';
import type { Automaton, Expr, GrammarIR, Rule, UnitCount } from '../ir.js';
import { buildDispatch } from './aho-corasick.js';
import {
  type CountedRepeat,
  EDGE_BYTE,
  EDGE_EPSILON,
  EDGE_EXCLUDE_TOKEN,
  EDGE_REPEAT,
  EDGE_RULE,
  EDGE_TOKEN,
} from './edges.js';
import { minimizeRuleFsm } from './minimize.js';
import { RuleFsm, TooManyStates } from './rule-fsm.js';
import { RuleShapes, ruleShape } from './rule-shapes.js';

/** Shared tables the rule automata point into. */
export interface FsmTables {
  repeats: CountedRepeat[]; // loop state is local to the owning rule until packing
  repeatOwner: number[];
  tokenSets: number[][];
  /** Per rule whose body is a counted automaton (ir.ts UnitCount): its unit ends and maximum. */
  unitCounts: Map<number, UnitCount>;
}

export function buildRuleFsms(grammar: GrammarIR): { fsms: RuleFsm[]; tables: FsmTables } {
  const tables: FsmTables = { repeats: [], repeatOwner: [], tokenSets: [], unitCounts: new Map() };
  const budget = { left: MAX_AUTOMATON_STATES };
  const shapes = new RuleShapes();
  const tooLarge = (rule: Rule): GrammarError =>
    new GrammarError(`the grammar is too large: its automata would need more than ${MAX_AUTOMATON_STATES} states (the limit), reached in rule '${rule.name}' (bounded repeats nested in each other, or many properties with count limits, multiply states)`);
  const fsms = grammar.rules.map((rule, ruleId) => {
    if (rule.body.kind === 'automaton' && rule.body.units) {
      budget.left -= rule.body.states;
      if (budget.left < 0) throw tooLarge(rule);
      tables.unitCounts.set(ruleId, rule.body.units);
      return countedFsm(rule.body);
    }
    const shape = ruleShape(rule.body);
    const known = shape && shapes.get(shape);
    if (known) {
      // Counted as if built again, so the limit falls where it would.
      budget.left -= known.states - 1;
      if (budget.left < 0) throw tooLarge(rule);
      return known.fsm;
    }
    const fsm = new RuleFsm();
    fsm.budget = budget;
    try {
      buildRule(fsm, rule.body, ruleId, tables);
    } catch (error) {
      if (!(error instanceof TooManyStates)) throw error;
      throw tooLarge(rule);
    }
    fsm.budget = null;
    const built = minimizeRuleFsm(fsm.simplify());
    if (shape) shapes.set(shape, built, fsm.numStates);
    return built;
  });
  return { fsms, tables };
}

/** A counted automaton as it is, state for state (its states say where units end). */
function countedFsm(automaton: Automaton): RuleFsm {
  const fsm = new RuleFsm();
  for (let s = 1; s < automaton.states; s++) fsm.newState();
  for (const f of automaton.finals) fsm.finals[f] = true;
  const edges = automaton.edges;
  for (let i = 0; i < edges.length; i += 4) fsm.edge(edges[i]!, EDGE_BYTE, edges[i + 3]!, edges[i + 1], edges[i + 2]);
  return fsm;
}

function buildRule(fsm: RuleFsm, body: Expr, ruleId: number, tables: FsmTables): void {
  if (body.kind === 'tagDispatch') {
    buildDispatch(fsm, {
      triggers: body.tags.map((t) => ({ bytes: t.trigger, rule: t.rule })),
      excludes: body.excludes,
      loop: body.loop,
    });
  } else if (body.kind === 'tokenDispatch') {
    buildTokenDispatch(fsm, body, tables);
  } else {
    const end = build(fsm, body, 0, ruleId, tables);
    fsm.finals[end] = true;
  }
}

function build(fsm: RuleFsm, expr: Expr, from: number, ruleId: number, tables: FsmTables): number {
  switch (expr.kind) {
    case 'bytes': {
      let cur = from;
      for (const b of expr.bytes) {
        const next = fsm.newState();
        fsm.edge(cur, EDGE_BYTE, next, b, b);
        cur = next;
      }
      return cur;
    }
    case 'byteRange': {
      const next = fsm.newState();
      fsm.edge(from, EDGE_BYTE, next, expr.lo, expr.hi);
      return next;
    }
    case 'class': {
      const end = fsm.newState();
      for (const path of utf8Sequences(expr.ranges)) {
        let cur = from;
        for (let i = 0; i < path.length; i += 2) {
          const next = i + 2 === path.length ? end : fsm.newState();
          fsm.edge(cur, EDGE_BYTE, next, path[i], path[i + 1]);
          cur = next;
        }
      }
      return end;
    }
    case 'seq': {
      let cur = from;
      for (const item of expr.items) cur = build(fsm, item, cur, ruleId, tables);
      return cur;
    }
    case 'choice': {
      const end = fsm.newState();
      for (const item of expr.items) {
        // A fresh entry state per branch keeps loops of one branch out of the others.
        const entry = fsm.newState();
        fsm.eps(from, entry);
        fsm.eps(build(fsm, item, entry, ruleId, tables), end);
      }
      return end;
    }
    case 'repeat': {
      let cur = from;
      for (let i = 0; i < expr.min; i++) cur = isolated(fsm, expr.body, cur, ruleId, tables);
      if (expr.max === -1) {
        const loop = fsm.newState();
        fsm.eps(cur, loop);
        fsm.eps(isolated(fsm, expr.body, loop, ruleId, tables), loop);
        return loop;
      }
      const end = fsm.newState();
      fsm.eps(cur, end);
      for (let i = expr.min; i < expr.max; i++) {
        cur = isolated(fsm, expr.body, cur, ruleId, tables);
        fsm.eps(cur, end);
      }
      return end;
    }
    case 'automaton': {
      if (expr.units) throw new Error('internal: a counted automaton must be a whole rule body');
      // Its own states behind an epsilon edge (its start may be the target of a loop).
      const base = fsm.numStates;
      for (let s = 0; s < expr.states; s++) fsm.newState();
      const end = fsm.newState();
      fsm.eps(from, base);
      for (let i = 0; i < expr.edges.length; i += 4) fsm.edge(base + expr.edges[i]!, EDGE_BYTE, base + expr.edges[i + 3]!, expr.edges[i + 1], expr.edges[i + 2]);
      for (const f of expr.finals) fsm.eps(base + f, end);
      return end;
    }
    case 'ref': {
      const next = fsm.newState();
      fsm.edge(from, EDGE_RULE, next, 0, 0, expr.rule);
      return next;
    }
    case 'counted': {
      const loop = fsm.newState();
      const next = fsm.newState();
      const index = tables.repeats.length;
      tables.repeats.push({ rule: expr.rule, min: expr.min, max: expr.max, loop });
      tables.repeatOwner.push(ruleId);
      fsm.repeatLoops.set(index, loop);
      fsm.eps(from, loop);
      fsm.edge(loop, EDGE_REPEAT, next, 0, 0, index);
      return next;
    }
    case 'token':
    case 'excludeToken': {
      const next = fsm.newState();
      tables.tokenSets.push([...new Set(expr.ids)].sort((a, b) => a - b));
      fsm.edge(from, expr.kind === 'token' ? EDGE_TOKEN : EDGE_EXCLUDE_TOKEN, next, 0, 0, tables.tokenSets.length - 1);
      return next;
    }
    case 'tagDispatch':
    case 'tokenDispatch':
      throw new Error('internal: a dispatch must be a whole rule body after normalisation');
  }
}

/**
 * The epsilon-free automaton of one expression that refers to no rule and no token (a
 * language the dfa/ operations work on), within the grammar-wide state limit.
 */
export function expressionFsm(expr: Expr): RuleFsm {
  const fsm = new RuleFsm();
  fsm.budget = { left: MAX_AUTOMATON_STATES };
  const tables: FsmTables = { repeats: [], repeatOwner: [], tokenSets: [], unitCounts: new Map() };
  fsm.finals[build(fsm, expr, 0, -1, tables)] = true;
  if (fsm.kind.some((k) => k !== EDGE_BYTE && k !== EDGE_EPSILON)) throw new Error('internal: a language expression refers to a rule or token');
  fsm.budget = null;
  return fsm.simplify();
}

/** Builds `expr` behind an epsilon edge, so a loop inside it cannot capture `from`. */
function isolated(fsm: RuleFsm, expr: Expr, from: number, ruleId: number, tables: FsmTables): number {
  const entry = fsm.newState();
  fsm.eps(from, entry);
  return build(fsm, expr, entry, ruleId, tables);
}

/** Free tokens loop at the start; a trigger token dispatches to its rule. */
function buildTokenDispatch(fsm: RuleFsm, body: Extract<Expr, { kind: 'tokenDispatch' }>, tables: FsmTables): void {
  const done = body.loop ? 0 : fsm.newState();
  fsm.finals[0] = true;
  fsm.finals[done] = true;
  tables.tokenSets.push([...new Set([...body.tags.map((t) => t.token), ...body.excludes])].sort((a, b) => a - b));
  fsm.edge(0, EDGE_EXCLUDE_TOKEN, 0, 0, 0, tables.tokenSets.length - 1);
  for (const tag of body.tags) {
    const mid = fsm.newState();
    tables.tokenSets.push([tag.token]);
    fsm.edge(0, EDGE_TOKEN, mid, 0, 0, tables.tokenSets.length - 1);
    fsm.edge(mid, EDGE_RULE, done, 0, 0, tag.rule);
  }
}
