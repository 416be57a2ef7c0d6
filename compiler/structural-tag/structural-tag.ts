// Structural tag -> grammar IR: validate the whole tree first (every error has a JSON
// pointer), then lower it. Usage: Grammar.fromStructuralTag(tag, { resolveToken }).
import type { GrammarIR } from '../ir.js';
import { Lowerer } from './lower.js';
import type { StructuralTagOptions } from './types.js';
import { Validator } from './validate.js';

export type { StructuralTagOptions } from './types.js';

export function structuralTagToGrammar(tag: unknown, options: StructuralTagOptions = {}): GrammarIR {
  const tree = new Validator(options).root(tag);
  return new Lowerer().grammar(tree);
}
