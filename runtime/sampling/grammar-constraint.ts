// One sequence's grammar: its matcher, the mask of the tokens allowed next, and whether that
// mask is out of date. The engine refreshes stale masks while the next decode runs.
import type { CompiledGrammar, TokenizerInfo } from '../../compiler/index.js';
import { GrammarMatcher } from '../../compiler/index.js';

/** Bitset (mask layout) of each vocabulary's stop tokens, built once per vocabulary. */
const stopBitsByVocabulary = new WeakMap<TokenizerInfo, Uint32Array>();

function stopBitsOf(info: TokenizerInfo): Uint32Array {
  let bits = stopBitsByVocabulary.get(info);
  if (!bits) {
    bits = new Uint32Array(info.normalMask.length);
    for (const token of info.stopTokens) bits[token >>> 5]! |= 1 << (token & 31);
    stopBitsByVocabulary.set(info, bits);
  }
  return bits;
}

export class GrammarConstraint {
  readonly matcher: GrammarMatcher;
  readonly mask: Uint32Array;
  /** True until the mask describes the matcher's current state. */
  stale = true;
  private readonly stopTokens: Uint32Array;

  constructor(compiled: CompiledGrammar, vocabulary: TokenizerInfo) {
    this.matcher = new GrammarMatcher(compiled);
    this.stopTokens = stopBitsOf(vocabulary);
    this.mask = new Uint32Array(this.stopTokens.length);
  }

  refresh(): void {
    if (!this.stale) return;
    this.matcher.fillNextTokenBitmask(this.mask);
    this.stale = false;
  }

  /**
   * The grammar is complete and allows nothing more than ending: the output is finished. A
   * control token the grammar names (a token node) is more output, not an end.
   */
  onlyEndAllowed(): boolean {
    // A mask of nothing at all where the grammar cannot end is a dead end, not an end.
    if (!this.matcher.isCompleted()) return false;
    const mask = this.mask;
    const stop = this.stopTokens;
    for (let i = 0; i < mask.length; i++) if ((mask[i]! & ~stop[i]!) !== 0) return false;
    return true;
  }

  /**
   * No token at all is allowed: the format has no way on (a uniqueItems array whose every
   * allowed item is written, and that needs more). Only the matcher's uniqueness guard can
   * leave a live grammar so.
   */
  deadEnd(): boolean {
    for (let i = 0; i < this.mask.length; i++) if (this.mask[i] !== 0) return false;
    return true;
  }

  /** Advances past a sampled token; a refusal means the mask and the matcher disagree (a bug). */
  accept(token: number): void {
    if (!this.matcher.acceptToken(token)) {
      throw new Error(`the grammar refused token ${token}, which its own mask allowed`);
    }
    this.stale = true;
  }
}
