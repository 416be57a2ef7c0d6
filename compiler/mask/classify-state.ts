// Classifies every token for one automaton state (GRAMMAR.md section 5.1): parse the token's
// bytes from the state alone; it is accepted when all of them are consumed, rejected when the
// parse dies before the state's rule could end, and uncertain when the rule could end inside
// the token (the rest depends on the parent, which only the real matcher knows).
//
// This is done in two steps. `classifyState` parses the rule alone, stopping where it calls
// another rule as its last step: its result depends only on the rule's own structure, so
// structurally equal rules share it, even in grammars that differ further down such a chain.
// `refine` then decides the uncertain tokens, which are few, exactly for this grammar: 'exact'
// follows the calls through; 'context' also takes the rule's context (mask/context.ts) as if it
// were part of the rule, so a token going on after the rule's end goes on into what provably
// follows, and after a closed context (nothing can follow) it dies. The states of a bounded
// whitespace run (rungs of a ladder, ladder.ts) take their classes from the widest rung
// walked, filtered by how many run bytes each token starts with, instead of a walk each.
//
// The walk goes through the byte-sorted vocabulary, keeps the parse of the previous token's
// prefix and advances only the new bytes; once a token dies at byte k, every later token
// sharing its first k+1 bytes dies the same way and is classified without parsing
// (prefix-walker.ts). `walkDfa`, the compile-time hot loop, is that walker specialised to a
// flat DFA, with the vocabulary's precomputed LCPs and the table lookups inline: through the
// walker's interface, compiling the bench schema took about 1.5 times as long. The parse
// is a lazily built DFA where the rule allows one (flat-dfa.ts), else the Earley matcher; a
// DFA that reaches a recursive reference hands those few tokens to the Earley matcher.
import type { GrammarFsm } from '../fsm/grammar-fsm.js';
import { EDGE_REPEAT } from '../fsm/edges.js';
import { RowEngine } from '../row-engine.js';
import type { TokenizerInfo } from '../tokenizer/tokenizer-info.js';
import { DFA_DEAD, DFA_OVERFLOW, DFA_UNKNOWN, type FlatDfa } from './flat-dfa.js';
import type { Ladder, Ladders } from './ladder.js';
import { type PrefixParser, PrefixWalker, PUSH_DEAD, PUSH_ENDS, PUSH_HAND_OFF, PUSH_OK, RowParser } from './prefix-walker.js';
import { makeTokenMask, refineTokenMask, STORE_BITSET, type TokenMask } from './token-mask.js';

const REJECTED = 0;
const ACCEPTED = 1;
const UNCERTAIN = 2;

/**
 * Every token's class for `state`, its rule parsed alone and ended by its last-step
 * references to other rules (`dfa` built 'cut'); or with `closed`, parsed exactly (`dfa`
 * 'exact') with nothing allowed after it (the root, when nothing refers to it).
 */
export function classifyState(fsm: GrammarFsm, info: TokenizerInfo, ladders: Ladders, state: number, dfa: FlatDfa | null, closed = false): TokenMask {
  return classifyWhole(fsm, info, ladders, state, dfa, { withContext: false, closed, cutTails: !closed }, !closed)!;
}

/**
 * `classifyState(..., dfa)` (not closed), or null as soon as a walk finds `giveUpAt`
 * uncertain tokens: a caller that would then decide them with a walk in another mode anyway
 * (`classifyInMode`) saves writing and copying tens of thousands of positions it drops.
 */
export function classifyStateUnlessUncertain(fsm: GrammarFsm, info: TokenizerInfo, ladders: Ladders, state: number, dfa: FlatDfa | null, giveUpAt: number): TokenMask | null {
  return classifyWhole(fsm, info, ladders, state, dfa, { withContext: false, closed: false, cutTails: true }, true, giveUpAt);
}

/**
 * What `refine(classifyState(...), mode)` gives, by a walk of the whole vocabulary in `mode`
 * (`dfa` built so): cheaper when the context-free pass left most tokens uncertain (a rule that
 * may end after whitespace, where every token starting with a space is uncertain).
 */
