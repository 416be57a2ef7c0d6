// A compiled grammar: the optimised IR plus the packed automaton, shared by every matcher of
// it. Compiled for a vocabulary, it also holds the token-mask cache, filled lazily (or all at
// once with `completeMasks()`).
import type { GrammarFsm } from './fsm/grammar-fsm.js';
import type { GrammarIR } from './ir.js';
import { type RuleMaskCache, TokenMaskCache } from './mask/mask-cache.js';
import { grammarText } from './print.js';
import { sha256Hex } from './sha256.js';
import type { TokenizerInfo } from './tokenizer/tokenizer-info.js';

export class CompiledGrammar {
  readonly ir: GrammarIR;
  readonly fsm: GrammarFsm;
  /** The vocabulary masks are for, or null for a string-level grammar. */
  readonly tokenizer: TokenizerInfo | null;
  readonly masks: TokenMaskCache | null;

  constructor(ir: GrammarIR, fsm: GrammarFsm, hash?: string, tokenizer: TokenizerInfo | null = null, shared: RuleMaskCache | null = null) {
    this.ir = ir;
    this.fsm = fsm;
    this.knownHash = hash;
    this.tokenizer = tokenizer;
    this.masks = tokenizer ? new TokenMaskCache(fsm, tokenizer, shared) : null;
  }

  private knownHash: string | undefined;

  /** sha256 of the optimised grammar's canonical text: the content address of artifacts (computed on first use: a compile that writes none needs no hash). */
  get hash(): string {
    return (this.knownHash ??= sha256Hex(grammarText(this.ir)));
  }

  /** Computes every state's token mask now instead of on first use. */
  completeMasks(): this {
    this.masks?.completeAll();
    return this;
  }

  get numRules(): number {
    return this.fsm.ruleStart.length;
  }

  get numStates(): number {
    return this.fsm.stateRule.length;
  }

  get numEdges(): number {
    return this.fsm.edgeKind.length;
  }

  toString(): string {
    return grammarText(this.ir);
  }
}
