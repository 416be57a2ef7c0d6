// Asserts an HTTP error in OpenAI's envelope: the status, `param` naming the field, the code,
// and a server that keeps serving afterwards.
import * as assert from 'uvu/assert';
import { post, TINY_MODEL_ID, type TinyServer } from './tiny-server.js';

/** A small valid request for the tiny model. */
export const okRequest = { model: TINY_MODEL_ID, messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 };

/** Checks the envelope's shape and type; returns the error object. */
export function assertEnvelope(response: { status: number; json: any; text: string }, status: number): { message: string; type: string; param: string | null; code: string | null } {
  assert.is(response.status, status, response.text);
  const error = response.json?.error;
  assert.ok(error, `an error envelope: ${response.text}`);
  assert.equal(Object.keys(error).sort(), ['code', 'message', 'param', 'type']);
  assert.is(error.type, status >= 500 ? 'server_error' : status === 404 && error.param === null ? 'not_found_error' : 'invalid_request_error');
  return error;
}

export async function expectError(s: TinyServer, body: string | object, status: number, param: string | null, code: string | null = null, message?: RegExp, ok: object = okRequest) {
  await expectErrorAt('/v1/chat/completions', s, body, status, param, code, message, ok);
}

/** As expectError, for the endpoint at `path` (its `ok` request must be one that path answers). */
export async function expectErrorAt(path: string, s: TinyServer, body: string | object, status: number, param: string | null, code: string | null, message: RegExp | undefined, ok: object) {
  const response = await post(`${s.url}${path}`, body);
  const error = assertEnvelope(response, status);
  assert.is(error.param, param, response.text);
  assert.is(error.code, code, response.text);
  if (message) assert.match(error.message, message);
  // ... and the server still serves.
  const after = await post(`${s.url}${path}`, ok);
  assert.is(after.status, 200);
}