export function classifyInMode(fsm: GrammarFsm, info: TokenizerInfo, ladders: Ladders, state: number, mode: 'exact' | 'context', dfa: FlatDfa | null): TokenMask {
  const walk = modeWalk(fsm, state, mode);
  return classifyWhole(fsm, info, ladders, state, dfa, walk, !walk.withContext)!;
}

/** How the walk parses: into the rule's context or not, nothing after (`closed`), calls in last position cut or followed. */
interface WalkMode {
  withContext: boolean;
  closed: boolean;
  cutTails: boolean;
}

/**
 * `state`'s mask in `mode` (what `classifyInMode` gives) derived from a wider rung of its
 * ladder whose mask in that mode is known (`keepInMode`), or null: the rungs of a whitespace
 * run where the rule may end take their refined masks from the widest one, without a base
 * mask to filter and an exact pass over thousands of uncertain tokens each.
 */
export function rungInMode(fsm: GrammarFsm, info: TokenizerInfo, ladders: Ladders, state: number, mode: 'exact' | 'context', dfa: FlatDfa | null): TokenMask | null {
  const walk = modeWalk(fsm, state, mode);
  const rung = rungAt(fsm, ladders, state, dfa, walk, !walk.withContext);
  const mask = rung && fromWider(info, ladders, dfa!, rung, walk);
  if (mask) ladders.keepRung(dfa!, rung.key, rung.ladder.steps, mask);
  return mask;
}

/** Keeps `mask`, `state`'s mask in `mode` however it was computed, for `rungInMode` (when `state` is a rung). */
export function keepInMode(fsm: GrammarFsm, ladders: Ladders, state: number, mode: 'exact' | 'context', dfa: FlatDfa | null, mask: TokenMask): void {
  const walk = modeWalk(fsm, state, mode);
  const contextFree = !walk.withContext;
  const rung = rungAt(fsm, ladders, state, dfa, walk, contextFree);
  // A base mask without uncertain tokens is the refined one too; as a rung it speaks for narrower ones that may have some.
  if (rung) ladders.keepRung(dfa!, rung.key, rung.ladder.steps, mask.contextFree === contextFree ? mask : { ...mask, contextFree });
}

function modeWalk(fsm: GrammarFsm, state: number, mode: 'exact' | 'context'): WalkMode {
  const withContext = mode === 'context';
  return { withContext, closed: withContext && fsm.ruleContextClosed[fsm.stateRule[state]!] === 1, cutTails: false };
}

/** `state`'s DFA state on a ladder, and the key its rung masks are kept under for this walk, or null. */
interface RungAt {
  d: number;
  ladder: Ladder;
  key: string;
}

function rungAt(fsm: GrammarFsm, ladders: Ladders, state: number, dfa: FlatDfa | null, mode: WalkMode, contextFree: boolean): RungAt | null {
  if (!dfa || seedHasRepeat(fsm, state)) return null;
  const d = dfa.start(state - fsm.ruleStart[fsm.stateRule[state]!]!);
  const ladder = d >= 0 ? ladders.find(dfa, d) : null;
  if (!ladder) return null;
  return { d, ladder, key: `${mode.withContext ? 1 : 0}${mode.closed ? 1 : 0}${mode.cutTails ? 1 : 0}${contextFree ? 1 : 0}:${ladder.top}:${ladder.runKey}` };
}

/** The rung's mask narrowed from the closest wider rung known, or null. */
function fromWider(info: TokenizerInfo, ladders: Ladders, dfa: FlatDfa, rung: RungAt, mode: WalkMode): TokenMask | null {
  const wider = ladders.widerRung(dfa, rung.key, rung.ladder.steps);
  return wider ? ladders.narrow(info, rung.ladder, wider.mask, wider.steps, rung.ladder.steps, !mode.closed && dfa.ends[rung.d] === 1) : null;
}

