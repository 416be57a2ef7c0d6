// A chat completion's chunks (`chat.completion.chunk`), built from engine events: per choice, a
// role chunk when the engine starts, the message deltas of its text (reasoning, content, tool
// calls) with their logprobs, and a finish chunk; the usage chunk last (generation.ts).
import type { EngineEvent } from '../../engine/protocol.js';
import { advance, chatLogprobs, finishReasonOf, toOpenAiLogprob, type ChatChoice, type ChatLogprobs, type ChatFinishReason, type MessageDelta } from './chat-choice.js';
import type { ChunkFrame } from '../completion-chunk.js';
import type { ChunkBuilder } from '../generation.js';
import { promptLogprobsOf, type PromptLogprobs } from '../prompt-logprobs.js';
import { nameByText, type TokenNaming } from '../token-text.js';
import type { Usage } from '../usage.js';
import { ReasoningTokens } from './reasoning-tokens.js';

/**
 * A choice's first delta, as OpenAI's: the role, content "" as text answers begin (null where the
 * answer must be a call), and refusal null (this server never refuses).
 */
type RoleDelta = { role: 'assistant'; content: '' | null; refusal: null };

export interface ChatChunkChoice {
  index: number;
  delta: MessageDelta | RoleDelta;
  logprobs: ChatLogprobs | null;
  finish_reason: ChatFinishReason | null;
}

export interface ChatChunk extends ChunkFrame {
  object: 'chat.completion.chunk';
  choices: ChatChunkChoice[];
  usage?: Usage;
  /** prompt_logprobs asked for: on a chunk of its own, with no choices, once the prompt is scored (never streamed: the request rules refuse it there). */
  prompt_logprobs?: PromptLogprobs;
}

export class ChatChunks implements ChunkBuilder<ChatChunk> {
  /** Per choice that may think, its thinking tokens so far. */
  private readonly reasoning: (ReasoningTokens | undefined)[];

  constructor(
    private readonly frame: ChunkFrame,
    private readonly choices: ChatChoice[],
    /** Each token's text as the vocabulary writes it (EngineInfo.tokenTexts), to count thinking tokens within a delta. */
    private readonly tokenText: (token: number) => string,
    /** tool_choice 'required' or a named function: the answer is a call, and its content null, as OpenAI's first chunk says. */
    private readonly callForced = false,
    /** How logprobs name a token (return_tokens_as_token_ids: by id). */
    private readonly name: TokenNaming = nameByText,
  ) {
    this.reasoning = choices.map((choice) => (choice.splitter ? new ReasoningTokens() : undefined));
  }

  *chunksFor(event: EngineEvent): Iterable<ChatChunk> {
    if (event.type === 'prompt_logprobs') {
      yield { ...this.frame, object: 'chat.completion.chunk', choices: [], prompt_logprobs: promptLogprobsOf(event.tokens) };
    } else if (event.type === 'started') {
      const content = this.callForced ? null : '';
      for (let index = 0; index < this.choices.length; index++) yield this.chunk({ index, delta: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: null });
    } else if (event.type === 'delta') {
      const choice = this.choices[event.choice]!;
      const reasoning = this.reasoning[event.choice];
      const deltas = reasoning ? reasoning.observe(choice.splitter!, event.tokens, this.tokenText, () => advance(choice, event.text)) : advance(choice, event.text);
      const logprobs = event.logprobs?.map((entry) => toOpenAiLogprob(entry, this.name));
      // Logprobs of tokens that show no text yet (part of a character, a possible stop string,
      // text the parsers hold back) still go out with their step, on a delta without text.
      if (deltas.length === 0 && logprobs) deltas.push({});
      for (const [i, delta] of deltas.entries()) {
        yield this.chunk({ index: event.choice, delta, logprobs: i === 0 && logprobs ? chatLogprobs(logprobs) : null, finish_reason: null });
      }
    } else if (event.type === 'finished') {
      const choice = this.choices[event.choice]!;
      choice.finish = event.reason;
      for (const delta of advance(choice, undefined)) yield this.chunk({ index: event.choice, delta, logprobs: null, finish_reason: null });
      yield this.chunk({ index: event.choice, delta: {}, logprobs: null, finish_reason: finishReasonOf(choice) ?? null });
    }
  }

  finishReasons(): (ChatFinishReason | undefined)[] {
    return this.choices.map(finishReasonOf);
  }

  /** Thinking tokens over the choices, when the model may think in this request. */
  reasoningTokens(): number | undefined {
    if (this.reasoning.every((count) => count === undefined)) return undefined;
    return this.reasoning.reduce((sum, count) => sum + (count?.count ?? 0), 0);
  }

  usageChunk(usage: Usage): ChatChunk {
    return { ...this.frame, object: 'chat.completion.chunk', choices: [], usage };
  }

  private chunk(choice: ChatChunkChoice): ChatChunk {
    return { ...this.frame, object: 'chat.completion.chunk', choices: [choice] };
  }
}
