// Drafts under a grammar: the text it forces next (jump-forward), and the longest prefix of
// any draft the grammar accepts, so that no position is spent on a token the target could
// never be allowed to choose. Forced text, as the model spelt it before or as the tokenizer
// splits it, is cut the same way: a split the model would not write costs one rejected
// position, never a changed output. The matcher is left as it was found.
import type { GrammarMatcher } from '../../../../compiler/index.js';

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
