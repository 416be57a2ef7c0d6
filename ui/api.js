// Talking to the server: the API key (kept in sessionStorage, sent as a Bearer token), errors
// read from OpenAI's envelope, and a streamed chat completion read as server-sent events.

const KEY_NAME = 'lmforge.apiKey';

export const storedKey = () => sessionStorage.getItem(KEY_NAME) ?? '';
export const storeKey = (key) => sessionStorage.setItem(KEY_NAME, key);

/** A refusal by the server: its status, message and the field it names (`param`). */
export class ApiError extends Error {
  constructor(status, message, param = null) {
    super(message);
    this.status = status;
    this.param = param;
  }
}

/** What a browser's fetch throws when no answer comes (Chrome's "Failed to fetch", Firefox's
 * "NetworkError…", Safari's "Load failed"), said the same way in every browser. */
const UNREACHABLE = 'The server could not be reached: it may be stopped or restarting. Try again once it is back.';
const CONNECTION_LOST = 'The connection to the server was lost before the reply ended: it may have stopped or restarted.';

/** `fetch`, with a network failure (not an abort) as ApiError status 0 saying so. */
async function fetchOrExplain(path, init) {
  try {
    return await fetch(path, init);
  } catch (error) {
    if (error?.name === 'AbortError') throw error;
    throw new ApiError(0, UNREACHABLE);
  }
}

function headers(extra = {}) {
  const key = storedKey();
  return { ...extra, ...(key ? { authorization: `Bearer ${key}` } : {}) };
}

async function refusal(response) {
  const text = await response.text();
  let error;
  try {
    error = JSON.parse(text).error;
  } catch {
    error = undefined;
  }
  return new ApiError(response.status, error?.message ?? (text || response.statusText), error?.param ?? null);
}

/** GET a path of this server; an answer other than 2xx throws ApiError. */
export async function get(path) {
  const response = await fetchOrExplain(path, { headers: headers() });
  if (!response.ok) throw await refusal(response);
  return response;
}

/** The served model's name (the first of GET /v1/models). */
export async function servedModel() {
  const list = await (await get('/v1/models')).json();
  return list.data[0]?.id ?? '';
}

/**
 * Streams a chat completion: yields each `chat.completion.chunk` as it arrives (the usage chunk
 * last). Aborting `signal` closes the connection, which cancels the request on the server.
 */
export async function* streamChat(body, signal) {
  const response = await fetchOrExplain('/v1/chat/completions', {
    method: 'POST',
    headers: headers({ 'content-type': 'application/json' }),
    body: JSON.stringify({ ...body, stream: true, stream_options: { include_usage: true } }),
    signal,
  });
  if (!response.ok) throw await refusal(response);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let pending = '';
  for (;;) {
    const { value, done } = await reader.read().catch((error) => {
      if (error?.name === 'AbortError') throw error;
      throw new ApiError(0, CONNECTION_LOST);
    });
    if (done) return;
    pending += value;
    // Events end with a blank line; a read may hold several, or part of one.
    const events = pending.split('\n\n');
    pending = events.pop();
    const chunks = [];
    for (const event of events) {
      const data = event.split('\n').filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trimStart()).join('\n');
      if (data === '' ) continue;
      if (data === '[DONE]') {
        yield chunks;
        return;
      }
      const chunk = JSON.parse(data);
      if (chunk.error) throw new ApiError(500, chunk.error.message, chunk.error.param ?? null);
      chunks.push(chunk);
    }
    // The chunks of one read together: the page redraws once per read, not once per token.
    if (chunks.length > 0) yield chunks;
  }
}
