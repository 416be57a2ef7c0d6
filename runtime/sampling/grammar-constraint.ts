// One sequence's grammar: its matcher, the mask of the tokens allowed next, and whether that
// mask is out of date. The engine refreshes stale masks while the next decode runs.
import type { CompiledGrammar } from '../../compiler/index.js';
import { GrammarMatcher } from '../../compiler/index.js';

export class GrammarConstraint {
  readonly matcher: GrammarMatcher;
  readonly mask: Uint32Array;
  /** True until the mask describes the matcher's current state. */
  stale = true;

  constructor(
    compiled: CompiledGrammar,
    /** Bitset (mask layout) of the tokens that carry text, as opposed to stop and special tokens. */
    private readonly normalTokens: Uint32Array,
  ) {
    this.matcher = new GrammarMatcher(compiled);
    this.mask = new Uint32Array(normalTokens.length);
  }

  refresh(): void {
    if (!this.stale) return;
    this.matcher.fillNextTokenBitmask(this.mask);
    this.stale = false;
  }

  /** The grammar is complete and allows nothing more than ending: the output is finished. */
  onlyEndAllowed(): boolean {
    const mask = this.mask;
    const normal = this.normalTokens;
    for (let i = 0; i < mask.length; i++) if ((mask[i]! & normal[i]!) !== 0) return false;
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
