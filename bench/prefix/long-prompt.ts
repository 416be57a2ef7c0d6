// Scenario 3, a long prompt among running streams: several streams decode steadily, then one
// long prompt arrives. A server that prefills it in one piece stalls every stream for the
// whole prefill; one that chunks it (prefill_chunk_size, llama-server's --batch-size) stalls
// them for a chunk at a time. Compares the streams' inter-token gaps before the long prompt
// with those overlapping its prefill (send to first token).
//
// "Before" is early in the streams, and a stream's step costs more as its context grows (8
// SmolLM2 streams on 2 cores: 22 ms a step at 100 tokens, 92 at 1,145, with no other prompt),
// so a prefill that lasts long enough looks like a stall even where it costs the streams
// nothing. The undisturbed control separates the two: the same streams, on a fresh server
// with no long prompt, timed at the same chunks as those that overlapped the prefill.
import { performance } from 'node:perf_hooks';
import { percentile } from '../../cli/serve-bench/percentile.js';
import { streamChatCompletion, type RequestResult } from '../../cli/serve-bench/stream-request.js';
import { gapIndicesOverlapping, gapsAt, gapsOverlapping, gapsWithin } from './itl-window.js';
import type { LongPromptSize } from './sizes.js';
import { WordText } from './word-text.js';

export interface LongPromptResult {
  itl_p99_before_ms: number;
  itl_p99_during_ms: number;
  /** During over before, p99. */
  during_over_before: number;
  itl_p50_before_ms: number;
  itl_p50_during_ms: number;
  gaps_before: number;
  gaps_during: number;
  /** The same chunks' gaps with no long prompt (runUndisturbed), p99; null until it ran. */
  itl_p99_undisturbed_ms: number | null;
  /** During over undisturbed, p99: what the long prompt itself cost the streams. */
  during_over_undisturbed: number | null;
  gaps_undisturbed: number;
  long_prompt_tokens: number | null;
  long_cached_tokens: number | null;
  /** Send to first token of the long prompt: its prefill, with the streams' decoding beside it. */
  long_ttft_ms: number;
  /** Streams that ended before the long prompt's first token (too short a max_tokens). */
  streams_ended_early: number;
  failed: number;
  errors: string[];
}

export interface LongPromptRun {
  result: LongPromptResult;
  /** Per stream, the chunk indices whose gaps overlapped the prefill (for runUndisturbed). */
  duringIndices: number[][];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The scenario's streams, all started at once. `allStreaming` resolves once each has sent a
 * chunk (or all have ended); `onChunk` hears each stream's chunk count as it grows.
 */
function startStreams(url: string, model: string, size: LongPromptSize, seed: number, signals: readonly AbortSignal[], onChunk?: (stream: number, chunks: number) => void) {
  let streaming = 0;
  let allStreaming!: () => void;
  const started = new Promise<void>((resolve) => (allStreaming = resolve));
  const streams = Array.from({ length: size.streams }, (_, i) => {
    let chunks = 0;
    return streamChatCompletion({
      url,
      model,
      prompt: new WordText(seed, 4000 + i).words(size.streamWords),
      maxTokens: size.streamMaxTokens,
      temperature: 0,
      timeoutMs: 300_000,
      signal: signals[i]!,
      onContent: () => {
        if (++chunks === 1 && ++streaming === size.streams) allStreaming();
        onChunk?.(i, chunks);
      },
    });
  });
  // A stream that fails before its first token must not leave the scenario waiting forever.
  const allStreamingOrEnded = Promise.race([started, Promise.all(streams)]).then(() => undefined);
  return { streams: Promise.all(streams), allStreaming: allStreamingOrEnded };
}

function failures(results: readonly RequestResult[]): string[] {
  return results.filter((r) => !r.ok && r.error !== 'aborted').map((r) => r.error ?? 'unknown');
}

export async function runLongPrompt(url: string, model: string, size: LongPromptSize, seed: number): Promise<LongPromptRun> {
  const cut = new AbortController();
  const { streams, allStreaming } = startStreams(url, model, size, seed, Array(size.streams).fill(cut.signal));
  await allStreaming;
  const streamingAt = performance.now();
  await sleep(size.beforeMs);
  const sendAt = performance.now();
  const long = await streamChatCompletion({
    url,
    model,
    prompt: new WordText(seed, 5000).words(size.longWords),
    maxTokens: 1,
    temperature: 0,
    timeoutMs: 300_000,
  });
  const longFirstAt = long.contentTimes[0] ?? performance.now();
  // Let the gap that straddles the end of the prefill close before cutting the streams.
  await sleep(300);
  cut.abort();
  const results = await streams;
  const times = results.map((r) => r.contentTimes);
  const before = gapsWithin(times, streamingAt, sendAt);
  const during = gapsOverlapping(times, sendAt, longFirstAt);
  const errors = [...failures(results), ...(long.ok ? [] : [long.error ?? 'unknown'])];
  const p99Before = percentile(before, 99);
  const p99During = percentile(during, 99);
  const result: LongPromptResult = {
    itl_p99_before_ms: p99Before,
    itl_p99_during_ms: p99During,
    during_over_before: p99During / p99Before,
    itl_p50_before_ms: percentile(before, 50),
    itl_p50_during_ms: percentile(during, 50),
    gaps_before: before.length,
    gaps_during: during.length,
    itl_p99_undisturbed_ms: null,
    during_over_undisturbed: null,
    gaps_undisturbed: 0,
    long_prompt_tokens: long.promptTokens >= 0 ? long.promptTokens : null,
    long_cached_tokens: long.cachedTokens >= 0 ? long.cachedTokens : null,
    long_ttft_ms: long.ttftMs,
    streams_ended_early: results.filter((r) => r.ok && (r.contentTimes.at(-1) ?? 0) < longFirstAt).length,
    failed: errors.length,
    errors: [...new Set(errors)].slice(0, 5),
  };
  return { result, duringIndices: gapIndicesOverlapping(times, sendAt, longFirstAt) };
}

/**
 * The control: the same streams on a fresh server with no long prompt, each cut once it has
 * sent the chunks whose gaps overlapped the prefill in `run`. Greedy decoding gives the same
 * text, so chunk i is the same token at the same context in both runs.
 */
export async function runUndisturbed(url: string, model: string, size: LongPromptSize, seed: number, run: LongPromptRun): Promise<LongPromptResult> {
  const needed = run.duringIndices.map((indices) => (indices.length > 0 ? indices.at(-1)! + 1 : 1));
  const cuts = needed.map(() => new AbortController());
  const { streams } = startStreams(url, model, size, seed, cuts.map((c) => c.signal), (stream, chunks) => {
    if (chunks >= needed[stream]!) cuts[stream]!.abort();
  });
  const results = await streams;
  const gaps = gapsAt(results.map((r) => r.contentTimes), run.duringIndices);
  const p99 = percentile(gaps, 99);
  const errors = [...run.result.errors, ...failures(results)];
  return {
    ...run.result,
    itl_p99_undisturbed_ms: p99,
    during_over_undisturbed: run.result.itl_p99_during_ms / p99,
    gaps_undisturbed: gaps.length,
    failed: errors.length,
    errors: [...new Set(errors)].slice(0, 5),
  };
}
