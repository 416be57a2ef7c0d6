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

/** The text the grammar forces next (a key, a closing quote and colon, a fixed tag), or ''. */
export function forcedText(matcher: GrammarMatcher): string {
  return matcher.isTerminated() ? '' : matcher.findJumpForwardString();
}

/**
 * Draft tokens for forced text: how the model spelt it before (which may run on past the
 * text) or the model's tokenizer's split, cut to what the grammar accepts and to `most`. The
 * target verifies them like any draft, so a split the model would not write costs one rejected
 * position, never a changed output.
 */
export function forcedTokens(matcher: GrammarMatcher, spelling: readonly number[], most: number): number[] {
  if (most <= 0) return [];
  return admissiblePrefix(matcher, spelling.slice(0, most));
}
