// One completion's (chat or text) contribution to the server's metrics: its latencies and token counts,
// read off the engine events it receives, and how each choice ended.
import { performance } from 'node:perf_hooks';
import type { EngineEvent } from '../engine/protocol.js';
import type { ChoiceOutcome, ServerMetrics } from './metrics.js';

const seconds = (from: number, to: number) => (to - from) / 1000;

export class RequestMeter {
  /** When the request arrived: TTFT and end-to-end latency count from here, queueing included. */
  private readonly receivedAt = performance.now();
  private firstTokenSeen = false;
  private cachedCounted = false;
  /** By choice: when its last tokens arrived, and how many tokens its deltas carried. */
  private readonly lastTokensAt: number[] = [];
  private readonly tokensSeen: number[] = [];

  constructor(private readonly metrics: ServerMetrics) {}

  observe(event: EngineEvent): void {
    if (event.type === 'started') {
      this.metrics.promptTokens.inc(event.promptTokens);
    } else if (event.type === 'delta') {
      const now = performance.now();
      this.firstToken(now);
      const count = event.tokens.length;
      if (count === 0) return;
      const last = this.lastTokensAt[event.choice];
      // Tokens that arrive together (accepted drafts) share the gap since the last ones; those
      // that come with a choice's first token came at no extra wait. So each choice gives one
      // observation per token after its first.
      const gap = last === undefined ? 0 : seconds(last, now) / count;
      for (let i = last === undefined ? 1 : 0; i < count; i++) this.metrics.interTokenLatency.observe(gap);
      this.lastTokensAt[event.choice] = now;
      this.tokensSeen[event.choice] = (this.tokensSeen[event.choice] ?? 0) + count;
      this.metrics.completionTokens.inc(count);
    } else if (event.type === 'finished') {
      // A choice that ends at once (its first token ends generation) still had a first token.
      this.firstToken(performance.now());
      // usage counts every generated token; deltas leave out one that only ends the choice.
      const unseen = event.completionTokens - (this.tokensSeen[event.choice] ?? 0);
      if (unseen > 0) this.metrics.completionTokens.inc(unseen);
      if (!this.cachedCounted) {
        this.cachedCounted = true;
        this.metrics.cachedPromptTokens.inc(event.cachedTokens);
      }
    }
  }

  /** How each choice ended, once the answer is complete (or the client has gone). */
  choicesEnded(outcomes: readonly ChoiceOutcome[]): void {
    for (const outcome of outcomes) this.metrics.choicesFinished.inc({ finish_reason: outcome });
  }

  /** The whole 200 response has been written. */
  completed(): void {
    this.metrics.requestLatency.observe(seconds(this.receivedAt, performance.now()));
  }

  private firstToken(now: number): void {
    if (this.firstTokenSeen) return;
    this.firstTokenSeen = true;
    this.metrics.timeToFirstToken.observe(seconds(this.receivedAt, now));
  }
}