/** Null only when a DFA walk gave up at `giveUpAt` uncertain tokens (a mask derived from a wider rung, or parsed by the Earley matcher, is whole). */
function classifyWhole(fsm: GrammarFsm, info: TokenizerInfo, ladders: Ladders, state: number, dfa: FlatDfa | null, mode: WalkMode, contextFree: boolean, giveUpAt = Infinity): TokenMask | null {
  if (!dfa || seedHasRepeat(fsm, state)) return walkWhole(fsm, info, state, null, mode, contextFree, giveUpAt);
  // A rung of a ladder (ladder.ts, a bounded whitespace run) below one already walked is derived.
  const rung = rungAt(fsm, ladders, state, dfa, mode, contextFree);
  if (!rung) return walkWhole(fsm, info, state, dfa, mode, contextFree, giveUpAt);
  const mask = fromWider(info, ladders, dfa, rung, mode) ?? walkWhole(fsm, info, state, dfa, mode, contextFree, giveUpAt);
  if (mask) ladders.keepRung(dfa, rung.key, rung.ladder.steps, mask);
  return mask;
}

function walkWhole(fsm: GrammarFsm, info: TokenizerInfo, state: number, dfa: FlatDfa | null, mode: WalkMode, contextFree: boolean, giveUpAt = Infinity): TokenMask | null {
  const out = Classes.for(info);
  const walked = dfa ? walkDfa(fsm, info, state, dfa, mode, out, giveUpAt) : WALK_OVERFLOW;
  if (walked === WALK_DONE) return out.mask(contextFree);
  if (walked === WALK_GAVE_UP) return null;
  walkEarley(fsm, info, state, mode, Classes.for(info));
  return out.mask(contextFree);
}

/** `base` (from classifyState) with its uncertain tokens parsed exactly, in `mode` (`dfa` built so). */
export function refine(fsm: GrammarFsm, info: TokenizerInfo, state: number, base: TokenMask, mode: 'exact' | 'context', dfa: FlatDfa | null): TokenMask {
  const withContext = mode === 'context';
  const closed = withContext && fsm.ruleContextClosed[fsm.stateRule[state]!] === 1;
  const parser = classifier(fsm, info, state, dfa, withContext, closed, false);
  const { sorted } = info;
  const { start } = info.sortedBytes();
  const accepted: number[] = [];
  const rejected: number[] = [];
  const uncertain: number[] = [];
  const unc = base.uncertain;
  try {
    for (let i = 0; i < unc.length; i++) {
      const j = unc[i]!;
      const t = sorted[j]!;
      const len = start[j + 1]! - start[j]!;
      const kind = parser.classify(start[j]!, len);
      (kind === ACCEPTED ? accepted : kind === REJECTED ? rejected : uncertain).push(kind === UNCERTAIN ? j : t);
      if (kind !== ACCEPTED && parser.diedAt() + 1 === len) {
        // Every extension of this token dies the same way.
        const end = info.subtreeEnd[j]!;
        for (; i + 1 < unc.length && unc[i + 1]! < end; i++) (kind === REJECTED ? rejected : uncertain).push(kind === UNCERTAIN ? unc[i + 1]! : sorted[unc[i + 1]!]!);
      }
    }
  } catch (error) {
    if (error !== OVERFLOW) throw error;
    return refine(fsm, info, state, base, mode, null);
  }
  return refineTokenMask(info, base, Int32Array.from(accepted), Int32Array.from(rejected), Int32Array.from(uncertain), !withContext);
}

function seedHasRepeat(fsm: GrammarFsm, state: number): boolean {
  for (let e = fsm.edgeStart[state]!; e < fsm.edgeStart[state + 1]!; e++) if (fsm.edgeKind[e] === EDGE_REPEAT) return true;
  return false;
}

const OVERFLOW = new Error('flat DFA too large');

/** A flat DFA's states along the walked prefix (`PrefixWalker`); an opaque state hands off. */
class DfaParser implements PrefixParser {
  private stack = new Int32Array(1024);
  private depth = 0;

  constructor(
    private readonly dfa: FlatDfa,
    start: number,
    private readonly closed: boolean,
  ) {
    this.stack[0] = start;
  }

  truncate(depth: number): void {
    if (this.stack[0]! < 0) throw OVERFLOW; // the DFA is full: an earlier walk filled it
    this.depth = depth;
  }

