// One chat choice as it is generated: its raw text goes through the reasoning splitter and the
// tool-call parser (when the request has them), and comes out as OpenAI message deltas.
import type { ParsedDelta, ToolCallParser } from '../../chat-format/tool-call-parser.js';
import type { ReasoningSplitter } from '../../chat-format/reasoning.js';
import type { MarkupFilter } from '../../chat-format/answer-markup.js';
import type { FinishReason, TokenLogprob } from '../../engine/protocol.js';
import { nameByText, type TokenNaming } from '../token-text.js';

export interface ChatChoice {
  finish: FinishReason | undefined;
  /** Reads tool calls out of the text when calls are possible. */
  parser: ToolCallParser | undefined;
  /** Splits the thinking off the answer when the model thinks in this request. */
  splitter: ReasoningSplitter | undefined;
  /** Without a parser: takes the family's answer markup out of the content. */
  markup?: MarkupFilter;
  /** The answer's first character is a space that parts it from the turn's label (plain turns): dropped once. */
  leadingSpace?: boolean;
}

/** An OpenAI delta: reasoning, content and tool-call pieces. */
export type MessageDelta = ParsedDelta & { role?: 'assistant'; reasoning_content?: string };

export type ChatFinishReason = FinishReason | 'tool_calls';

export interface OpenAiLogprob {
  token: string;
  logprob: number;
  bytes: number[];
  top_logprobs: { token: string; logprob: number; bytes: number[] }[];
}

/** A choice's logprobs as OpenAI writes them: the answer's tokens, and `refusal` null (this server never refuses). */
export interface ChatLogprobs {
  content: OpenAiLogprob[];
  refusal: null;
}

export const chatLogprobs = (content: OpenAiLogprob[]): ChatLogprobs => ({ content, refusal: null });

/**
 * The deltas for more generated text (or, with `text` undefined, for the end of the output):
 * the thinking is split off first, and only the answer reaches the tool-call parser.
 */
export function advance(choice: ChatChoice, text: string | undefined): MessageDelta[] {
  const out: MessageDelta[] = [];
  if (choice.leadingSpace && text) {
    choice.leadingSpace = false;
    if (text.startsWith(' ')) text = text.slice(1);
  }
  let answer = text;
  if (choice.splitter) {
    const split = text === undefined ? choice.splitter.finish() : choice.splitter.push(text);
    if (split?.reasoning !== undefined) out.push({ reasoning_content: split.reasoning });
    answer = split?.answer;
  }
  if (choice.parser) {
    const parsed = answer !== undefined ? choice.parser.push(answer) : undefined;
    if (parsed) out.push(parsed);
    const last = text === undefined ? choice.parser.finish() : undefined;
    if (last) out.push(last);
  } else if (choice.markup) {
    const piece = (answer !== undefined ? choice.markup.push(answer) : '') + (text === undefined ? choice.markup.finish() : '');
    if (piece !== '') out.push({ content: piece });
  } else if (answer !== undefined) out.push({ content: answer });
  return out.map(withoutEmptyText).filter((delta) => Object.keys(delta).length > 0);
}

/**
 * A delta without its empty text fields. Tokens that show no text yet (part of a UTF-8
 * character, a possible stop string's start, held-back markup) would otherwise stream as
 * `content: ""`, which says nothing and which clients (llama.cpp's server tests) reject.
 */
function withoutEmptyText(delta: MessageDelta): MessageDelta {
  const { content, reasoning_content: reasoning, ...rest } = delta;
  return { ...rest, ...(content !== '' && content !== undefined ? { content } : {}), ...(reasoning !== '' && reasoning !== undefined ? { reasoning_content: reasoning } : {}) };
}

/** `tool_calls` when a choice that ended normally made calls; undefined while it runs. */
export function finishReasonOf(choice: ChatChoice): ChatFinishReason | undefined {
  if (choice.finish === 'stop' && choice.parser && choice.parser.toolCalls.length > 0) return 'tool_calls';
  return choice.finish;
}

export function toOpenAiLogprob(entry: TokenLogprob, name: TokenNaming = nameByText): OpenAiLogprob {
  return {
    token: name(entry),
    logprob: entry.logprob,
    bytes: entry.bytes,
    top_logprobs: entry.top.map((top) => ({ token: name(top), logprob: top.logprob, bytes: top.bytes })),
  };
}
