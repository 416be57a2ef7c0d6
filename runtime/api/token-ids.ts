// Token ids a request sends (a token-list prompt, /detokenize's tokens) are checked against the
// vocabulary before they reach the engine, which would read past its tables.
import { badRequest } from './api-error.js';

/** The first id the vocabulary does not have is a 400 naming it (`prompt[3]`, `prompt[1][3]`, `tokens[2]`). */
export function checkTokenIds(tokens: readonly number[], param: string, vocabSize: number): void {
  const bad = tokens.findIndex((token) => token >= vocabSize);
  if (bad >= 0) throw badRequest(`${param}[${bad}] is token ${tokens[bad]}, but the vocabulary has tokens 0 to ${vocabSize - 1}.`, `${param}[${bad}]`);
}
