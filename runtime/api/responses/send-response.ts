// Answers a Responses request from its chat chunks: as server-sent events named by their type
// (stream: true), or as the one response object the last event carries.
import type { ServerResponse } from 'node:http';
import type { RequestMeter } from '../../telemetry/request-meter.js';
import type { ChatChunk } from '../chat-completions/chat-chunks.js';
import { isUsageChunk } from '../completion-chunk.js';
import { InterruptedGeneration } from '../interrupted-generation.js';
import { jsonText } from '../ordered-json.js';
import { openEventStream } from '../sse.js';
import type { Usage } from '../usage.js';
import { wholeResponse } from '../whole-response.js';
import type { ResponseEvent, ResponseEvents } from './response-events.js';
import { asResponsesError } from './responses-param.js';

export async function sendResponse(res: ServerResponse, chunks: AsyncIterable<ChatChunk>, events: ResponseEvents, options: { stream: boolean; meter: RequestMeter }): Promise<void> {
  if (options.stream) return streamResponse(res, chunks, events, options.meter);
  const fold = {
    add: (chunk: ChatChunk) => void events.add(chunk),
    // After an engine failure that kept output (as chat's whole answers keep it), the response says it failed.
    response: (usage: Usage) => events.closing(usage).at(-1)!.response as object,
  };
  const response = await wholeResponse(chunks, fold, options.meter);
  if (!response) return;
  const body = jsonText(response);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/**
 * The stream opens when the engine starts the request, so anything refused before that is still
 * an HTTP error; a failure after it is the stream's last event, response.failed. OpenAI's
 * streams end there, with no `[DONE]`.
 */
async function streamResponse(res: ServerResponse, chunks: AsyncIterable<ChatChunk>, events: ResponseEvents, meter: RequestMeter): Promise<void> {
  let opened = false;
  const send = (batch: ResponseEvent[]) => {
    if (!opened) openEventStream(res);
    opened = true;
    for (const event of batch) if (!res.writableEnded) res.write(`event: ${event.type}\ndata: ${jsonText(event)}\n\n`);
  };
  try {
    for await (const chunk of chunks) {
      if (!opened) send(events.opening());
      send(isUsageChunk(chunk) ? events.closing(chunk.usage) : events.add(chunk));
    }
  } catch (error) {
    if (error instanceof InterruptedGeneration) meter.choicesEnded(error.outcomes);
    if (!opened) throw error;
    send(events.closing(error instanceof InterruptedGeneration ? error.usage : undefined, asResponsesError(error).message));
  }
  // No chunk at all: the client left before the engine started, and nothing is to be answered.
  if (!opened && res.destroyed) return;
  if (!opened) send(events.opening());
  if (!res.writableEnded) res.end();
}
