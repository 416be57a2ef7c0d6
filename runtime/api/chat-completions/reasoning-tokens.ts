// How many of a choice's generated tokens were thinking, for usage's
// completion_tokens_details.reasoning_tokens (OpenAI's name): every token from the first up to
// the one that completes the close marker, as the reasoning splitter reads the text. Counted by
// engine delta: a delta of several tokens (speculative decoding) that both ends the thinking and
// begins the answer counts whole as thinking. Tokens written before the model shows whether it
// thinks (whitespace, the start of `<think>`) count once it does.
import type { ReasoningSplitter } from '../../chat-format/reasoning.js';

export class ReasoningTokens {
  count = 0;
  /** Tokens written while the splitter was undecided: thinking if a think block follows. */
  private undecided = 0;

  /** Counts a delta's `tokens`, whose text `push` gives the splitter. */
  observe<T>(splitter: ReasoningSplitter, tokens: number, push: () => T): T {
    const before = splitter.block;
    const result = push();
    if (before === 'open') this.count += tokens;
    else if (before === 'undecided') {
      this.undecided += tokens;
      const after = splitter.block;
      if (after === 'open' || after === 'closed') this.count += this.undecided;
      if (after !== 'undecided') this.undecided = 0;
    }
    return result;
  }
}
