// Shared by the reasoning suites: a tiny server on the think-template model, and a logit bias
// that makes the random model write `</think>` (GPT-2 pieces `</`, `think`, `>`) within a few
// dozen tokens, so that its thinking ends and the constrained part is reached.
import type OpenAI from 'openai';
import { tinyThinkModelPath } from '../../fixtures/paths.js';
import { startTinyServer, type TinyServer } from '../helpers/tiny-server.js';
import type { ApiServerOptions } from '../../runtime/server/api-server.js';

export const CLOSE_THINKING_BIAS: Record<string, number> = { 3556: 20, 14925: 20, 29: 20 };

export function startThinkServer(server: Partial<ApiServerOptions> = {}): Promise<TinyServer> {
  return startTinyServer({ server, engine: { modelPath: tinyThinkModelPath } });
}

/** The raw generated text, rebuilt from the token logprobs. */
export function rawText(choice: { logprobs?: { content?: { bytes?: number[] | null }[] | null } | null }): string {
  return Buffer.from((choice.logprobs?.content ?? []).flatMap((entry) => entry.bytes ?? [])).toString('utf8');
}

/** What the server adds to the message for reasoning models. */
export type ReasoningMessage = OpenAI.ChatCompletionMessage & { reasoning_content?: string };
