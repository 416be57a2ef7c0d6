// Scenario 1, multi-turn chat: conversations run concurrently, each one's turns in order;
// every turn adds a user message to the history (which starts with a system prompt) and
// then the server's own reply, so a server that keeps the conversation's prefix only
// computes the new message. Reports the median TTFT of each turn across conversations.
import { performance } from 'node:perf_hooks';
import { median } from '../../cli/serve-bench/percentile.js';
import { streamChatCompletion, type ChatMessage } from '../../cli/serve-bench/stream-request.js';
import type { MultiTurnSize } from './sizes.js';
import { WordText } from './word-text.js';

export interface MultiTurnResult {
  /** Index t: turn t + 1, median over conversations. */
  ttft_ms: number[];
  prompt_tokens: number[];
  /** null where the server reported no cached tokens. */
  cached_tokens: (number | null)[];
  wall_s: number;
  failed: number;
  errors: string[];
}

export async function runMultiTurn(url: string, model: string, size: MultiTurnSize, seed: number): Promise<MultiTurnResult> {
  const ttft: number[][] = Array.from({ length: size.turns }, () => []);
  const prompt: number[][] = Array.from({ length: size.turns }, () => []);
  const cached: number[][] = Array.from({ length: size.turns }, () => []);
  const errors: string[] = [];
  const conversation = async (index: number) => {
    const text = new WordText(seed, 1000 + index);
    const messages: ChatMessage[] = [{ role: 'system', content: text.words(size.systemWords) }];
    for (let turn = 0; turn < size.turns; turn++) {
      messages.push({ role: 'user', content: text.words(size.turnWords) });
      const r = await streamChatCompletion({ url, model, prompt: '', messages, maxTokens: size.maxTokens, temperature: 0, timeoutMs: 300_000 });
      if (!r.ok) {
        errors.push(`conversation ${index + 1} turn ${turn + 1}: ${r.error}`);
        return;
      }
      ttft[turn]!.push(r.ttftMs);
      if (r.promptTokens >= 0) prompt[turn]!.push(r.promptTokens);
      if (r.cachedTokens >= 0) cached[turn]!.push(r.cachedTokens);
      messages.push({ role: 'assistant', content: r.text });
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: size.conversations }, (_, i) => conversation(i)));
  return {
    ttft_ms: ttft.map(median),
    prompt_tokens: prompt.map(median),
    cached_tokens: cached.map((c) => (c.length > 0 ? median(c) : null)),
    wall_s: (performance.now() - started) / 1000,
    failed: errors.length,
    errors: errors.slice(0, 5),
  };
}