  push(byte: number): number {
    const dfa = this.dfa;
    const d = this.stack[this.depth]!;
    if (dfa.opaque[d] === 1) return PUSH_HAND_OFF; // a recursive reference may take the rest
    const next = dfa.next(d, byte);
    if (next < 0) {
      if (next === DFA_OVERFLOW) throw OVERFLOW;
      return PUSH_DEAD;
    }
    if (this.depth + 1 === this.stack.length) {
      const grown = new Int32Array(this.stack.length * 2);
      grown.set(this.stack);
      this.stack = grown;
    }
    this.stack[++this.depth] = next;
    return !this.closed && dfa.ends[next] === 1 ? PUSH_OK | PUSH_ENDS : PUSH_OK;
  }
}

/** The Earley parser of `state` (with the rule's context: `withContext`; `cutTails`: see classifyState). */
function seedRows(fsm: GrammarFsm, state: number, withContext: boolean, closed: boolean, cutTails: boolean): RowParser {
  return new RowParser(RowEngine.forState(fsm, state, withContext, cutTails), 0, !closed);
}

/**
 * Token by token in byte order, reusing the common prefix (PrefixWalker), over a flat DFA or
 * Earley rows; a DFA's hand-offs go to Earley rows (`hard`), made on first need.
 */
class TokenClassifier {
  private readonly walker: PrefixWalker;
  private hardOne: TokenClassifier | null = null;

  constructor(
    parser: PrefixParser,
    bytes: Uint8Array,
    private readonly hard: (() => TokenClassifier) | null = null,
  ) {
    this.walker = new PrefixWalker(parser, bytes);
  }

  /** REJECTED, ACCEPTED or UNCERTAIN for the token at bytes[start..start+len). */
  classify(start: number, len: number): number {
    const w = this.walker;
    const whole = w.walk(start, len);
    if (w.handedOff) return (this.hardOne ??= this.hard!()).classify(start, len);
    return whole ? ACCEPTED : w.endsBy[w.reached] === 1 ? UNCERTAIN : REJECTED;
  }

  /** After `classify`: the byte at which the last token died, or -1 (it did not, or was handed on). */
  diedAt(): number {
    return this.walker.failed ? this.walker.reached : -1;
  }
}

/**
 * The classifier of `state` over `dfa` when there is one (and the seed has no counted repeat),
 * else over Earley rows; tokens are given by their place in `info.sortedBytes()`.
 */
function classifier(fsm: GrammarFsm, info: TokenizerInfo, state: number, dfa: FlatDfa | null, withContext: boolean, closed: boolean, cutTails: boolean): TokenClassifier {
  const bytes = info.sortedBytes().bytes;
  const earley = (): TokenClassifier => new TokenClassifier(seedRows(fsm, state, withContext, closed, cutTails), bytes);
  if (!dfa || seedHasRepeat(fsm, state)) return earley();
  return new TokenClassifier(new DfaParser(dfa, dfa.start(state - fsm.ruleStart[fsm.stateRule[state]!]!), closed), bytes, earley);
}

