// POST /v1/responses: OpenAI's Responses API. The request is read as the chat request it means
// (responses-to-chat.ts), after the stored conversation it goes on from (previous_response_id),
// and runs through the chat pipeline (chat-generation.ts); its chunks become the Responses
// output items and events (response-events.ts), streamed or whole. The response is kept
// (response-store.ts) unless the request says store: false.
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { RequestMeter } from '../../telemetry/request-meter.js';
import { chatGeneration } from '../chat-completions/chat-generation.js';
import type { CompletionContext, CompletionEndpoint } from '../completion-context.js';
import { abortWhenClosed } from '../send-completion.js';
import { responseSettings } from './response-object.js';
import { ResponseEvents } from './response-events.js';
import { asResponsesError } from './responses-param.js';
import { checkCallOutputs, parseResponsesRequest, type InputItem, type ResponsesRequest } from './responses-request.js';
import type { ResponseStore } from './response-store.js';
import { ApiError, badRequest } from '../api-error.js';
import { withItemIds } from './input-items.js';
import { toChatRequest } from './responses-to-chat.js';
import { sendResponse } from './send-response.js';

export async function completeResponse(request: ResponsesRequest, res: ServerResponse, context: CompletionContext, id: string, meter: RequestMeter): Promise<void> {
  const store = context.responseStore;
  if (request.store === true && !store.enabled) {
    throw badRequest('store: true, but this server keeps no responses (started with --responses-store-max-bytes 0); send store: false, or leave it out.', 'store');
  }
  const stored = request.store !== false && store.enabled;
  // Each item with an id, as stored and as input_items lists it (input-items.ts).
  const input = withItemIds(conversationOf(request, store));
  const chat = toChatRequest({ ...request, input });
  try {
    const { chunks } = await chatGeneration(chat, context, id, meter, abortWhenClosed(res), { dropOldestToFit: request.truncation === 'auto' });
    const events = new ResponseEvents(responseSettings(request, id, context.modelId, stored), chat.logprobs === true);
    await sendResponse(res, chunks, events, { stream: request.stream === true, meter });
    if (stored && events.final) store.put(id, { response: events.final, input });
  } catch (error) {
    // Refusals from the chat side name the fields as a Responses client sent them.
    throw asResponsesError(error);
  }
}

/**
 * The conversation the request answers, as input items: with previous_response_id, the stored
 * response's conversation and its output first (as OpenAI's: its instructions are not carried
 * over), then the request's own input. A stored response that is gone is a 404 naming the field.
 */
function conversationOf(request: ResponsesRequest, store: ResponseStore): InputItem[] {
  const own: InputItem[] = typeof request.input === 'string' ? [{ role: 'user', content: request.input }] : request.input;
  const previousId = request.previous_response_id;
  if (previousId == null) return own;
  const previous = store.get(previousId);
  if (!previous) {
    const why = store.enabled ? 'it was never stored here, was deleted, or the oldest stored responses made room for newer ones (--responses-store-max-bytes)' : 'this server keeps no responses (--responses-store-max-bytes 0)';
    throw new ApiError(404, `Previous response with id '${previousId}' not found: ${why}. Send the whole conversation in input instead.`, 'invalid_request_error', 'previous_response_id', 'previous_response_not_found');
  }
  // Output items (reasoning, message, function_call) are input items as they came.
  const earlier = [...previous.input, ...((previous.response.output ?? []) as InputItem[])];
  const items = [...earlier, ...own];
  checkCallOutputs(items, earlier.length);
  return items;
}

export const responses: CompletionEndpoint<ResponsesRequest> = {
  parse: parseResponsesRequest,
  newId: () => `resp_${randomBytes(12).toString('hex')}`,
  complete: completeResponse,
  prompt: 'input',
  maxTokensField: () => 'max_output_tokens',
};
