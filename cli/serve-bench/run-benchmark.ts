// The load generator: sends `numPrompts` streamed chat completions to an OpenAI-compatible
// server, either closed-loop (`concurrency` clients, each sending its next request as soon as
// the last one ends) or open-loop (Poisson arrivals at `requestRate` per second, optionally
// capped at `concurrency` in flight), and summarises TTFT, TPOT, ITL and throughput.
import { performance } from 'node:perf_hooks';
import { poissonGaps } from './arrivals.js';
import { distribution, mean, type Distribution } from './percentile.js';
import { makePrompts } from './prompts.js';
import { describeFetchError, streamChatCompletion, type RequestResult } from './stream-request.js';
import { UserFacingError } from '../../compiler/lmforge-error.js';

export interface BenchOptions {
  /** Server base URL, without /v1. */
  url: string;
  /** Model id to send; default: the first id GET /v1/models lists. */
  model?: string;
  /** Sent as Authorization: Bearer KEY, for a server that requires a key. */
  apiKey?: string;
  /** Requests in flight (closed loop), or the cap on them with requestRate. Default 1. */
  concurrency?: number;
  /** Poisson arrivals per second (open loop); unset means closed loop. */
  requestRate?: number;
  /** Default 32. */
  numPrompts?: number;
  /** Approximate prompt length in tokens (see prompts.ts). Default 128. */
  inputLen?: number;
  /** max_tokens, sent with ignore_eos so every output has this length. Default 128. */
  outputLen?: number;
  /** Default 0 (greedy). */
  temperature?: number;
  /** Asks for each token's logprob and its n most likely alternatives (logprobs, top_logprobs: n); unset: no logprobs. */
  topLogprobs?: number;
  /**
   * Fields added to every request's body (sampling parameters such as top_p or dry_multiplier);
   * none of those the benchmark sets itself (BENCH_FIELDS).
   */
  extraBody?: Record<string, unknown>;
  /** Seeds the prompts and the arrival times. Default 0. */
  seed?: number;
  /** Requests sent (one at a time) before measuring, to warm the server. Default 0. */
  warmup?: number;
  /** Per-request timeout in milliseconds. Default 600000. */
  timeoutMs?: number;
}

export interface BenchReport {
  url: string;
  model: string;
  mode: 'closed-loop' | 'poisson';
  concurrency: number | null;
  request_rate: number | null;
  num_prompts: number;
  input_len: number;
  output_len: number;
  completed: number;
  failed: number;
  /** Requests sent a second time because the server closed their connection before answering (counted in completed or failed by their second answer). */
  retried: number;
  /** Up to five distinct failure messages with their counts. */
  errors: { message: string; count: number }[];
  duration_s: number;
  request_throughput: number;
  output_throughput: number;
  total_token_throughput: number;
  mean_prompt_tokens: number | null;
  mean_output_tokens: number;
  ttft_ms: Distribution;
  tpot_ms: Distribution;
  itl_ms: Distribution;
  e2e_latency_ms: Distribution;
}

export class BenchOptionError extends UserFacingError {
  override name = 'BenchOptionError';
}

export async function runBenchmark(options: BenchOptions): Promise<BenchReport> {
  checkOptions(options);
  const url = options.url.replace(/\/+$/, '').replace(/\/v1$/, '');
  const numPrompts = options.numPrompts ?? 32;
  const inputLen = options.inputLen ?? 128;
  const outputLen = options.outputLen ?? 128;
  const seed = options.seed ?? 0;
  const rate = options.requestRate;
  const concurrency = options.concurrency ?? (rate === undefined ? 1 : undefined);
  const model = options.model ?? (await firstModelId(url, options.apiKey));
  const prompts = makePrompts(numPrompts, inputLen, seed);
  const send = (prompt: string) =>
    streamChatCompletion({
      url,
      model,
      ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
      prompt,
      maxTokens: outputLen,
      temperature: options.temperature ?? 0,
      timeoutMs: options.timeoutMs ?? 600_000,
      extraBody: { ...options.extraBody, ...(options.topLogprobs !== undefined ? { logprobs: true, top_logprobs: options.topLogprobs } : {}) },
    });

  for (const prompt of makePrompts(options.warmup ?? 0, inputLen, seed + 1)) await send(prompt);

  const started = performance.now();
  const results = rate === undefined ? await closedLoop(prompts, concurrency ?? 1, send) : await openLoop(prompts, rate, concurrency, seed, send);
  const ended = results.reduce((latest, r) => Math.max(latest, r.endedAt), started);
  return summarize(results, (ended - started) / 1000, {
    url,
    model,
    mode: rate === undefined ? 'closed-loop' : 'poisson',
    concurrency: concurrency ?? null,
    request_rate: rate ?? null,
    num_prompts: numPrompts,
    input_len: inputLen,
    output_len: outputLen,
  });
}