/** Accepted ids and uncertain sorted positions, in typed arrays reused from state to state. */
class Classes {
  private static last: Classes | null = null;
  accepted: Int32Array;
  uncertain = new Int32Array(1024);
  numAccepted = 0;
  numUncertain = 0;
  /** Accepted ids besides `accepted`, as a bitset (`acceptAll`), or null. */
  private acceptedBits: Uint32Array | null = null;
  private constructor(private readonly info: TokenizerInfo) {
    this.accepted = new Int32Array(info.sorted.length);
  }
  /** Empty lists for `info` (the previous ones, emptied: `mask()` copies out what it keeps). */
  static for(info: TokenizerInfo): Classes {
    const c = Classes.last?.info === info ? Classes.last : (Classes.last = new Classes(info));
    c.numAccepted = c.numUncertain = 0;
    c.acceptedBits = null;
    return c;
  }
  add(kind: number, j: number): void {
    if (kind === ACCEPTED) this.accepted[this.numAccepted++] = this.info.sorted[j]!;
    else if (kind === UNCERTAIN) {
      if (this.numUncertain === this.uncertain.length) {
        const grown = new Int32Array(this.uncertain.length * 2);
        grown.set(this.uncertain);
        this.uncertain = grown;
      }
      this.uncertain[this.numUncertain++] = j;
    }
  }
  /** Sorted positions from .. to - 1, all uncertain. */
  addUncertainRange(from: number, to: number): void {
    const need = this.numUncertain + to - from;
    if (need > this.uncertain.length) {
      const grown = new Int32Array(Math.max(need, this.uncertain.length * 2));
      grown.set(this.uncertain);
      this.uncertain = grown;
    }
    for (let j = from; j < to; j++) this.uncertain[this.numUncertain++] = j;
  }
  /** Accepts every token of `bits` (by id, more than a bitset has words; none of them `add`ed too). */
  acceptAll(bits: Uint32Array): void {
    this.acceptedBits = bits;
  }
  mask(contextFree: boolean): TokenMask {
    const uncertain = this.uncertain.slice(0, this.numUncertain);
    if (this.acceptedBits === null) return makeTokenMask(this.info, this.accepted.slice(0, this.numAccepted), uncertain, contextFree);
    // What makeTokenMask makes of that many accepted tokens: a bitset.
    const bits = this.acceptedBits.slice();
    for (let i = 0; i < this.numAccepted; i++) bits[this.accepted[i]! >>> 5]! |= 1 << (this.accepted[i]! & 31);
    return { store: STORE_BITSET, ids: new Int32Array(0), bits, uncertain, contextFree };
  }
}

function walkEarley(fsm: GrammarFsm, info: TokenizerInfo, state: number, mode: WalkMode, out: Classes): void {
  const rows = seedRows(fsm, state, mode.withContext, mode.closed, mode.cutTails);
  const { bytes, start } = info.sortedBytes();
  const parser = new TokenClassifier(rows, bytes);
  const first = rows.rows.scannableBytes(0, new Uint8Array(256)); // bytes some parse can start with
  const { firstByteStart } = info;
  for (let b = 0; b < 256; b++) {
    if (first[b] === 0) continue;
    for (let j = firstByteStart[b]!, end = firstByteStart[b + 1]!; j < end; j++) out.add(parser.classify(start[j]!, start[j + 1]! - start[j]!), j);
  }
}

/** Buffers of `walkDfa`, kept from call to call (one state's walk allocates nothing). */
const walkScratch = { stack: new Int32Array(1024), endsBy: new Uint8Array(1024), live: new Uint8Array(256), loop: new Uint8Array(256) };

const WALK_DONE = 0;
/** The DFA grew too large: the Earley matcher walks instead. */
const WALK_OVERFLOW = 1;
/** `giveUpAt` tokens were uncertain. */
const WALK_GAVE_UP = 2;

