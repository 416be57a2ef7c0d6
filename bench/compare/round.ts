// One measured round: `prompts` sent to one server by `concurrency` closed-loop clients (each
// sends its next request when its last one ends), all streamed with max_tokens and ignore_eos
// so every output has the same length. Any failed request fails the round, except one whose
// connection the server closed before answering, twice (stream-request.ts sends it again once):
// that one is counted, and left out of the figures.
import { performance } from 'node:perf_hooks';
import { median } from '../../cli/serve-bench/percentile.js';
import { streamChatCompletion, type RequestResult } from '../../cli/serve-bench/stream-request.js';

export interface RoundSpec {
  url: string;
  model: string;
  prompts: readonly string[];
  concurrency: number;
  outputLen: number;
  extraBody?: Record<string, unknown>;
}

export interface RoundResult {
  /** Output tokens per second over the round's wall time. */
  throughput: number;
  /** Medians over the round's requests, in milliseconds. */
  ttftMs: number;
  itlMs: number;
  /** Prompt tokens per second of a request's prefill, as llama-server reports it (NaN for lmforge). */
  promptPerSecond: number;
  /** Median over requests of prompt tokens (usage) / TTFT: the prefill rate as a client sees it, for both servers. */
  promptTokensPerTtft: number;
  /** Requests sent again after the server closed their connection unanswered, and those of them that failed again. */
  retried: number;
  failed: number;
  /** The requests that completed. */
  results: RequestResult[];
}

export async function runRound(spec: RoundSpec): Promise<RoundResult> {
  const results: RequestResult[] = [];
  let next = 0;
  const started = performance.now();
  const client = async () => {
    while (next < spec.prompts.length) {
      const prompt = spec.prompts[next++]!;
      results.push(
        await streamChatCompletion({
          url: spec.url, model: spec.model, prompt, maxTokens: spec.outputLen, temperature: 0, timeoutMs: 600_000,
          ...(spec.extraBody ? { extraBody: spec.extraBody } : {}),
        }),
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(spec.concurrency, spec.prompts.length) }, client));
  const seconds = (performance.now() - started) / 1000;
  const failed = results.find((r) => !r.ok && !r.retried);
  if (failed) throw new Error(`a request to ${spec.url} failed: ${failed.error}`);
  const completed = results.filter((r) => r.ok);
  if (completed.length === 0) throw new Error(`every request to ${spec.url} failed: ${results[0]?.error}`);
  const short = completed.find((r) => r.outputTokens !== spec.outputLen);
  if (short) throw new Error(`${spec.url} generated ${short.outputTokens} tokens where ${spec.outputLen} were asked for (ignore_eos)`);
  const tokens = completed.reduce((sum, r) => sum + r.outputTokens, 0);
  const timings = completed.flatMap((r) => (r.serverTimings ? [r.serverTimings.prompt_per_second] : []));
  return {
    throughput: tokens / seconds,
    ttftMs: median(completed.map((r) => r.ttftMs)),
    itlMs: median(completed.flatMap((r) => r.itlMs)),
    promptPerSecond: timings.length > 0 ? median(timings) : Number.NaN,
    promptTokensPerTtft: median(completed.map((r) => r.promptTokens / (r.ttftMs / 1000))),
    retried: results.filter((r) => r.retried).length,
    failed: results.length - completed.length,
    results: completed,
  };
}
