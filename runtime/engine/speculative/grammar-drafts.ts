// Drafts under a grammar: the tokens the grammar forces next (jump-forward), and the longest
// prefix of any draft the grammar accepts, so that no position is spent on a token the
// target could never be allowed to choose. The matcher is left as it was found.
import type { GrammarMatcher } from '../../../compiler/index.js';

/** The longest prefix of `draft` the grammar accepts from the matcher's current state. */
export function admissiblePrefix(matcher: GrammarMatcher, draft: readonly number[]): number[] {
  let accepted = 0;
  while (accepted < draft.length && matcher.acceptToken(draft[accepted]!)) accepted++;
  matcher.rollback(accepted);
  return draft.slice(0, accepted);
}

/**
 * Tokens of the text the grammar forces next (a key, a closing quote and colon, a fixed
 * tag), as the model's tokenizer splits it, cut to what the grammar accepts and to `most`.
 * The target verifies them like any draft, so a split the model would not write costs one
 * rejected position, never a changed output.
 */
export function forcedTokens(matcher: GrammarMatcher, tokenize: (text: string) => ArrayLike<number>, most: number): number[] {
  if (most <= 0 || matcher.isTerminated()) return [];
  const text = matcher.findJumpForwardString();
  if (text === '') return [];
  const tokens = Array.from(tokenize(text)).slice(0, most);
  return admissiblePrefix(matcher, tokens);
}
