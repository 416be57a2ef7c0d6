// How many of a choice's generated tokens were thinking, for usage's
// completion_tokens_details.reasoning_tokens (OpenAI's name): every token from the first up to
// the one that completes the close marker, as the reasoning splitter reads the text. Counted by
// engine delta; a delta of several tokens (speculative decoding) that ends the thinking is
// counted up to the token whose text completes the close marker (by the tokens' own texts, as
// the vocabulary writes them; all of it where they never complete it). Tokens written before the
// model shows whether it thinks (whitespace, the start of `<think>`) count once it does.
import type { ReasoningSplitter } from '../../chat-format/reasoning.js';

export class ReasoningTokens {
  count = 0;
  /** Tokens written while the splitter was undecided: thinking if a think block follows. */
  private undecided = 0;

  /** Counts a delta's `tokens`, whose text `push` gives the splitter; `textOf` is a token's text. */
  observe<T>(splitter: ReasoningSplitter, tokens: readonly number[], textOf: (token: number) => string, push: () => T): T {
    const before = splitter.block;
    const thinking = before === 'open' && tokens.length > 1 ? thinkingTokensOf(splitter, tokens, textOf) : tokens.length;
    const result = push();
    if (before === 'open') this.count += thinking;
    else if (before === 'undecided') {
      this.undecided += tokens.length;
      const after = splitter.block;
      if (after === 'open' || after === 'closed') this.count += this.undecided;
      if (after !== 'undecided') this.undecided = 0;
    }
    return result;
  }
}

/** Of several tokens written inside the thinking, how many it takes to close it (all where they never do). */
function thinkingTokensOf(splitter: ReasoningSplitter, tokens: readonly number[], textOf: (token: number) => string): number {
  let more = '';
  for (let k = 0; k < tokens.length; k++) {
    more += textOf(tokens[k]!);
    if (splitter.blockAfter(more) === 'closed') return k + 1;
  }
  return tokens.length;
}
