// The control tokens of a vocabulary that are a tool-call family's text (Kimi's
// <|tool_call_begin|>, Cohere's <|END_THINKING|>; see protocol-texts.ts): unlike other
// control tokens they stay in the output without a grammar, match grammars as text, and never
// count as opening a new turn. End-of-generation tokens are never among them.
import { isProtocolTokenText } from './protocol-texts.js';

export interface ControlTokenSource {
  readonly size: number;
  isControl(token: number): boolean;
  isEndOfGeneration(token: number): boolean;
  text(token: number): string;
}

const byVocabulary = new WeakMap<ControlTokenSource, ReadonlySet<number>>();

export function protocolTokens(vocabulary: ControlTokenSource): ReadonlySet<number> {
  let tokens = byVocabulary.get(vocabulary);
  if (!tokens) {
    const found = new Set<number>();
    for (let id = 0; id < vocabulary.size; id++) {
      if (vocabulary.isControl(id) && !vocabulary.isEndOfGeneration(id) && isProtocolTokenText(vocabulary.text(id))) found.add(id);
    }
    tokens = found;
    byVocabulary.set(vocabulary, tokens);
  }
  return tokens;
}
