// lmforge/grammar/node: the parts of lmforge/grammar that need Node.js — vocabularies read
// from files, the on-disk artifact cache and eager mask completion on worker threads.
//
//   import { GrammarCompiler, Grammar } from 'lmforge/grammar';
//   import { tokenizerInfoFromGGUF, completeMasksInWorkers } from 'lmforge/grammar/node';
//   const compiled = new GrammarCompiler(await tokenizerInfoFromGGUF('model.gguf')).compile(Grammar.builtinJSON());
//   await completeMasksInWorkers(compiled);
export { tokenizerInfoFromGGUF, tokenizerInfoFromTokenizerJSONFile } from './tokenizer/tokenizer-files.js';
export { GrammarCache, defaultGrammarCacheDir, DEFAULT_GRAMMAR_CACHE_MAX_BYTES, type GrammarCacheOptions } from './grammar-cache.js';
export { completeMasksInWorkers } from './mask/mask-workers.js';
