// The adaptive token-mask cache of one compiled grammar (its automata, for one vocabulary): a state's mask is computed the first
// time a matcher needs it (so the first mask costs one state's work) and kept; `completeAll`
// fills in the rest ahead of time. Masks are also shared across grammars through a rule-level
// cache keyed by structural keys (rule-hash.ts): the expensive, context-free classification
// by the rule's own structure, its refinement by the exact structure and context, so a grammar
// that shares rules with an earlier one (tool schemas differing in one field) reuses most.
import { ruleEnd, type GrammarFsm } from '../fsm/grammar-fsm.js';
import { components } from '../fsm/components.js';
import { EDGE_RULE } from '../fsm/edges.js';
import { isTail } from '../fsm/queries.js';
import type { TokenizerInfo } from '../tokenizer/tokenizer-info.js';
import { classifyInMode, classifyState, classifyStateUnlessUncertain, keepInMode, refine, rungInMode } from './classify-state.js';
import { Ladders } from './ladder.js';
import { maskAliases } from './mask-aliases.js';
import { type DfaMode, FlatDfa } from './flat-dfa.js';
import { RuleKeys, ruleKeys } from './rule-hash.js';
import { buildSuffixIndex, type SuffixIndex } from './suffix-index.js';
import type { TokenMask } from './token-mask.js';

/** Masks shared across grammars, by rule key, with the interner that gives those keys (one set of keys per cache). */
export class RuleMaskCache {
  readonly masks = new Map<string, TokenMask>();
  readonly keys = new RuleKeys();

  get(key: string): TokenMask | undefined {
    return this.masks.get(key);
  }

  set(key: string, mask: TokenMask): void {
    this.masks.set(key, mask);
  }

  clear(): void {
    this.masks.clear();
    this.keys.clear();
  }
}

const DFA_MODES: readonly DfaMode[] = ['exact', 'context', 'cut'];

/** Refining more than 1/BULK_REFINE of the vocabulary token by token costs more than a whole walk. */
const BULK_REFINE = 8;

export class TokenMaskCache {
  readonly tokenizer: TokenizerInfo;
  private readonly fsm: GrammarFsm;
  private readonly masks: (TokenMask | undefined)[];
  private readonly shared: RuleMaskCache | null;
  private keys: { full: string[]; cut: string[] } | null = null;
  // Flat DFAs by rule and mode (DFA_MODES.length per rule; undefined: not built yet), context-free and refined masks by structure, suffix indexes by state.
  private readonly dfas: (FlatDfa | null | undefined)[] = [];
  private readonly bases = new Map<string, TokenMask>();
  private readonly refined = new Map<string, TokenMask>();
  private readonly suffixIndexes = new Map<number, SuffixIndex>();
  /** This grammar's whitespace-run ladders and rung masks (ladder.ts), shared with no other grammar. */
  private readonly ladders = new Ladders();
  /** Whether some rule counts units (ir.ts UnitCount): else no mask needs a count. */
  readonly countsUnits: boolean;
  /** Per counted rule (ir.ts UnitCount): per state, the most units a state it can reach needs to end. */
  private readonly unitsToEnd = new Map<number, Int32Array>();
  /** Per rule, its states' mask aliases (mask-aliases.ts; null: none), found on first use. */
  private readonly aliases = new Map<number, Int32Array | null>();
  /** Full classifications run here (not loaded, shared or refined). */
  computed = 0;
  /** Bytes of the distinct token masks held (their id lists and bitsets), for a caller's memory bound. */
  maskBytes = 0;
  // A Set, not a WeakSet: this cache holds every mask it counted anyway, and a Set adds faster (1-2% of an eager compile went to the WeakSet).
  private readonly counted = new Set<TokenMask>();

  constructor(fsm: GrammarFsm, tokenizer: TokenizerInfo, shared: RuleMaskCache | null = null) {
    this.fsm = fsm;
    this.tokenizer = tokenizer;
    this.masks = new Array<TokenMask | undefined>(fsm.stateRule.length);
    this.shared = shared;
    this.countsUnits = fsm.ruleUnitMax.some((max) => max >= 0);
  }

  get(state: number): TokenMask {
    return this.masks[state] ?? this.compute(state);
  }

  /** The rests of a context-free mask's uncertain tokens (suffix-index.ts), built on first use. */
  suffixes(state: number): SuffixIndex {
    state = this.aliasOf(state);
    let index = this.suffixIndexes.get(state);
    if (!index) {
      index = buildSuffixIndex(this.fsm, this.tokenizer, state, this.get(state));
      this.suffixIndexes.set(state, index);
    }
    return index;
  }

  has(state: number): boolean {
    return this.masks[state] !== undefined;
  }

