// The engine-event loop every completion shares: an endpoint's ChunkBuilder turns each event into
// its chunks, and this adds what does not depend on the endpoint: usage, metrics, tracing, a
// client that left, and an engine error after the start (InterruptedGeneration). Its chunks are
// the whole answer: streamed as they come (chunk-stream.ts) or folded into one (whole-response.ts).
import type { EngineEvent, PredictionCounts } from '../engine/protocol.js';
import type { RequestMeter } from '../telemetry/request-meter.js';
import type { CompletionContext } from './completion-context.js';
import { InterruptedGeneration } from './interrupted-generation.js';
import type { ChoiceOutcome } from '../telemetry/metrics.js';
import { usageOf, type Usage } from './usage.js';

export interface ChunkBuilder<Chunk> {
  /** The chunks one engine event makes: none, one or several. */
  chunksFor(event: EngineEvent): Iterable<Chunk>;
  /** How each choice ended as the client sees it (undefined: still running). */
  finishReasons(): (ChoiceOutcome | undefined)[];
  /** The last chunk: no choices, the usage. */
  usageChunk(usage: Usage): Chunk;
  /** Of the completion tokens, those that were thinking, where the model may think (chat's reasoning). */
  reasoningTokens?(): number | undefined;
}

export interface GenerationRun {
  traceId: string;
  context: CompletionContext;
  meter: RequestMeter;
  /** Aborted when the client goes away; the events then end early. */
  signal: AbortSignal;
  /** stream_options.continuous_usage_stats: every chunk carries the usage so far. */
  continuousUsage?: boolean;
  /** The request has a prediction: usage counts its drafts (from the first chunk on, with continuous usage). */
  withPrediction?: boolean;
}

/** `events` may merge several engine requests (a batch of prompts); their ids tell them apart. */
export async function* generationChunks<Chunk>(events: AsyncIterable<EngineEvent>, builder: ChunkBuilder<Chunk>, run: GenerationRun): AsyncGenerator<Chunk> {
  const { tracer } = run.context;
  let started = false;
  let hadOutput = false;
  let promptTokens = 0;
  let completionTokens = 0;
  /** Tokens of choices still running, by engine request and choice: an interrupted answer's usage counts them too. */
  const unfinishedTokens = new Map<string, number>();
  /** Prompt tokens served from the prefix cache, by engine request (its choices share one prompt). */
  const cachedTokens = new Map<number, number>();
  /** Draft tokens from the request's prediction, over its finished choices; undefined without a prediction. */
  const prediction: PredictionCounts | undefined = run.withPrediction ? { accepted: 0, rejected: 0 } : undefined;
  const usage = () => {
    const unfinished = [...unfinishedTokens.values()].reduce((sum, n) => sum + n, 0);
    return usageOf(promptTokens, completionTokens + unfinished, [...cachedTokens.values()].reduce((sum, n) => sum + n, 0), prediction, builder.reasoningTokens?.());
  };
  const outcomes = (unfinished: ChoiceOutcome) => builder.finishReasons().map((reason) => reason ?? unfinished);
  try {
    for await (const event of events) {
      run.meter.observe(event);
      if (event.type === 'started') {
        started = true;
        promptTokens += event.promptTokens;
        tracer?.instant(run.traceId, 'tokenized', { prompt_tokens: event.promptTokens });
      } else if (event.type === 'delta') {
        hadOutput ||= event.text !== '';
        const key = `${event.id}:${event.choice}`;
        if (event.cachedTokens !== undefined) cachedTokens.set(event.id, event.cachedTokens);
        unfinishedTokens.set(key, (unfinishedTokens.get(key) ?? 0) + event.tokens.length);
      } else if (event.type === 'finished') {
        unfinishedTokens.delete(`${event.id}:${event.choice}`);
        completionTokens += event.completionTokens;
        cachedTokens.set(event.id, event.cachedTokens);
        if (event.prediction && prediction) {
          prediction.accepted += event.prediction.accepted;
          prediction.rejected += event.prediction.rejected;
        }
        hadOutput ||= event.completionTokens > 0;
      }
      if (!run.continuousUsage) yield* builder.chunksFor(event);
      else for (const chunk of builder.chunksFor(event)) yield { ...chunk, usage: usage() } as Chunk;
    }
  } catch (error) {
    if (!started) throw error;
    tracer?.instant(run.traceId, 'failed', { message: error instanceof Error ? error.message : String(error) });
    throw new InterruptedGeneration(error, usage(), outcomes('error'), hadOutput);
  }
  if (run.signal.aborted) {
    run.meter.choicesEnded(outcomes('cancelled'));
    tracer?.instant(run.traceId, 'cancelled', {});
    return;
  }
  tracer?.instant(run.traceId, 'finished', {});
  run.meter.choicesEnded(outcomes('error'));
  yield builder.usageChunk(usage());
}
