// Scenario 2, one long system prompt shared by many users: every user asks its own
// questions, one after another, all users at once. A server that shares the system prompt's
// KV between requests computes it once instead of once per request (or per slot).
import { performance } from 'node:perf_hooks';
import { mean, percentile } from '../../cli/serve-bench/percentile.js';
import { streamChatCompletion, type RequestResult } from '../../cli/serve-bench/stream-request.js';
import type { SharedSystemSize } from './sizes.js';
import { WordText } from './word-text.js';

export interface SharedSystemResult {
  ttft_p50_ms: number;
  ttft_p95_ms: number;
  completion_tokens_per_s: number;
  requests_per_s: number;
  mean_prompt_tokens: number | null;
  mean_cached_tokens: number | null;
  wall_s: number;
  completed: number;
  failed: number;
  errors: string[];
}

export async function runSharedSystem(url: string, model: string, size: SharedSystemSize, seed: number): Promise<SharedSystemResult> {
  const system = new WordText(seed, 2000).words(size.systemWords);
  const results: RequestResult[] = [];
  const user = async (index: number) => {
    const text = new WordText(seed, 3000 + index);
    for (let round = 0; round < size.rounds; round++) {
      const messages = [
        { role: 'system' as const, content: system },
        { role: 'user' as const, content: text.question(size.questionWords) },
      ];
      results.push(await streamChatCompletion({ url, model, prompt: '', messages, maxTokens: size.maxTokens, temperature: 0, timeoutMs: 300_000 }));
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: size.users }, (_, i) => user(i)));
  const wallS = (performance.now() - started) / 1000;
  const ok = results.filter((r) => r.ok);
  const withUsage = ok.filter((r) => r.promptTokens >= 0);
  const withCached = ok.filter((r) => r.cachedTokens >= 0);
  return {
    ttft_p50_ms: percentile(ok.map((r) => r.ttftMs), 50),
    ttft_p95_ms: percentile(ok.map((r) => r.ttftMs), 95),
    completion_tokens_per_s: ok.reduce((sum, r) => sum + r.outputTokens, 0) / wallS,
    requests_per_s: ok.length / wallS,
    mean_prompt_tokens: withUsage.length > 0 ? mean(withUsage.map((r) => r.promptTokens)) : null,
    mean_cached_tokens: withCached.length > 0 ? mean(withCached.map((r) => r.cachedTokens)) : null,
    wall_s: wallS,
    completed: ok.length,
    failed: results.length - ok.length,
    errors: [...new Set(results.filter((r) => !r.ok).map((r) => r.error ?? 'unknown'))].slice(0, 5),
  };
}