  /** Whether `state` has a mask of its own, not one taken from a state alike to it (an
   * artifact carries only those: the others follow from them again after loading). */
  hasOwn(state: number): boolean {
    if (this.masks[state] === undefined) return false;
    const aliases = this.aliases.get(this.fsm.stateRule[state]!);
    return !aliases || this.aliasOf(state) === state;
  }

  /** Installs a mask computed elsewhere (an artifact, a worker). */
  set(state: number, mask: TokenMask): void {
    this.masks[state] = mask;
    this.count(mask);
  }

  /** Adds a mask's arrays to maskBytes the first time this cache holds it (masks are shared between maps). */
  private count(mask: TokenMask): void {
    if (this.counted.has(mask)) return;
    this.counted.add(mask);
    this.maskBytes += mask.ids.byteLength + (mask.bits?.byteLength ?? 0) + mask.uncertain.byteLength;
  }

  /**
   * The states a matcher may ask about (its mask seeds): those a row can hold other than by
   * prediction (the root's start, targets of scanned bytes, tokens and completed references),
   * what counted repeats start or leave, and the starts of rules called as a last step, when
   * they have edges at all; none of a context rule.
   */
  scanStates(): number[] {
    const fsm = this.fsm;
    const n = fsm.stateRule.length;
    const want = new Uint8Array(n);
    want[fsm.ruleStart[fsm.root]!] = 1;
    for (let e = 0; e < fsm.edgeKind.length; e++) {
      want[fsm.edgeTarget[e]!] = 1;
      if (fsm.edgeKind[e] === EDGE_RULE && isTail(fsm, fsm.edgeTarget[e]!)) want[fsm.ruleStart[fsm.edgeAux[e]!]!] = 1;
    }
    for (let i = 0; i < fsm.repRule.length; i++) {
      want[fsm.ruleStart[fsm.repRule[i]!]!] = 1;
      if (fsm.repLoop[i]! >= 0) want[fsm.repLoop[i]!] = 1;
    }
    // Context rules (mask/context.ts) are only ever copied into flat DFAs: no row holds them.
    const isContext = new Uint8Array(fsm.ruleStart.length);
    for (const c of fsm.ruleContext) if (c >= 0) isContext[c] = 1;
    const out: number[] = [];
    for (let s = 0; s < n; s++) if (want[s] === 1 && isContext[fsm.stateRule[s]!] === 0 && fsm.edgeStart[s + 1]! > fsm.edgeStart[s]!) out.push(s);
    return out;
  }

  /** Computes every missing mask now (eager compilation). */
  completeAll(): void {
    for (const s of this.scanStates()) this.get(s);
  }

  /**
   * For an item of a counted rule that has read `count` units (-1: unknown, a seed row's): the
   * longest tokens, in bytes, for which its state's mask (computed without the count) is exact.
   * A token of k bytes ends at most k units, so it reads the rule as its uncounted automaton
   * while the maximum leaves k units and then as many as any state it can reach needs to end;
   * past that the count may refuse it. Infinity for other rules.
   */
  unitSlack(state: number, count: number): number {
    const rule = this.fsm.stateRule[state]!;
    const max = this.fsm.ruleUnitMax[rule]!;
    if (max < 0 || count < 0) return Infinity;
    let most = this.unitsToEnd.get(rule);
    if (most === undefined) this.unitsToEnd.set(rule, (most = mostUnitsToEnd(this.fsm, rule)));
    return max - count - most[state - this.fsm.ruleStart[rule]!]!;
  }

  /** The first state of its rule whose mask is provably the same as `state`'s (itself, mostly). */
  private aliasOf(state: number): number {
    const rule = this.fsm.stateRule[state]!;
    let aliases = this.aliases.get(rule);
    if (aliases === undefined) {
      aliases = maskAliases(this.fsm, rule, this.tokenizer.maxTokenLength());
      this.aliases.set(rule, aliases);
    }
    return aliases === null ? state : this.fsm.ruleStart[rule]! + aliases[state - this.fsm.ruleStart[rule]!]!;
  }