function checkOptions(options: BenchOptions): void {
  const positiveInt = { concurrency: options.concurrency, numPrompts: options.numPrompts, inputLen: options.inputLen, outputLen: options.outputLen };
  for (const [name, value] of Object.entries(positiveInt)) {
    if (value !== undefined && !(Number.isInteger(value) && value >= 1)) throw new BenchOptionError(`${flag(name)} must be a whole number ≥ 1, got ${value}`);
  }
  if (options.warmup !== undefined && !(Number.isInteger(options.warmup) && options.warmup >= 0)) throw new BenchOptionError(`--warmup must be a whole number ≥ 0, got ${options.warmup}`);
  if (options.seed !== undefined && !Number.isInteger(options.seed)) throw new BenchOptionError(`--seed must be an integer, got ${options.seed}`);
  if (options.requestRate !== undefined && !(options.requestRate > 0 && Number.isFinite(options.requestRate))) {
    throw new BenchOptionError(`--request-rate must be a positive number of requests per second, got ${options.requestRate}`);
  }
  if (options.temperature !== undefined && !(options.temperature >= 0 && options.temperature <= 2)) throw new BenchOptionError(`--temperature must be within [0, 2], got ${options.temperature}`);
  if (options.topLogprobs !== undefined && !(Number.isInteger(options.topLogprobs) && options.topLogprobs >= 0 && options.topLogprobs <= 20)) {
    throw new BenchOptionError(`--top-logprobs must be a whole number from 0 to 20, got ${options.topLogprobs}`);
  }
  for (const field of Object.keys(options.extraBody ?? {})) {
    const own = BENCH_FIELDS[field];
    if (own !== undefined) throw new BenchOptionError(`--extra-body may not set ${field}: the benchmark sets it${own ? `; use ${own}` : ''}`);
  }
  if (options.timeoutMs !== undefined && !(options.timeoutMs > 0)) throw new BenchOptionError(`--timeout must be a positive number of seconds, got ${options.timeoutMs / 1000}`);
  if (!/^https?:\/\/[^/]/.test(options.url)) throw new BenchOptionError(`--url must be an http(s) URL such as http://127.0.0.1:8000, got '${options.url}'`);
}

/** The body fields every request sets itself, with the flag that sets each ('' for none). */
const BENCH_FIELDS: Record<string, string> = {
  model: '--model',
  messages: '--input-len',
  max_tokens: '--output-len',
  ignore_eos: '',
  temperature: '--temperature',
  stream: '',
  stream_options: '',
  logprobs: '--top-logprobs',
  top_logprobs: '--top-logprobs',
};

/** --extra-body's text: a JSON object, or a BenchOptionError saying what it got. */
export function parseExtraBody(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new BenchOptionError(`--extra-body must be a JSON object such as '{"top_p":0.9}': ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new BenchOptionError(`--extra-body must be a JSON object such as '{"top_p":0.9}', got ${text}`);
  return value as Record<string, unknown>;
}

/** numPrompts -> --num-prompts, for messages. */
function flag(name: string): string {
  return `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

type Send = (prompt: string) => Promise<RequestResult>;

async function closedLoop(prompts: string[], concurrency: number, send: Send): Promise<RequestResult[]> {
  const results: RequestResult[] = [];
  let next = 0;
  const client = async () => {
    while (next < prompts.length) results.push(await send(prompts[next++]!));
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, prompts.length) }, client));
  return results;
}

