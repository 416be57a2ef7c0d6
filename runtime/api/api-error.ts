// Every failure a client sees is one of these, answered as OpenAI's error envelope in one place
// (to-api-error.ts turns whatever was thrown into one).
import type { ServerResponse } from 'node:http';
import { LmforgeError, type ErrorType } from '../../compiler/lmforge-error.js';
import { endEventStream, isEventStream, sendEvent } from './sse.js';

export type { ErrorType };

export class ApiError extends LmforgeError {
  override name = 'ApiError';
  constructor(status: number, message: string, type?: ErrorType, param: string | null = null, code: string | null = null) {
    super(message, { status, type, param, code });
  }

  toJSON(): { error: { message: string; type: ErrorType; param: string | null; code: string | null } } {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

export const badRequest = (message: string, param: string | null = null, code: string | null = null) =>
  new ApiError(400, message, 'invalid_request_error', param, code);

export function sendError(res: ServerResponse, error: ApiError, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    // A stream under way can still say what went wrong, as its last event.
    if (isEventStream(res)) {
      sendEvent(res, error.toJSON());
      endEventStream(res);
    } else res.end();
    return;
  }
  const body = JSON.stringify(error);
  // A 503 (overloaded, loading, restarting) is worth a retry soon: clients such as openai's honour the hint.
  const retry = error.status === 503 ? { 'retry-after': '1' } : {};
  res.writeHead(error.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...retry, ...headers });
  res.end(body);
}
