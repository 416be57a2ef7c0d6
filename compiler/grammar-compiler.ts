// Compiles grammars for one vocabulary, or with none for string-level matching.
//
//   const compiler = new GrammarCompiler(await tokenizerInfoFromGGUF(path)); // or without a vocabulary
//   const compiled = compiler.compile(grammar);            // masks computed on first use
//   const eager = compiler.compile(grammar, { eager: true }); // every mask now
//
// Compiled grammars are cached by their source text, and token masks by rule structure across
// grammars (see mask/mask-cache.ts).
import { deserializeCompiledGrammar } from './artifact.js';
import { CompiledGrammar } from './compiled-grammar.js';
import { buildGrammarFsm } from './fsm/grammar-fsm.js';
import type { Grammar } from './grammar.js';
import { RuleMaskCache } from './mask/mask-cache.js';
import { addContextRules } from './mask/context.js';
import type { GrammarIR } from './ir.js';
import type { GrammarFsm } from './fsm/grammar-fsm.js';
import { optimize } from './passes/pipeline.js';
import { TokenizerInfo } from './tokenizer/tokenizer-info.js';

export interface GrammarCompilerOptions {
  /** Keep compiled grammars keyed by their source text, and masks by rule (default true). */
  cache?: boolean;
}

export class GrammarCompiler {
  readonly tokenizer: TokenizerInfo | null;
  private readonly cache: Map<string, CompiledGrammar> | null;
  private readonly ruleMasks: RuleMaskCache | null;

  constructor(tokenizerOrOptions?: TokenizerInfo | GrammarCompilerOptions, options: GrammarCompilerOptions = {}) {
    if (tokenizerOrOptions instanceof TokenizerInfo) {
      this.tokenizer = tokenizerOrOptions;
    } else {
      this.tokenizer = null;
      options = tokenizerOrOptions ?? options;
    }
    this.cache = options.cache === false ? null : new Map();
    this.ruleMasks = options.cache === false || !this.tokenizer ? null : new RuleMaskCache();
  }

  compile(grammar: Grammar, options: { eager?: boolean } = {}): CompiledGrammar {
    // The source text is only a cache key: without a cache, printing it was wasted work.
    const key = this.cache ? grammar.toString() : null;
    let compiled = key === null ? undefined : this.cache!.get(key);
    if (!compiled) {
      const ir = optimize(grammar.ir);
      compiled = new CompiledGrammar(ir, buildFsm(ir), undefined, this.tokenizer, this.ruleMasks);
      if (key !== null) this.cache!.set(key, compiled);
    }
    if (options.eager) compiled.completeMasks();
    return compiled;
  }

  /**
   * Loads an artifact (compile-grammar's, or a worker's) for this compiler's vocabulary: masks
   * in it are used, the others computed on first use, sharing this compiler's rule-level cache.
   */
  load(artifact: Uint8Array): CompiledGrammar {
    return deserializeCompiledGrammar(artifact, this.tokenizer, this.ruleMasks);
  }

  clearCache(): void {
    this.cache?.clear();
    this.ruleMasks?.clear();
  }
}

/** The packed automaton, with each rule's context rule (for the mask compiler) appended. */
function buildFsm(ir: GrammarIR): GrammarFsm {
  const ctx = addContextRules(ir);
  const fsm = buildGrammarFsm(ctx.ir);
  fsm.ruleContext.set(ctx.context);
  fsm.ruleContextClosed.set(ctx.closed);
  return fsm;
}
