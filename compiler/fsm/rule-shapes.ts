// Rules of one shape share one automaton. A JSON schema's grammar repeats bodies that differ
// only in the rules they refer to: each property's value and key region, each context rule
// (mask/context.ts) that is "the rest of the object" again (13 of the tool-call schema's 27
// rules). Building, determinising and minimising such a body again gives the same automaton
// with other rule ids on its reference edges, so it is built once and copied.
//
// The shape numbers the referenced rules by rank (the smallest id referred to is 0): a copy
// keeps their order, so the edges sort as a fresh build's would (minimize.ts sorts by symbol,
// determinize.ts keeps the order it meets them) and the copy equals what building it would
// give, state numbering included. Bodies that write into the grammar's shared tables (counted
// repeats, token sets, dispatch) are built every time.
import type { Expr } from '../ir.js';
import { EDGE_RULE } from './edges.js';
import { RuleFsm } from './rule-fsm.js';

/** A body's shape: its structure, references by rank, and the referenced rule ids in rank order. */
export interface RuleShape {
  key: string;
  refs: number[];
}

/** The shape of `body`, or null when its automaton needs the shared tables. */
export function ruleShape(body: Expr): RuleShape | null {
  const ids = new Set<number>();
  if (!collectRefs(body, ids)) return null;
  const refs = [...ids].sort((a, b) => a - b);
  const rank = new Map<number, number>(refs.map((r, i) => [r, i]));
  return { key: shapeText(body, rank), refs };
}

/** The automata built so far by shape, with the states their construction spent. */
export class RuleShapes {
  private readonly built = new Map<string, { fsm: RuleFsm; refs: number[]; states: number }>();

  /** A copy of the automaton of `shape`'s first rule, references renamed to this one's, and the states its construction took; or undefined. */
  get(shape: RuleShape): { fsm: RuleFsm; states: number } | undefined {
    const known = this.built.get(shape.key);
    if (!known) return undefined;
    const rename = new Map<number, number>(known.refs.map((r, i) => [r, shape.refs[i]!]));
    const src = known.fsm;
    const fsm = new RuleFsm();
    fsm.finals = src.finals.slice();
    fsm.from = src.from.slice();
    fsm.kind = src.kind.slice();
    fsm.lo = src.lo.slice();
    fsm.hi = src.hi.slice();
    fsm.to = src.to.slice();
    fsm.aux = src.aux.map((aux, e) => (src.kind[e] === EDGE_RULE ? rename.get(aux)! : aux));
    return { fsm, states: known.states };
  }

  set(shape: RuleShape, fsm: RuleFsm, states: number): void {
    this.built.set(shape.key, { fsm, refs: shape.refs, states });
  }
}

/** Adds the rules `expr` refers to; false if it has a counted repeat, tokens or a dispatch. */
function collectRefs(expr: Expr, ids: Set<number>): boolean {
  switch (expr.kind) {
    case 'ref':
      ids.add(expr.rule);
      return true;
    case 'seq':
    case 'choice':
      for (const item of expr.items) if (!collectRefs(item, ids)) return false;
      return true;
    case 'repeat':
      return collectRefs(expr.body, ids);
    case 'bytes':
    case 'byteRange':
    case 'class':
      return true;
    case 'automaton':
      return expr.units === undefined;
    default:
      return false;
  }
}

/** Unambiguous text of a body (terminators and item counts delimit every part), references by rank. */
function shapeText(expr: Expr, rank: Map<number, number>): string {
  switch (expr.kind) {
    case 'ref':
      return `f${rank.get(expr.rule)};`;
    case 'bytes':
      return `b${expr.bytes.join(',')};`;
    case 'byteRange':
      return `r${expr.lo},${expr.hi};`;
    case 'class':
      return `c${expr.ranges.join(',')};`;
    case 'automaton':
      return `m${expr.states};${expr.finals.join(',')};${expr.edges.join(',')};`;
    case 'seq':
    case 'choice': {
      let out = `${expr.kind === 'seq' ? 's' : 'a'}${expr.items.length}(`;
      for (const item of expr.items) out += shapeText(item, rank);
      return out + ')';
    }
    case 'repeat':
      return `p${expr.min},${expr.max}(${shapeText(expr.body, rank)})`;
    default:
      throw new Error(`internal: no shape for a ${expr.kind}`);
  }
}
