// All rule automata packed into one CSR automaton of typed arrays: what the matcher walks and
// what compile-grammar serialises. States are global; each rule owns a contiguous block.
import type { GrammarIR } from '../ir.js';
import { buildRuleFsms } from './build.js';
import { EDGE_BYTE, EDGE_EXCLUDE_TOKEN, EDGE_REPEAT, EDGE_RULE, EDGE_TOKEN } from './edges.js';

/** `stateScan` bits: the state has byte edges; it has token edges. Either makes an item worth
 * keeping in a row (it can take the next byte or token). */
export const SCAN_BYTE = 1;
export const SCAN_TOKEN = 2;

export interface GrammarFsm {
  root: number;
  ruleNames: string[];
  ruleStart: Int32Array; // start state per rule
  ruleNullable: Uint8Array;
  stateRule: Int32Array;
  stateFinal: Uint8Array;
  /** SCAN_BYTE | SCAN_TOKEN per state. */
  stateScan: Uint8Array;
  edgeStart: Int32Array; // CSR offsets, length numStates + 1
  edgeKind: Uint8Array;
  edgeLo: Uint8Array;
  edgeHi: Uint8Array;
  edgeAux: Int32Array;
  edgeTarget: Int32Array;
  repRule: Int32Array;
  repMin: Int32Array;
  repMax: Int32Array;
  repLoop: Int32Array; // global state
  tokenSetStart: Int32Array; // CSR offsets into tokenIds
  tokenIds: Int32Array;
  /** Per rule: the rule holding what provably follows it (mask/context.ts), or -1. */
  ruleContext: Int32Array;
  /** Per rule: 1 when nothing can follow its context (or the rule itself, for the root). */
  ruleContextClosed: Uint8Array;
  /** Per rule: the most units (characters) its strings may have, counted by the row engine
   * beside its state (ir.ts UnitCount), or -1 where the rule counts nothing. */
  ruleUnitMax: Int32Array;
  /** Per state of such a rule: 1 where a step into it ends a unit. */
  stateUnitEnd: Uint8Array;
  /** Per state of such a rule: the fewest units from it to an end of its rule (0 elsewhere). */
  stateUnitsLeft: Int32Array;
}

/** The state just past `rule`'s states (they are ruleStart[rule] up to it). */
export function ruleEnd(fsm: GrammarFsm, rule: number): number {
  return rule + 1 < fsm.ruleStart.length ? fsm.ruleStart[rule + 1]! : fsm.stateRule.length;
}

export function buildGrammarFsm(grammar: GrammarIR): GrammarFsm {
  const { fsms, tables } = buildRuleFsms(grammar);
  const numRules = fsms.length;
  const ruleStart = new Int32Array(numRules);
  let numStates = 0;
  let numEdges = 0;
  fsms.forEach((f, r) => {
    ruleStart[r] = numStates;
    numStates += f.numStates;
    numEdges += f.from.length;
  });
  const stateRule = new Int32Array(numStates);
  const stateFinal = new Uint8Array(numStates);
  const stateScan = new Uint8Array(numStates);
  const edgeStart = new Int32Array(numStates + 1);
  const edgeKind = new Uint8Array(numEdges);
  const edgeLo = new Uint8Array(numEdges);
  const edgeHi = new Uint8Array(numEdges);
  const edgeAux = new Int32Array(numEdges);
  const edgeTarget = new Int32Array(numEdges);
  let e = 0;
  fsms.forEach((f, r) => {
    const base = ruleStart[r]!;
    const order = f.from.map((_, i) => i).sort((a, b) => f.from[a]! - f.from[b]! || a - b);
    let k = 0;
    for (let s = 0; s < f.numStates; s++) {
      const g = base + s;
      stateRule[g] = r;
      stateFinal[g] = f.finals[s] ? 1 : 0;
      edgeStart[g] = e;
      while (k < order.length && f.from[order[k]!] === s) {
        const i = order[k++]!;
        edgeKind[e] = f.kind[i]!;
        edgeLo[e] = f.lo[i]!;
        edgeHi[e] = f.hi[i]!;
        edgeAux[e] = f.aux[i]!;
        edgeTarget[e] = base + f.to[i]!;
        stateScan[g]! |= f.kind[i] === EDGE_BYTE ? SCAN_BYTE : f.kind[i] === EDGE_TOKEN || f.kind[i] === EDGE_EXCLUDE_TOKEN ? SCAN_TOKEN : 0;
        e++;
      }
    }
  });
  edgeStart[numStates] = e;
  const nRep = tables.repeats.length;
  const repRule = new Int32Array(nRep);
  const repMin = new Int32Array(nRep);
  const repMax = new Int32Array(nRep);
  const repLoop = new Int32Array(nRep).fill(-1);
  tables.repeats.forEach((rep, i) => {
    const owner = tables.repeatOwner[i]!;
    const local = fsms[owner]!.repeatLoops.get(i);
    repRule[i] = rep.rule;
    repMin[i] = rep.min;
    repMax[i] = rep.max;
    if (local !== undefined) repLoop[i] = ruleStart[owner]! + local;
  });
  const tokenSetStart = new Int32Array(tables.tokenSets.length + 1);
  const tokenIds = new Int32Array(tables.tokenSets.reduce((n, s) => n + s.length, 0));
  let t = 0;
  tables.tokenSets.forEach((set, i) => {
    tokenSetStart[i] = t;
    for (const id of set) tokenIds[t++] = id;
  });
  tokenSetStart[tables.tokenSets.length] = t;
  const fsm: GrammarFsm = {
    root: grammar.root,
    ruleNames: grammar.rules.map((r) => r.name),
    ruleStart,
    ruleNullable: new Uint8Array(numRules),
    stateRule,
    stateFinal,
    stateScan,
    edgeStart,
    edgeKind,
    edgeLo,
    edgeHi,
    edgeAux,
    edgeTarget,
    repRule,
    repMin,
    repMax,
    repLoop,
    tokenSetStart,
    tokenIds,
    ruleContext: new Int32Array(numRules).fill(-1),
    ruleContextClosed: new Uint8Array(numRules),
    ruleUnitMax: new Int32Array(numRules).fill(-1),
    stateUnitEnd: new Uint8Array(numStates),
    stateUnitsLeft: new Int32Array(numStates),
  };
  for (const [rule, units] of tables.unitCounts) {
    fsm.ruleUnitMax[rule] = units.max;
    for (const s of units.ends) fsm.stateUnitEnd[ruleStart[rule]! + s] = 1;
    unitsLeft(fsm, rule);
  }
  analyseNullable(fsm);
  return fsm;
}

