// The server's Prometheus metrics (GET /metrics), in a registry of its own so that several
// servers in one process keep their counts apart. Request metrics are recorded as requests
// run (request-meter.ts); the engine's gauges are read when the metrics are scraped.
//
//   const metrics = new ServerMetrics();
//   res.end(await metrics.render(engine));   // text format 0.0.4, content type metrics.contentType
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { EngineClient } from '../engine/client/engine-client.js';
import type { EngineStats } from '../engine/protocol.js';

/** Seconds; from a few milliseconds (a tiny model on a GPU) to minutes (a long prompt on a CPU). */
const TIME_TO_FIRST_TOKEN_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const INTER_TOKEN_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
const REQUEST_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];
/** A cache hit takes microseconds, a large schema seconds, and the deadline is 10 s by default. */
const GRAMMAR_BUCKETS = [0.0001, 0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Finish reasons as the client saw them, plus `cancelled` for a client that left first. */
export type ChoiceOutcome = 'stop' | 'length' | 'tool_calls' | 'error' | 'cancelled';

export class ServerMetrics {
  private readonly registry = new Registry();
  private readonly registers = [this.registry];

  readonly httpRequests = new Counter({
    name: 'lmforge_http_requests_total',
    help: 'HTTP requests answered, by method, endpoint path ("other" for no endpoint) and status (499: the client left before any answer)',
    labelNames: ['method', 'path', 'status'] as const,
    registers: this.registers,
  });
  readonly choicesFinished = new Counter({
    name: 'lmforge_choices_finished_total',
    help: 'Completion choices (chat and text) by finish reason as the client saw it (stop, length, tool_calls, error), or cancelled when the client left first',
    labelNames: ['finish_reason'] as const,
    registers: this.registers,
  });
  readonly timeToFirstToken = this.histogram('lmforge_time_to_first_token_seconds', 'From receiving a completion request (chat or text) to its first generated token', TIME_TO_FIRST_TOKEN_BUCKETS);
  readonly interTokenLatency = this.histogram('lmforge_inter_token_latency_seconds', 'Between consecutive output tokens of one choice (tokens that arrive together share the gap)', INTER_TOKEN_BUCKETS);
  readonly requestLatency = this.histogram('lmforge_e2e_request_latency_seconds', 'From receiving a completion request (chat or text) to the end of its 200 response', REQUEST_BUCKETS);
  readonly promptTokens = this.counter('lmforge_prompt_tokens_total', 'Prompt tokens of the requests the engine started (usage.prompt_tokens)');
  readonly cachedPromptTokens = this.counter('lmforge_cached_prompt_tokens_total', 'Prompt tokens served from the prefix cache (usage.prompt_tokens_details.cached_tokens)');
  readonly completionTokens = this.counter('lmforge_completion_tokens_total', 'Generated tokens (usage.completion_tokens; for a cancelled request, those sent before it was cancelled)');
  readonly grammarCompileTime = this.histogram('lmforge_grammar_compile_seconds', 'How long a request waited for its response_format or tools to be compiled (cache hits included)', GRAMMAR_BUCKETS);

  // Read from the engine at scrape time.
  private readonly waiting = this.gauge('lmforge_requests_waiting', 'Requests queued for a free sequence (queue depth)');
  private readonly runningRequests = this.gauge('lmforge_requests_running', 'Requests the engine is decoding');
  private readonly runningSequences = this.gauge('lmforge_sequences_running', 'Sequences the engine is decoding (a request with n choices runs n)');
  private readonly kvCellsUsed = this.gauge('lmforge_kv_cells_used', 'KV cache cells held by running sequences');
  private readonly kvCellsCached = this.gauge('lmforge_kv_cells_cached', 'KV cache cells held only by the prefix cache (given up when running sequences need room)');
  private readonly kvCellsTotal = this.gauge('lmforge_kv_cells_total', 'KV cache cells in all (max_total_seq_length)');
  private readonly preemptions = this.counter('lmforge_preemptions_total', 'Requests sent back to the queue to make room in the KV cache');
  private readonly recomputedTokens = this.counter('lmforge_recomputed_tokens_total', 'Tokens computed again after their requests were preempted (what preemption cost)');
  private readonly engineSteps = this.counter('lmforge_engine_steps_total', 'Engine steps (one batched decode each)');
  private readonly draftTokens = this.counter('lmforge_spec_draft_tokens_total', 'Speculative decoding: draft tokens proposed');
  private readonly acceptedDraftTokens = this.counter('lmforge_spec_accepted_tokens_total', 'Speculative decoding: draft tokens the model accepted (acceptance rate: this over lmforge_spec_draft_tokens_total)');
  private readonly grammarCacheHits = this.counter('lmforge_grammar_cache_hits_total', 'Output formats found compiled in the cache (memory or disk)');
  private readonly grammarJoins = this.counter('lmforge_grammar_compile_joins_total', 'Output formats that joined the same compile already running for another request');
  private readonly cacheBytes = new Gauge({
    name: 'lmforge_cache_bytes',
    help: 'Bytes each in-memory cache holds: grammar_artifacts (compiled output formats, HTTP thread), compiled_grammars (deserialized grammars and their token masks, engine thread), vocabulary (token sets and run tables for building masks, engine thread)',
    labelNames: ['cache'] as const,
    registers: this.registers,
  });
  private readonly grammarCompiles = this.counter('lmforge_grammar_compiles_total', 'Output formats compiled (cache misses)');
  private readonly engineRestarts = this.counter('lmforge_engine_restarts_total', "Engines started again after the engine's process died (a backend abort, a segfault, an out-of-memory kill); failed attempts count too");

  /** The engine's counters, carried across its restarts (EngineTotals, below). */
  private readonly engineTotals = new EngineTotals();

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The metrics in Prometheus text format, the engine's figures read now (when it runs). */
  async render(engine: EngineClient | undefined): Promise<string> {
    const restarts = engine?.restarts ?? 0;
    if (engine) setCounter(this.engineRestarts, restarts);
    // A stuck engine answers no stats: the scrape then shows the figures it last had, not a hang.
    const stats = engine?.alive ? await statsWithin(engine, STATS_WAIT_MS) : undefined;
    // Figures from an engine that failed meanwhile are left for the next scrape: they could be either engine's.
    if (engine && stats && engine.restarts === restarts) {
      this.engineTotals.startedAgain(restarts);
      const { config } = engine.info;
      this.waiting.set(stats.waiting);
      this.runningRequests.set(stats.running);
      this.runningSequences.set(config.maxNumSequence - stats.freeSlots);
      this.kvCellsUsed.set(stats.kvCellsUsed);
      this.kvCellsCached.set(stats.kvCellsCached);
      this.kvCellsTotal.set(config.maxTotalSeqLength);
      this.engineTotals.mirror(this.preemptions, stats.preemptions);
      this.engineTotals.mirror(this.recomputedTokens, stats.recomputedTokens);
      this.engineTotals.mirror(this.engineSteps, stats.steps);
      this.engineTotals.mirror(this.draftTokens, stats.draftTokens);
      this.engineTotals.mirror(this.acceptedDraftTokens, stats.acceptedDraftTokens);
      const grammars = engine.grammarCacheCounts;
      setCounter(this.grammarCacheHits, grammars.hits);
      setCounter(this.grammarJoins, grammars.joined);
      setCounter(this.grammarCompiles, grammars.compiled);
      this.cacheBytes.set({ cache: 'grammar_artifacts' }, engine.grammarArtifactCacheBytes);
      this.cacheBytes.set({ cache: 'compiled_grammars' }, stats.grammarCacheBytes);
      this.cacheBytes.set({ cache: 'vocabulary' }, stats.vocabularyCacheBytes);
    }
    return this.registry.metrics();
  }

  private gauge(name: string, help: string): Gauge {
    return new Gauge({ name, help, registers: this.registers });
  }

  private counter(name: string, help: string): Counter {
    return new Counter({ name, help, registers: this.registers });
  }

  private histogram(name: string, help: string, buckets: number[]): Histogram {
    return new Histogram({ name, help, buckets, registers: this.registers });
  }
}

/** How long a scrape waits for the engine's figures: its next step boundary, normally milliseconds away. */
const STATS_WAIT_MS = 2000;

function statsWithin(engine: EngineClient, ms: number): Promise<EngineStats | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  return Promise.race([engine.stats(), late]).finally(() => clearTimeout(timer));
}

/** A counter kept elsewhere, where it only grows: mirroring its total keeps it monotonic. */
function setCounter(counter: Counter, total: number): void {
  counter.reset();
  counter.inc(total);
}

/**
 * Counters the engine's process keeps, mirrored across its restarts: a new engine counts from
 * 0, so what its predecessors had counted when last read is carried under its own counts and
 * the server's counters never go down while the server runs. (What a dead engine counted after
 * the last scrape is lost: its process is gone.)
 */
class EngineTotals {
  private restarts = 0;
  private readonly carried = new Map<Counter, number>();
  private readonly lastRead = new Map<Counter, number>();

  /** Call with the engine's restarts before mirroring figures read from it. */
  startedAgain(restarts: number): void {
    if (restarts === this.restarts) return;
    this.restarts = restarts;
    for (const [counter, total] of this.lastRead) this.carried.set(counter, (this.carried.get(counter) ?? 0) + total);
    this.lastRead.clear();
  }

  mirror(counter: Counter, engineTotal: number): void {
    this.lastRead.set(counter, engineTotal);
    setCounter(counter, (this.carried.get(counter) ?? 0) + engineTotal);
  }
}
