// A chat completion's chunks folded into its ChatCompletionResponse (`chat.completion`): each
// choice's deltas concatenated into one message, its logprobs into one list.
import type { ToolCallArguments } from './tool-calls.js';
import type { ChatChunk } from './chat-chunks.js';
import { chatLogprobs, type ChatFinishReason, type MessageDelta, type OpenAiLogprob } from './chat-choice.js';
import type { ChunkFrame } from '../completion-chunk.js';
import type { PromptLogprobs } from '../prompt-logprobs.js';
import { responseOf, type ChunkFold } from '../whole-response.js';
import type { Usage } from '../usage.js';

interface ToolCallSoFar {
  id: string;
  name: string;
  arguments: string;
}

interface ChoiceSoFar {
  content: string;
  reasoning: string;
  calls: ToolCallSoFar[];
  logprobs: OpenAiLogprob[];
  finish: ChatFinishReason | undefined;
}

export interface ChatResponseOptions {
  choices: number;
  /** Whether the request asked for logprobs (the response then has a list, maybe empty). */
  logprobs: boolean;
  /** Whether the model thinks in this request (the message then has reasoning_content, maybe empty). */
  reasoning: boolean;
  /** `function.arguments` as an object or as OpenAI's JSON string. */
  toolArguments: ToolCallArguments;
  /** tool_choice forces a call: an answer without text has content null, even where its call was cut before it began. */
  callForced?: boolean;
}

export class ChatResponse implements ChunkFold<ChatChunk> {
  private readonly choices: ChoiceSoFar[];
  private promptLogprobs: PromptLogprobs | undefined;

  constructor(private readonly frame: ChunkFrame, private readonly options: ChatResponseOptions) {
    this.choices = Array.from({ length: options.choices }, () => ({ content: '', reasoning: '', calls: [], logprobs: [], finish: undefined }));
  }

  add(chunk: ChatChunk): void {
    if (chunk.prompt_logprobs) this.promptLogprobs = chunk.prompt_logprobs;
    for (const { index, delta: given, logprobs, finish_reason } of chunk.choices) {
      const choice = this.choices[index]!;
      const delta: MessageDelta = { ...given, content: given.content ?? undefined };
      choice.content += delta.content ?? '';
      choice.reasoning += delta.reasoning_content ?? '';
      for (const piece of delta.tool_calls ?? []) {
        const call = (choice.calls[piece.index] ??= { id: '', name: '', arguments: '' });
        call.id += piece.id ?? '';
        call.name += piece.function?.name ?? '';
        call.arguments += piece.function?.arguments ?? '';
      }
      if (logprobs) choice.logprobs.push(...logprobs.content);
      if (finish_reason) choice.finish = finish_reason;
    }
  }

  response(usage: Usage): object {
    const response = responseOf(this.frame, 'chat.completion', this.choices, (choice) => ({ message: this.messageOf(choice), logprobs: this.options.logprobs ? chatLogprobs(choice.logprobs) : null }), usage);
    // vLLM's place for it: at the top, after usage.
    return this.promptLogprobs ? { ...response, prompt_logprobs: this.promptLogprobs } : response;
  }

  private messageOf(choice: ChoiceSoFar): object {
    const calls = this.toolCallsOf(choice);
    return {
      role: 'assistant',
      // As OpenAI does: no content (null, not "") beside calls, a call cut short and left out too.
      content: choice.content === '' && (choice.calls.length > 0 || this.options.callForced === true) ? null : choice.content,
      ...(this.options.reasoning ? { reasoning_content: choice.reasoning } : {}),
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
      // OpenAI's message has it, null when the model answered (the SDKs' types require it); this server never refuses.
      refusal: null,
    };
  }

  /**
   * As OpenAI does, a call cut short is returned as far as it went, as the stream sent it; only
   * a JSON string can hold arguments that are not a whole object yet, so as objects it is left out.
   */
  private toolCallsOf(choice: ChoiceSoFar): object[] {
    const calls = choice.calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: this.argumentsOf(call.arguments) } }));
    return calls.filter((call) => call.function.arguments !== undefined);
  }

  private argumentsOf(text: string): unknown {
    if (this.options.toolArguments === 'string') return text;
    try {
      const value: unknown = JSON.parse(text);
      return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
    } catch {
      return undefined;
    }
  }
}
