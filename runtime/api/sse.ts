// Server-sent events as OpenAI streams them: `data: <json>` and a blank line, then `data: [DONE]`.
import type { ServerResponse } from 'node:http';
import { jsonText } from './ordered-json.js';

const eventStreams = new WeakSet<ServerResponse>();

export function openEventStream(res: ServerResponse): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
  });
  res.flushHeaders();
  eventStreams.add(res);
}

/** Whether this response is an event stream already under way (an error then becomes its last event). */
export function isEventStream(res: ServerResponse): boolean {
  return eventStreams.has(res);
}

export function sendEvent(res: ServerResponse, data: unknown): void {
  if (!res.writableEnded) res.write(`data: ${jsonText(data)}\n\n`);
}

export function endEventStream(res: ServerResponse): void {
  if (!res.writableEnded) res.end('data: [DONE]\n\n');
}