/**
 * stateUnitsLeft for a counted rule: a walk back from its final states along reversed edges,
 * a step into a unit end costing one, the others nothing; by distance, each state settled once.
 */
function unitsLeft(fsm: GrammarFsm, rule: number): void {
  const from = fsm.ruleStart[rule]!;
  const n = ruleEnd(fsm, rule) - from;
  // Reversed edges, by target: the sources.
  const predStart = new Int32Array(n + 1);
  for (let e = fsm.edgeStart[from]!; e < fsm.edgeStart[from + n]!; e++) predStart[fsm.edgeTarget[e]! - from + 1]!++;
  for (let s = 0; s < n; s++) predStart[s + 1]! += predStart[s]!;
  const fill = predStart.slice(0, n);
  const preds = new Int32Array(predStart[n]!);
  for (let s = 0; s < n; s++) for (let e = fsm.edgeStart[from + s]!; e < fsm.edgeStart[from + s + 1]!; e++) preds[fill[fsm.edgeTarget[e]! - from]!++] = s;
  const left = new Int32Array(n).fill(0x7fffffff);
  let level: number[] = [];
  for (let s = 0; s < n; s++) if (fsm.stateFinal[from + s] === 1) (left[s] = 0), level.push(s);
  for (let d = 0; level.length > 0; d++) {
    const next: number[] = [];
    while (level.length > 0) {
      const t = level.pop()!;
      if (left[t] !== d) continue; // settled nearer since
      const cost = fsm.stateUnitEnd[from + t]!;
      for (let k = predStart[t]!; k < predStart[t + 1]!; k++) {
        const s = preds[k]!;
        if (d + cost >= left[s]!) continue;
        left[s] = d + cost;
        (cost === 0 ? level : next).push(s);
      }
    }
    level = next;
  }
  fsm.stateUnitsLeft.set(left, from);
}

/**
 * Fixpoint: a rule is nullable when a path of nullable references and passable repeats leads
 * from its start to a final state. A repeat of a nullable body then gets min 0, because
 * iterations that match nothing cannot be counted. A worklist: a rule is looked at again only
 * when a rule it calls turned nullable (passes over all rules took one per level of a chain).
 */
function analyseNullable(fsm: GrammarFsm): void {
  const n = fsm.ruleStart.length;
  const nullable = fsm.ruleNullable;
  const calleeOf = (e: number): number => {
    const kind = fsm.edgeKind[e]!;
    return kind === EDGE_RULE ? fsm.edgeAux[e]! : kind === EDGE_REPEAT ? fsm.repRule[fsm.edgeAux[e]!]! : -1;
  };
  const passable = (e: number): boolean => {
    const kind = fsm.edgeKind[e]!;
    if (kind === EDGE_RULE) return nullable[fsm.edgeAux[e]!] === 1;
    if (kind === EDGE_REPEAT) {
      const rep = fsm.edgeAux[e]!;
      return fsm.repMin[rep] === 0 || nullable[fsm.repRule[rep]!] === 1;
    }
    return false;
  };
  const callers: number[][] = Array.from({ length: n }, () => []);
  for (let s = 0; s < fsm.stateRule.length; s++) {
    for (let e = fsm.edgeStart[s]!; e < fsm.edgeStart[s + 1]!; e++) {
      const c = calleeOf(e);
      if (c >= 0) callers[c]!.push(fsm.stateRule[s]!);
    }
  }
  const canEnd = (r: number): boolean => {
    const seen = new Set<number>([fsm.ruleStart[r]!]);
    const stack = [fsm.ruleStart[r]!];
    while (stack.length > 0) {
      const s = stack.pop()!;
      if (fsm.stateFinal[s]) return true;
      for (let e = fsm.edgeStart[s]!; e < fsm.edgeStart[s + 1]!; e++) {
        if (passable(e) && !seen.has(fsm.edgeTarget[e]!)) {
          seen.add(fsm.edgeTarget[e]!);
          stack.push(fsm.edgeTarget[e]!);
        }
      }
    }
    return false;
  };
  const queued = new Uint8Array(n).fill(1);
  const work = Array.from({ length: n }, (_, r) => n - 1 - r);
  while (work.length > 0) {
    const r = work.pop()!;
    queued[r] = 0;
    if (nullable[r] || !canEnd(r)) continue;
    nullable[r] = 1;
    for (const p of callers[r]!) {
      if (nullable[p] === 0 && queued[p] === 0) {
        queued[p] = 1;
        work.push(p);
      }
    }
  }
  for (let i = 0; i < fsm.repRule.length; i++) if (nullable[fsm.repRule[i]!]) fsm.repMin[i] = 0;
}