  private compute(state: number): TokenMask {
    const alias = this.aliasOf(state);
    if (alias !== state) return (this.masks[state] = this.get(alias));
    const fsm = this.fsm;
    const rule = fsm.stateRule[state]!;
    const local = state - fsm.ruleStart[rule]!;
    this.keys ??= ruleKeys(fsm, this.shared?.keys ?? new RuleKeys());
    const { full, cut } = this.keys;
    const context = fsm.ruleContext[rule]!;
    const closed = fsm.ruleContextClosed[rule] === 1;
    let mask: TokenMask | undefined;
    if (context < 0 && closed) {
      // The unreferenced root: nothing follows it, and no other rule is like it.
      const key = `root:${full[rule]}:${local}`;
      mask = this.shared?.get(key);
      if (!mask) {
        mask = classifyState(this.fsm, this.tokenizer, this.ladders, state, this.dfa(rule, 'exact'), true);
        this.computed++;
        this.shared?.set(key, mask);
      }
    } else {
      // Context-free first (shared by rules alike up to their last-step references), then
      // the uncertain tokens exactly, for this grammar, with the context if there is one. A
      // rung of a whitespace run below one already done takes its mask from that one.
      const mode = context >= 0 ? 'context' : 'exact';
      const key = `${mode}:${full[rule]}:${context >= 0 ? full[context] : '-'}:${closed ? 1 : 0}:${local}`;
      mask = this.shared?.get(key) ?? this.refined.get(key);
      // Looked for only when needed: finding a ladder builds DFA states.
      const rung = !mask && this.isRung(rule, local);
      if (!mask && rung) {
        mask = rungInMode(this.fsm, this.tokenizer, this.ladders, state, mode, this.dfa(rule, mode)) ?? undefined;
        if (mask) this.keepRefined(key, mask);
      }
      if (!mask) {
        const baseKey = `${cut[rule]}:${local}`;
        // Refining more than this many uncertain tokens one by one costs more than a walk.
        const bulk = Math.ceil(this.tokenizer.numTokens / BULK_REFINE);
        let base = this.shared?.get(baseKey) ?? this.bases.get(baseKey);
        if (!base) {
          // A walk that finds `bulk` uncertain tokens gives up: the whole walk in `mode`
          // below decides them, and such a base mask would be dropped (it is not kept, so a
          // rule alike gives up the same way).
          base = classifyStateUnlessUncertain(this.fsm, this.tokenizer, this.ladders, state, this.dfa(rule, 'cut'), bulk) ?? undefined;
          this.computed++;
          if (base) {
            this.bases.set(baseKey, base);
            this.count(base);
            this.shared?.set(baseKey, base);
          }
        }
        if (!base || base.uncertain.length >= bulk) {
          mask = classifyInMode(this.fsm, this.tokenizer, this.ladders, state, mode, this.dfa(rule, mode));
          this.keepRefined(key, mask);
        } else {
          mask = base;
          // The uncertain tokens, few, one by one.
          if (base.uncertain.length > 0) {
            mask = refine(this.fsm, this.tokenizer, state, base, mode, this.dfa(rule, mode));
            this.keepRefined(key, mask);
          }
        }
        if (rung) keepInMode(this.fsm, this.ladders, state, mode, this.dfa(rule, mode), mask);
      }
      // Without uncertain tokens the flag means nothing; one value keeps a mask the same
      // whichever way it came (a rung derived or refined, here or in a worker).
      if (mask.uncertain.length === 0 && !mask.contextFree) mask = { ...mask, contextFree: true };
    }
    this.masks[state] = mask;
    this.count(mask);
    return mask;
  }

  /** Keeps a refined mask for rules alike in this grammar (a schema repeats its parts), and in the shared cache. */
  private keepRefined(key: string, mask: TokenMask): void {
    this.refined.set(key, mask);
    this.count(mask);
    this.shared?.set(key, mask);
  }

  /** Whether a rule's local state is a rung of a ladder in its context-free DFA (a whitespace run, ladder.ts). */
  private isRung(rule: number, local: number): boolean {
    const dfa = this.dfa(rule, 'cut');
    const d = dfa ? dfa.start(local) : -1;
    return d >= 0 && this.ladders.find(dfa!, d) !== null;
  }

  private dfa(rule: number, mode: DfaMode): FlatDfa | null {
    const at = rule * DFA_MODES.length + DFA_MODES.indexOf(mode);
    let dfa = this.dfas[at];
    if (dfa === undefined) {
      dfa = FlatDfa.build(this.fsm, rule, mode);
      this.dfas[at] = dfa;
    }
    return dfa;
  }
}

/** Per state of a counted rule, the most units any state reachable from it needs to end
 * (stateUnitsLeft): over the components of its edges, each after those it reaches. */
function mostUnitsToEnd(fsm: GrammarFsm, rule: number): Int32Array {
  const from = fsm.ruleStart[rule]!;
  const n = ruleEnd(fsm, rule) - from;
  const next: number[][] = [];
  for (let s = 0; s < n; s++) {
    const out: number[] = [];
    for (let e = fsm.edgeStart[from + s]!; e < fsm.edgeStart[from + s + 1]!; e++) out.push(fsm.edgeTarget[e]! - from);
    next.push(out);
  }
  const most = new Int32Array(n);
  for (const members of components(next)) {
    let m = 0;
    for (const s of members) {
      m = Math.max(m, fsm.stateUnitsLeft[from + s]!);
      for (const t of next[s]!) m = Math.max(m, most[t]!);
    }
    for (const s of members) most[s] = m;
  }
  return most;
}
