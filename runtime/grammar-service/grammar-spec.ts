// What a request asks its output to follow, in a form that crosses threads as plain data:
// the server builds it from `response_format`, the grammar worker compiles it.
import { type BuiltinJsonOptions, Grammar, type JsonSchemaOptions } from '../../compiler/index.js';

export type GrammarSpec =
  | { kind: 'json_object'; options?: BuiltinJsonOptions }
  | { kind: 'json_schema'; schema: unknown; options?: JsonSchemaOptions }
  | { kind: 'structural_tag'; tag: unknown }
  | { kind: 'ebnf'; text: string }
  | { kind: 'regex'; pattern: string };

/** What a structural tag's token names resolve against: the served model's vocabulary. */
export interface SpecVocabulary {
  resolveToken: (text: string) => number | undefined;
  vocabSize: number;
  /** Its end-of-generation tokens, which no format may ask for as output. */
  stopTokens?: ReadonlySet<number>;
}

/**
 * The vocabulary a structural tag resolves against, from the token texts by id (the first id of
 * a repeated text names it) and the end-of-generation tokens: the server's and `compile --model`'s.
 */
export function specVocabularyOf(tokenTexts: readonly string[], stopTokens?: Iterable<number>): SpecVocabulary {
  const byText = new Map<string, number>();
  tokenTexts.forEach((text, id) => {
    if (!byText.has(text)) byText.set(text, id);
  });
  return { resolveToken: (text) => byText.get(text), vocabSize: tokenTexts.length, ...(stopTokens ? { stopTokens: new Set(stopTokens) } : {}) };
}

/** The front end for a spec (throws GrammarError with a location on a bad input). */
export function grammarFromSpec(spec: GrammarSpec, vocabulary?: SpecVocabulary): Grammar {
  switch (spec.kind) {
    case 'json_object':
      return Grammar.builtinJSONObject(spec.options ?? {});
    case 'json_schema':
      return Grammar.fromJSONSchema(spec.schema, spec.options ?? {});
    case 'structural_tag':
      return Grammar.fromStructuralTag(spec.tag, vocabulary ?? {});
    case 'ebnf':
      return Grammar.fromEBNF(spec.text);
    case 'regex':
      return Grammar.fromRegex(spec.pattern);
  }
}
