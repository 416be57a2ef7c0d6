// Every failure a client sees is one of these, answered as OpenAI's error envelope in one place.
import type { ServerResponse } from 'node:http';

export type ErrorType = 'invalid_request_error' | 'not_found_error' | 'server_error' | 'rate_limit_error';

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    message: string,
    readonly type: ErrorType = status >= 500 ? 'server_error' : 'invalid_request_error',
    readonly param: string | null = null,
    readonly code: string | null = null,
  ) {
    super(message);
  }

  toJSON(): { error: { message: string; type: ErrorType; param: string | null; code: string | null } } {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

export const badRequest = (message: string, param: string | null = null, code: string | null = null) =>
  new ApiError(400, message, 'invalid_request_error', param, code);

/** Any thrown value as an ApiError: ours pass through, anything else is a bug (500). */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ApiError(500, `internal error: ${message}`, 'server_error', null, 'internal_error');
}

export function sendError(res: ServerResponse, error: ApiError, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = JSON.stringify(error);
  res.writeHead(error.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}
