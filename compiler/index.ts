// lmforge/grammar: grammars from EBNF, regular expressions and JSON Schema, compiled to
// byte-level automata and matched with an Earley parser. Pure: nothing here imports `node:`
// modules (test/package/grammar-purity.test.ts checks it), so bundlers and browsers take it
// as it is; files, the disk cache and worker threads are in lmforge/grammar/node (node.ts).
//
//   import { Grammar, GrammarCompiler, GrammarMatcher } from 'lmforge/grammar';
//   const compiled = new GrammarCompiler().compile(Grammar.fromJSONSchema(schema));
//   const matcher = new GrammarMatcher(compiled);
//   matcher.acceptString('{"a": 1}') && matcher.isCompleted();
export { Grammar } from './grammar.js';
export { GrammarCompiler, type GrammarCompilerOptions } from './grammar-compiler.js';
export { CompiledGrammar } from './compiled-grammar.js';
export { GrammarMatcher } from './matcher.js';
export { TokenizerInfo, type TokenBytesInput } from './tokenizer/tokenizer-info.js';
export { GrammarError, type GrammarErrorLocation } from './errors.js';
export { LmforgeError, UserFacingError, type ErrorFields, type ErrorType } from './lmforge-error.js';
export { type JsonSchemaOptions, type JsonSchemaStyle, DEFAULT_MAX_WHITESPACE } from './json-schema/options.js';
export { xmlParameterSchema } from './json-schema/xml.js';
export type { BuiltinJsonOptions } from './builtin-json.js';
export type { EbnfOptions } from './ebnf/lower.js';
export type { StructuralTagOptions } from './structural-tag/types.js';
export { structuralTagFromLegacy, type LegacyTagItem } from './structural-tag/legacy.js';
export { GrammarBuilder, type Expr, type GrammarIR, type Rule } from './ir.js';
export { serializeCompiledGrammar, deserializeCompiledGrammar, artifactProblem, artifactVocabulary, ARTIFACT_FORMAT_VERSION } from './artifact.js';
