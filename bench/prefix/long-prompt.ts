// Scenario 3, a long prompt among running streams: several streams decode steadily, then one
// long prompt arrives. A server that prefills it in one piece stalls every stream for the
// whole prefill; one that chunks it (prefill_chunk_size, llama-server's --batch-size) stalls
// them for a chunk at a time. Compares the streams' inter-token gaps before the long prompt
// with those overlapping its prefill (send to first token).
import { performance } from 'node:perf_hooks';
import { percentile } from '../serve/percentile.js';
import { streamChatCompletion } from '../serve/stream-request.js';
import { gapsOverlapping, gapsWithin } from './itl-window.js';
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
  long_prompt_tokens: number | null;
  long_cached_tokens: number | null;
  /** Send to first token of the long prompt: its prefill, with the streams' decoding beside it. */
  long_ttft_ms: number;
  /** Streams that ended before the long prompt's first token (too short a max_tokens). */
  streams_ended_early: number;
  failed: number;
  errors: string[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runLongPrompt(url: string, model: string, size: LongPromptSize, seed: number): Promise<LongPromptResult> {
  const cut = new AbortController();
  let streaming = 0;
  let allStreaming!: () => void;
  const started = new Promise<void>((resolve) => (allStreaming = resolve));
  const streams = Array.from({ length: size.streams }, (_, i) => {
    let first = true;
    return streamChatCompletion({
      url,
      model,
      prompt: new WordText(seed, 4000 + i).words(size.streamWords),
      maxTokens: size.streamMaxTokens,
      temperature: 0,
      timeoutMs: 300_000,
      signal: cut.signal,
      onContent: () => {
        if (first && ++streaming === size.streams) allStreaming();
        first = false;
      },
    });
  });
  // A stream that fails before its first token must not leave the scenario waiting forever.
  await Promise.race([started, Promise.all(streams)]);
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
  const results = await Promise.all(streams);
  const times = results.map((r) => r.contentTimes);
  const before = gapsWithin(times, streamingAt, sendAt);
  const during = gapsOverlapping(times, sendAt, longFirstAt);
  const errors = [...results.filter((r) => !r.ok && r.error !== 'aborted'), ...(long.ok ? [] : [long])].map((r) => r.error ?? 'unknown');
  const p99Before = percentile(before, 99);
  const p99During = percentile(during, 99);
  return {
    itl_p99_before_ms: p99Before,
    itl_p99_during_ms: p99During,
    during_over_before: p99During / p99Before,
    itl_p50_before_ms: percentile(before, 50),
    itl_p50_during_ms: percentile(during, 50),
    gaps_before: before.length,
    gaps_during: during.length,
    long_prompt_tokens: long.promptTokens >= 0 ? long.promptTokens : null,
    long_cached_tokens: long.cachedTokens >= 0 ? long.cachedTokens : null,
    long_ttft_ms: long.ttftMs,
    streams_ended_early: results.filter((r) => r.ok && (r.contentTimes.at(-1) ?? 0) < longFirstAt).length,
    failed: errors.length,
    errors: [...new Set(errors)].slice(0, 5),
  };
}
