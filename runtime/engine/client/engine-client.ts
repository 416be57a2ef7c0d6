// What the HTTP server needs from the engine, and nothing more. The real Engine (engine.ts)
// has this shape; server tests can hand ApiServer.ready() a scripted fake instead, to reach
// what a real model rarely does on cue (an engine error mid-stream, exact delta boundaries).
import type { GrammarCacheCounts } from '../../grammar-service/grammar-service.js';
import type { GrammarSpec } from '../../grammar-service/grammar-spec.js';
import type { EngineEvent, EngineInfo, EngineStats, GenerateRequest, TraceEntry } from '../protocol.js';

export interface EngineClient {
  readonly info: EngineInfo;
  /** False once the engine was disposed or stopped, and while it restarts: /health says so. */
  readonly alive: boolean;
  /** True from an engine failure (its process died) until another engine is ready. */
  readonly restarting: boolean;
  /** Engines started again after failures (lmforge_engine_restarts_total). */
  readonly restarts: number;
  /** It has held requests for a while without finishing a step (or said nothing): /health says so. */
  readonly stalled: boolean;
  /**
   * A request's events until every choice has finished; aborting `signal` (or leaving the loop)
   * cancels it. An engine error for the request is thrown as EngineRequestError.
   */
  generate(request: GenerateRequest, signal?: AbortSignal): AsyncGenerator<EngineEvent>;
  /** An output format compiled for this model's vocabulary; throws GrammarCompileError. */
  compileGrammar(spec: GrammarSpec): Promise<Uint8Array>;
  /** The text of token ids (a prompt given as tokens, echoed back). */
  detokenize(tokens: readonly number[]): Promise<string>;
  /**
   * Text's tokens as a prompt's are made (special-token text parsed; BOS in front when
   * `addSpecial` and the model adds one). A text longer than the context is refused
   * (EngineRequestError, context_length_exceeded), as a prompt is.
   */
  tokenize(text: string, addSpecial: boolean): Promise<number[]>;
  stats(): Promise<EngineStats>;
  /** Ends every request it holds with a 503 `server_shutting_down` saying `message`. */
  endRequests(message: string): void;
  readonly grammarCacheCounts: GrammarCacheCounts;
  /** Bytes of compiled output formats kept in memory on this thread (grammar-service.ts). */
  readonly grammarArtifactCacheBytes: number;
  /** Receives the engine's trace entries (when it runs with tracing). */
  onTrace: ((entries: TraceEntry[]) => void) | undefined;
}
