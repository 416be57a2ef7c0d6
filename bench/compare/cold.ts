// Cache-cold prompts, and the proof that they were. Every request of a comparison gets a prompt
// no other request of the run shares beyond the chat template's first tokens (a tag naming the
// run opens it, seeded words follow), and each server must report that it computed the whole
// prompt: llama-server's timings.cache_n, lmforge's usage.prompt_tokens_details.cached_tokens.
// A server that reuses anything, or says nothing, fails the run: a warm TTFT compared with a
// cold one is the error this harness exists to avoid.
import { makePrompts } from '../../cli/serve-bench/prompts.js';
import type { RequestResult } from '../../cli/serve-bench/stream-request.js';

/** `count` prompts of `inputLen` words after a tag unique to (run, side, concurrency, repetition). */
export function coldPrompts(count: number, inputLen: number, tag: string, seed: number): string[] {
  return makePrompts(count, inputLen, seed).map((words, i) => `[${tag} #${i}] ${words}`);
}

export class NotColdError extends Error {
  override name = 'NotColdError';
}

/** Throws unless every prompt differs from every other one given. */
export function checkDistinct(prompts: readonly string[]): void {
  const seen = new Set<string>();
  for (const prompt of prompts) {
    if (seen.has(prompt)) throw new NotColdError(`a prompt is sent twice: ${prompt.slice(0, 60)}…`);
    seen.add(prompt);
  }
}

/**
 * Throws unless every successful result says its server computed the whole prompt: cache_n = 0
 * in llama-server's timings, or cached_tokens = 0 in lmforge's usage. Failed requests are
 * checked elsewhere (the round fails on them).
 */
export function checkCold(server: 'lmforge' | 'llama-server', results: readonly RequestResult[]): void {
  for (const [i, result] of results.entries()) {
    if (!result.ok) continue;
    const reused = server === 'llama-server' ? result.serverTimings?.cache_n : result.cachedTokens >= 0 ? result.cachedTokens : undefined;
    const where = server === 'llama-server' ? 'timings.cache_n' : 'usage.prompt_tokens_details.cached_tokens';
    if (reused === undefined) throw new NotColdError(`${server} sent no ${where} for request ${i}: cannot show that it ran cache-cold`);
    if (reused !== 0) throw new NotColdError(`${server} took ${reused} prompt tokens of request ${i} from its cache (${where}) in a run meant to be cache-cold`);
  }
}
