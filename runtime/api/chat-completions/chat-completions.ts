// POST /v1/chat/completions: render the conversation, run it on the engine, answer as one
// ChatCompletionResponse or as a stream of chunks. Both are built from the same chunks
// (chat-generation.ts): the stream sends them, the whole response folds them (chat-response.ts).
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { RequestMeter } from '../../telemetry/request-meter.js';
import { chatGeneration } from './chat-generation.js';
import { parseChatRequest, type ChatRequest } from './chat-request.js';
import { ChatResponse } from './chat-response.js';
import type { CompletionContext, CompletionEndpoint } from '../completion-context.js';
import { abortWhenClosed, sendCompletion } from '../send-completion.js';

export async function completeChat(request: ChatRequest, res: ServerResponse, context: CompletionContext, completionId: string, meter: RequestMeter): Promise<void> {
  const { chunks, frame, foldOptions } = await chatGeneration(request, context, completionId, meter, abortWhenClosed(res));
  await sendCompletion(res, chunks, {
    stream: request.stream === true,
    includeUsage: request.stream_options?.include_usage === true,
    obfuscate: request.stream_options?.include_obfuscation === true,
    fold: new ChatResponse(frame, foldOptions),
    meter,
  });
}

export const chatCompletions: CompletionEndpoint<ChatRequest> = {
  parse: parseChatRequest,
  newId: () => `chatcmpl-${randomBytes(12).toString('hex')}`,
  complete: completeChat,
  prompt: 'messages',
  maxTokensField: (request) => (request.max_tokens == null && request.max_completion_tokens != null ? 'max_completion_tokens' : 'max_tokens'),
};
