// Structural tag -> grammar IR: validate the whole tree first (every error has a JSON
// pointer), then lower it. Usage: Grammar.fromStructuralTag(tag, { resolveToken }).
import type { GrammarIR } from '../ir.js';
import { maxWhitespaceCountOf } from '../json-schema/options.js';
import { checkNonEmpty } from '../passes/empty-language.js';
import { checkTagSize } from './check-size.js';
import { Lowerer } from './lower.js';
import type { StructuralTagOptions } from './types.js';
import { Validator } from './validate.js';

export type { StructuralTagOptions } from './types.js';

export function structuralTagToGrammar(tag: unknown, options: StructuralTagOptions = {}): GrammarIR {
  maxWhitespaceCountOf(options.maxWhitespaceCount);
  checkTagSize(tag);
  const tree = new Validator(options).root(tag);
  const grammar = new Lowerer().grammar(tree);
  checkNonEmpty(grammar);
  return grammar;
}
