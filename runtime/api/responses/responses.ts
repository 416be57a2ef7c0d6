// POST /v1/responses: OpenAI's Responses API, stateless. The request is read as the chat request
// it means (responses-to-chat.ts) and runs through the chat pipeline (chat-generation.ts); its
// chunks become the Responses output items and events (response-events.ts), streamed or whole.
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { RequestMeter } from '../../telemetry/request-meter.js';
import { chatGeneration } from '../chat-completions/chat-generation.js';
import type { CompletionContext, CompletionEndpoint } from '../completion-context.js';
import { abortWhenClosed } from '../send-completion.js';
import { responseSettings } from './response-object.js';
import { ResponseEvents } from './response-events.js';
import { asResponsesError } from './responses-param.js';
import { parseResponsesRequest, type ResponsesRequest } from './responses-request.js';
import { toChatRequest } from './responses-to-chat.js';
import { sendResponse } from './send-response.js';

export async function completeResponse(request: ResponsesRequest, res: ServerResponse, context: CompletionContext, id: string, meter: RequestMeter): Promise<void> {
  const chat = toChatRequest(request);
  try {
    const { chunks } = await chatGeneration(chat, context, id, meter, abortWhenClosed(res), { dropOldestToFit: request.truncation === 'auto' });
    const events = new ResponseEvents(responseSettings(request, id, context.modelId), chat.logprobs === true);
    await sendResponse(res, chunks, events, { stream: request.stream === true, meter });
  } catch (error) {
    // Refusals from the chat side name the fields as a Responses client sent them.
    throw asResponsesError(error);
  }
}

export const responses: CompletionEndpoint<ResponsesRequest> = {
  parse: parseResponsesRequest,
  newId: () => `resp_${randomBytes(12).toString('hex')}`,
  complete: completeResponse,
  prompt: 'input',
  maxTokensField: () => 'max_output_tokens',
};