async function openLoop(prompts: string[], rate: number, cap: number | undefined, seed: number, send: Send): Promise<RequestResult[]> {
  const gaps = poissonGaps(rate, prompts.length, seed);
  const inFlight: Promise<RequestResult>[] = [];
  const waiters: (() => void)[] = [];
  let running = 0;
  // Arrival times are absolute, so time spent waiting for a free slot under the cap is not
  // added to every later gap.
  let due = performance.now();
  for (let i = 0; i < prompts.length; i++) {
    due += gaps[i]! * 1000;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    while (cap !== undefined && running >= cap) await new Promise<void>((resolve) => waiters.push(resolve));
    running++;
    inFlight.push(
      send(prompts[i]!).finally(() => {
        running--;
        waiters.shift()?.();
      }),
    );
  }
  return Promise.all(inFlight);
}

async function firstModelId(url: string, apiKey: string | undefined): Promise<string> {
  let body: { data?: { id?: unknown }[] };
  try {
    const response = await fetch(`${url}/v1/models`, { signal: AbortSignal.timeout(10_000), headers: apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` } });
    // The server is up and wants a key: "is the server up?" sent people the wrong way.
    if (response.status === 401) throw new BenchOptionError(`${url}/v1/models wants an API key (HTTP 401): pass --api-key KEY${apiKey === undefined ? '' : ' (this one was refused)'}`);
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    body = (await response.json()) as typeof body;
  } catch (error) {
    if (error instanceof BenchOptionError) throw error;
    throw new BenchOptionError(`could not list the models at ${url}/v1/models (${describeFetchError(error)}); is the server up? or pass --model`);
  }
  const id = body.data?.[0]?.id;
  if (typeof id !== 'string') throw new BenchOptionError(`${url}/v1/models lists no model; pass --model`);
  return id;
}

type Settings = Pick<BenchReport, 'url' | 'model' | 'mode' | 'concurrency' | 'request_rate' | 'num_prompts' | 'input_len' | 'output_len'>;

export function summarize(results: readonly RequestResult[], durationS: number, settings: Settings): BenchReport {
  const ok = results.filter((r) => r.ok);
  const errorCounts = new Map<string, number>();
  for (const r of results) if (!r.ok) errorCounts.set(r.error ?? 'unknown', (errorCounts.get(r.error ?? 'unknown') ?? 0) + 1);
  const outputTokens = ok.reduce((sum, r) => sum + r.outputTokens, 0);
  const withUsage = ok.filter((r) => r.promptTokens >= 0);
  const promptTokens = withUsage.reduce((sum, r) => sum + r.promptTokens, 0);
  const perSecond = (count: number) => (durationS > 0 ? count / durationS : 0);
  return {
    ...settings,
    completed: ok.length,
    failed: results.length - ok.length,
    retried: results.filter((r) => r.retried).length,
    errors: [...errorCounts].slice(0, 5).map(([message, count]) => ({ message, count })),
    duration_s: durationS,
    request_throughput: perSecond(ok.length),
    output_throughput: perSecond(outputTokens),
    total_token_throughput: perSecond(outputTokens + promptTokens),
    mean_prompt_tokens: withUsage.length > 0 ? promptTokens / withUsage.length : null,
    mean_output_tokens: mean(ok.map((r) => r.outputTokens)),
    ttft_ms: distribution(ok.map((r) => r.ttftMs)),
    // A one-token output has no time per output token.
    tpot_ms: distribution(ok.filter((r) => r.outputTokens > 1).map((r) => (r.latencyMs - r.ttftMs) / (r.outputTokens - 1))),
    itl_ms: distribution(ok.flatMap((r) => r.itlMs)),
    e2e_latency_ms: distribution(ok.map((r) => r.latencyMs)),
  };
}
