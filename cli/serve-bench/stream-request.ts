// One streamed chat completion, timed chunk by chunk. Every failure (refused connection,
// HTTP error, an error event inside the stream, a stream that never says [DONE]) becomes a
// failed result, never an exception: one bad request must not end the benchmark. A request
// whose connection the server closed before any byte of the answer (a kept-alive connection
// it was closing as the request went out: llama-server does) is sent once more, on a fresh
// connection; its timings then count from the first send.
import { performance } from 'node:perf_hooks';
import type { Dispatcher } from 'undici-types';
import { freshConnectionPool } from './fresh-connection.js';
import { readSseData } from './sse.js';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface RequestSpec {
  url: string;
  model: string;
  /** Sent as Authorization: Bearer KEY. */
  apiKey?: string;
  /** One user message; ignored when `messages` is given. */
  prompt: string;
  /** The whole conversation, for benchmarks that replay chat history. */
  messages?: ChatMessage[];
  maxTokens: number;
  /** Default true, so every output has max_tokens tokens. */
  ignoreEos?: boolean;
  temperature: number;
  timeoutMs: number;
  /** Ends the stream early; the result then fails with 'aborted' but keeps its timings. */
  signal?: AbortSignal;
  /** Called at the arrival of each content chunk, with performance.now(). */
  onContent?: (at: number) => void;
  /** Fields added to the request body, for one server's own options (llama-server's cache_prompt). */
  extraBody?: Record<string, unknown>;
}

/** llama-server's own per-request figures, sent in its last chunk. */
export interface ServerTimings {
  /** Prompt tokens taken from its cache (0: the whole prompt was computed). */
  cache_n: number;
  prompt_n: number;
  prompt_per_second: number;
  predicted_per_second: number;
}

export interface RequestResult {
  ok: boolean;
  error?: string;
  /** Milliseconds from sending the request to its first content token. */
  ttftMs: number;
  /** Milliseconds from sending the request to the end of its stream. */
  latencyMs: number;
  /** Gaps between consecutive content chunks, in milliseconds. */
  itlMs: number[];
  /** From the usage chunk when the server sent one, else the number of content chunks. */
  outputTokens: number;
  /** From the usage chunk; -1 when the server sent none. */
  promptTokens: number;
  /** usage.prompt_tokens_details.cached_tokens; -1 when the server sent none. */
  cachedTokens: number;
  /** The generated content, concatenated. */
  text: string;
  /** performance.now() at each content chunk, for splitting gaps by time window. */
  contentTimes: number[];
  contentChunks: number;
  /** llama-server's `timings`, when the server sent them. */
  serverTimings?: ServerTimings;
  /** performance.now() at the start and end, for the run's duration. */
  startedAt: number;
  endedAt: number;
  /** Sent twice: the server closed the first connection before any byte of its answer. */
  retried?: boolean;
}

interface Chunk {
  choices?: { delta?: { content?: string | null; reasoning_content?: string | null } }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number; prompt_tokens_details?: { cached_tokens?: number } | null } | null;
  error?: { message?: string };
  timings?: ServerTimings;
}

