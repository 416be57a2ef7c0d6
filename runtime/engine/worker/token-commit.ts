// What a sampled token does to its sequence: it ends the choice (end of generation, a turn
// opener, the grammar's end), or it joins the output and is checked against the stop
// strings and the length limits. Sampling chooses the token; this file decides its effect.
import type { Vocabulary } from '../../backend/vocabulary.js';
import { type SampledToken, SamplingError } from '../../sampling/index.js';
import type { FinishReason, TokenLogprob } from '../protocol.js';
import { protocolTokens } from '../../chat-format/protocol-tokens.js';
import type { Sequence } from './sequence.js';

const NO_BYTES = new Uint8Array(0);

export class TokenCommitter {
  /** Control tokens that are a tool-call family's text: never stray. */
  private readonly protocol: ReadonlySet<number>;

  constructor(private readonly vocabulary: Vocabulary) {
    this.protocol = protocolTokens(vocabulary);
  }

  /**
   * Ends a constrained sequence whose grammar allows nothing but its end (before sampling:
   * that saves drawing a token the grammar would only let be an end token). Returns whether it ended.
   */
  endIfGrammarComplete(sequence: Sequence): boolean {
    const grammar = sequence.grammar;
    if (!grammar) return false;
    grammar.refresh(); // a no-op unless the mask could not be prepared during the decode
    // The request's own format cannot be met (more distinct items than its items allow): its fault, not the server's.
    if (grammar.deadEnd()) throw new SamplingError("the output format leaves no way on: every item its 'uniqueItems' arrays still need would repeat one already written", { status: 400 });
    if (!grammar.onlyEndAllowed()) return false;
    this.finish(sequence, 'stop');
    return true;
  }

  /** Applies a sampled token to its sequence and every stop rule. */
  commit(sequence: Sequence, sampled: SampledToken): void {
    const { request } = sequence.request;
    const grammar = sequence.grammar;
    const token = sampled.token;
    sequence.generated++;
    // With a grammar, an end-of-generation token is only allowed where the grammar can end.
    if (this.vocabulary.isEndOfGeneration(token) && (!request.ignoreEos || grammar)) {
      this.finishOnEndToken(sequence, sampled);
      return;
    }
    // A control token the grammar did not ask for is markup, not content; one that opens a turn
    // means the model has finished its own (SmolLM2 writes <|im_start|> after an answer). A
    // family's protocol token (<|END_THINKING|>, <|tool_call_begin|>) is text, not markup.
    const strayControl = !grammar && this.vocabulary.isControl(token) && !this.protocol.has(token);
    if (strayControl && !request.ignoreEos && sequence.request.turnOpeners.has(token)) {
      this.finishOnEndToken(sequence, sampled);
      return;
    }
    // A stop token (stop_token_ids) ends the choice: a control one as an end token, unseen.
    const stopToken = sequence.request.stopTokens.has(token);
    if (stopToken && this.vocabulary.isControl(token)) {
      this.finishOnEndToken(sequence, sampled);
      return;
    }
    grammar?.accept(token);
    sequence.tokens.push(token);
    sequence.sampler.accept(token);
    const piece = this.vocabulary.piece(token);
    sequence.pendingTokens.push(token);
    if (sequence.pendingLogprobs) sequence.pendingLogprobs.push(this.describeLogprobs(sampled, piece));
    // A media marker (Gemma's <start_of_image>) is markup as well, though typed user-defined.
    const markup = strayControl || (!grammar && this.vocabulary.isMediaMarker(token));
    const text = markup && request.skipSpecialTokens !== false ? NO_BYTES : piece;
    const decoded = sequence.decoder.push(text);
    // Under min_tokens no stop string ends the output; one begun there and completed after it does.
    const pushed = sequence.stopMatcher.push(decoded, !sequence.belowMinTokens);
    sequence.pendingText += pushed.emit;
    if (pushed.stopped) {
      sequence.finish = 'stop';
      return;
    }
    if (stopToken) {
      this.finish(sequence, 'stop');
      return;
    }
    // Where the grammar may end, see now whether it must: that saves a decode step.
    if (grammar && grammar.matcher.isCompleted() && this.endIfGrammarComplete(sequence)) return;
    if (request.maxTokens !== undefined && sequence.generated >= request.maxTokens) this.finish(sequence, 'length');
    else if (sequence.tokens.length >= sequence.request.lengthLimit) this.finish(sequence, 'length');
  }

  /**
   * Ends a sequence for a reason other than a stop string: text withheld as a possible stop
   * string's start is released. Bytes of a character the output ends inside are dropped, not
   * shown as U+FFFD (logprobs, when asked, still carry them in the token's `bytes`).
   */
  finish(sequence: Sequence, reason: FinishReason): void {
    sequence.decoder.end();
    sequence.pendingText += sequence.stopMatcher.flush();
    sequence.finish = reason;
  }

  /**
   * Ends a sequence on a token that ends the turn: not output, but generated (it counts in
   * completion_tokens), so with logprobs its entry goes with the finish (FinishedEvent.endLogprob).
   */
  private finishOnEndToken(sequence: Sequence, sampled: SampledToken): void {
    if (sequence.pendingLogprobs) sequence.endLogprob = this.describeLogprobs(sampled, this.vocabulary.piece(sampled.token));
    this.finish(sequence, 'stop');
  }

  private describeLogprobs(sampled: SampledToken, piece: Uint8Array): TokenLogprob {
    return {
      token: sampled.token,
      logprob: sampled.logprob ?? 0,
      bytes: Array.from(piece),
      top: (sampled.topLogprobs ?? []).map((entry) => ({
        token: entry.token,
        logprob: entry.logprob,
        bytes: Array.from(this.vocabulary.piece(entry.token)),
      })),
    };
  }
}