/** The walk over a flat DFA, table lookups inline: the compile-time hot loop. */
function walkDfa(fsm: GrammarFsm, info: TokenizerInfo, state: number, dfa: FlatDfa, mode: WalkMode, out: Classes, giveUpAt: number): number {
  const closed = mode.closed;
  const rule = fsm.stateRule[state]!;
  const { sorted, lcpPrev, firstByteStart, subtreeEnd } = info;
  const { bytes, start: tokenStart } = info.sortedBytes();
  let hard: TokenClassifier | null = null;
  let stack = walkScratch.stack; // DFA state after d bytes
  let endsBy = walkScratch.endsBy;
  stack[0] = dfa.start(state - fsm.ruleStart[rule]!);
  if (stack[0]! < 0) return WALK_OVERFLOW; // the DFA is full: an earlier walk filled it
  const startOpaque = dfa.opaque[stack[0]!] === 1;
  const live = dfa.liveBytes(stack[0]!, walkScratch.live);
  // Bytes on which the start state loops: a token made only of them is accepted unparsed.
  const loop = walkScratch.loop.fill(0);
  let loops = 0;
  for (let b = 0; b < 256; b++) {
    if (live[b] === 1 && dfa.next(stack[0]!, b) === stack[0]) {
      loop[b] = 1;
      loops++;
    }
  }
  const wholeChars = loops >= 16 && !startOpaque && dfa.loopsOnWholeChars(stack[0]!);
  const within = loops >= 16 && !startOpaque ? info.tokensWithin(loop, wholeChars) : null;
  // When they alone fill a bitset (the inside of a string), the tokens within go into the mask
  // as the vocabulary's bitset of them, and the walk steps over them a word at a time.
  const withinById = within !== null ? info.tokensWithinById(loop, wholeChars) : null;
  const skipWithin = withinById !== null && withinById.count > info.normalMask.length;
  if (skipWithin) out.acceptAll(withinById.bits);
  for (let b = 0; b < 256; b++) {
    if (live[b] === 0 && !startOpaque) continue;
    let reached = 0;
    let common = 0;
    for (let j = firstByteStart[b]!, end = firstByteStart[b + 1]!; j < end; j++) {
      if (within !== null && (within[j >>> 5]! & (1 << (j & 31))) !== 0) {
        if (skipWithin) {
          let next = j + 1;
          while (next < end) {
            const word = within[next >>> 5]!;
            if ((next & 31) === 0 && word === 0xffffffff && next + 32 <= end) next += 32;
            else if ((word & (1 << (next & 31))) !== 0) next++;
            else break;
          }
          j = next - 1;
          // The stack still holds the last token walked: its common prefix with the next one is
          // not tracked across the run, so the next walk starts from the first byte.
          common = 0;
          reached = 0;
          continue;
        }
        common = j === firstByteStart[b] ? 0 : Math.min(common, lcpPrev[j]!);
        out.accepted[out.numAccepted++] = sorted[j]!;
        continue;
      }
      common = j === firstByteStart[b] ? 0 : Math.min(common, lcpPrev[j]!);
      const start = tokenStart[j]!;
      const len = tokenStart[j + 1]! - start;
      if (len >= stack.length) {
        const s2 = new Int32Array(len * 2);
        s2.set(stack);
        stack = walkScratch.stack = s2;
        const e2 = new Uint8Array(len * 2);
        e2.set(endsBy);
        endsBy = walkScratch.endsBy = e2;
      }
      let k = Math.min(common, reached);
      let failed = false;
      let d = stack[k]!;
      let table = dfa.table;
      let ends = dfa.ends;
      let opaque = dfa.opaque;
      let handOff = false;
      for (; k < len; k++) {
        if (opaque[d] === 1) {
          handOff = true; // a recursive reference may take the rest: ask the Earley matcher
          break;
        }
        const byte = bytes[start + k]!;
        let next = table[d * 256 + byte]!;
        if (next === DFA_UNKNOWN) {
          next = dfa.next(d, byte);
          // A new DFA state may have grown the tables: the old ones lack it.
          table = dfa.table;
          ends = dfa.ends;
          opaque = dfa.opaque;
        }
        if (next < 0) {
          if (next === DFA_OVERFLOW) return WALK_OVERFLOW;
          failed = true;
          break;
        }
        d = next;
        stack[k + 1] = d;
        endsBy[k + 1] = endsBy[k]! | (closed ? 0 : ends[d]!);
      }
      reached = k;
      common = len;
      if (handOff) {
        hard ??= classifier(fsm, info, state, null, mode.withContext, closed, mode.cutTails);
        out.add(hard.classify(start, len), j);
        if (out.numUncertain >= giveUpAt) return WALK_GAVE_UP;
      } else if (!failed) out.add(ACCEPTED, j);
      else {
        // Every token that shares this one's bytes up to the one it died at dies the same way:
        // uncertain alike, or rejected alike (nothing to record: a rule that may be followed
        // by anything, a space say, kills half of the vocabulary at its second byte, in
        // ranges skipped here in one step rather than token by token).
        const skipTo = reached + 1 === len ? subtreeEnd[j]! : info.prefixRangeEnd(j, reached + 1);
        if (endsBy[reached] === 1) {
          out.addUncertainRange(j, skipTo);
          if (out.numUncertain >= giveUpAt) return WALK_GAVE_UP;
        }
        j = skipTo - 1;
      }
    }
  }
  return WALK_DONE;
}
