// Compiles grammars for one vocabulary; with none (the only mode so far) the result is a
// string-level grammar for GrammarMatcher. Compiled grammars are cached by their source text.
import { CompiledGrammar } from './compiled-grammar.js';
import { buildGrammarFsm } from './fsm/grammar-fsm.js';
import type { Grammar } from './grammar.js';
import { optimize } from './passes/pipeline.js';

export interface GrammarCompilerOptions {
  /** Keep compiled grammars keyed by their source text (default true). */
  cache?: boolean;
}

export class GrammarCompiler {
  private readonly cache: Map<string, CompiledGrammar> | null;

  constructor(options: GrammarCompilerOptions = {}) {
    this.cache = options.cache === false ? null : new Map();
  }

  compile(grammar: Grammar): CompiledGrammar {
    const key = grammar.toString();
    const hit = this.cache?.get(key);
    if (hit) return hit;
    const ir = optimize(grammar.ir);
    const compiled = new CompiledGrammar(ir, buildGrammarFsm(ir));
    this.cache?.set(key, compiled);
    return compiled;
  }

  clearCache(): void {
    this.cache?.clear();
  }
}