export async function streamChatCompletion(spec: RequestSpec): Promise<RequestResult> {
  const result: RequestResult = {
    ok: false,
    ttftMs: Number.NaN,
    latencyMs: Number.NaN,
    itlMs: [],
    outputTokens: 0,
    promptTokens: -1,
    cachedTokens: -1,
    text: '',
    contentTimes: [],
    contentChunks: 0,
    startedAt: performance.now(),
    endedAt: Number.NaN,
  };
  let usageTokens = -1;
  let done = false;
  let lastChunkAt = 0;
  const signal = spec.signal ? AbortSignal.any([spec.signal, AbortSignal.timeout(spec.timeoutMs)]) : AbortSignal.timeout(spec.timeoutMs);
  let freshPool: Dispatcher | undefined;
  try {
    let response: Response;
    try {
      response = await postChat(spec, signal);
    } catch (error) {
      if (signal.aborted || !closedBeforeAnswer(error)) throw error;
      result.retried = true;
      freshPool = freshConnectionPool();
      response = await postChat(spec, signal, freshPool);
    }
    if (!response.ok || !response.body) {
      const text = await response.text().catch(() => '');
      return fail(result, `HTTP ${response.status}${text ? `: ${text.slice(0, 200)}` : ''}`);
    }
    for await (const data of readSseData(response.body)) {
      const now = performance.now();
      if (data.trim() === '[DONE]') {
        done = true;
        break;
      }
      let chunk: Chunk;
      try {
        chunk = JSON.parse(data) as Chunk;
      } catch {
        return fail(result, `a stream event is not JSON: ${data.slice(0, 100)}`);
      }
      if (chunk.error) return fail(result, `error event: ${chunk.error.message ?? JSON.stringify(chunk.error)}`);
      if (chunk.timings) result.serverTimings = chunk.timings;
      if (chunk.usage?.completion_tokens !== undefined) {
        usageTokens = chunk.usage.completion_tokens;
        result.promptTokens = chunk.usage.prompt_tokens ?? -1;
        result.cachedTokens = chunk.usage.prompt_tokens_details?.cached_tokens ?? -1;
      }
      const delta = chunk.choices?.[0]?.delta;
      // Reasoning text is generated output too: it counts for TTFT and ITL like content.
      if (!delta?.content && !delta?.reasoning_content) continue;
      if (result.contentChunks === 0) result.ttftMs = now - result.startedAt;
      else result.itlMs.push(now - lastChunkAt);
      lastChunkAt = now;
      result.contentChunks++;
      result.text += delta.content ?? '';
      result.contentTimes.push(now);
      spec.onContent?.(now);
    }
  } catch (error) {
    if (spec.signal?.aborted) return fail(result, 'aborted');
    return fail(result, (error as Error).name === 'TimeoutError' ? `timed out after ${spec.timeoutMs} ms` : describeFetchError(error));
  } finally {
    // Not awaited: a graceful close waits for the pool's connection to be released.
    freshPool?.close().catch(() => undefined);
  }
  result.endedAt = performance.now();
  result.latencyMs = result.endedAt - result.startedAt;
  result.outputTokens = usageTokens >= 0 ? usageTokens : result.contentChunks;
  if (!done) return fail(result, 'the stream ended without data: [DONE]');
  if (result.contentChunks === 0) return fail(result, 'the stream carried no content');
  result.ok = true;
  return result;
}

function postChat(spec: RequestSpec, signal: AbortSignal, dispatcher?: Dispatcher): Promise<Response> {
  return fetch(`${spec.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(spec.apiKey !== undefined ? { authorization: `Bearer ${spec.apiKey}` } : {}) },
    body: JSON.stringify({
      model: spec.model,
      messages: spec.messages ?? [{ role: 'user', content: spec.prompt }],
      max_tokens: spec.maxTokens,
      ignore_eos: spec.ignoreEos ?? true,
      temperature: spec.temperature,
      stream: true,
      stream_options: { include_usage: true },
      ...spec.extraBody,
    }),
    signal,
    ...(dispatcher ? { dispatcher } : {}),
  } as RequestInit);
}

/**
 * Whether fetch failed because the server closed the connection before any byte of the answer
 * (fetch rejects before a response only then: once headers arrive, failures come from the body).
 * A refused connection (ECONNREFUSED) is not one: nothing was listening.
 */
export function closedBeforeAnswer(error: unknown): boolean {
  const code = (error as { cause?: { code?: string } }).cause?.code;
  return code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE';
}

function fail(result: RequestResult, error: string): RequestResult {
  result.ok = false;
  result.error = error;
  result.endedAt = performance.now();
  result.latencyMs = result.endedAt - result.startedAt;
  return result;
}

/** fetch hides the real reason (ECONNREFUSED, a reset) in `cause`. */
export function describeFetchError(error: unknown): string {
  const err = error as Error & { cause?: { code?: string; message?: string } };
  const cause = err.cause?.code ?? err.cause?.message;
  return cause ? `${err.message} (${cause})` : err.message;
}
