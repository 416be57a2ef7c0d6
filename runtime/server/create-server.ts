// `lmforge serve` as a function, for programs that embed lmforge: find the model, open the
// port, load the engine, answer OpenAI requests. The CLI is this plus flag parsing and logs.
//
//   import { createServer } from 'lmforge';
//   const server = await createServer({ model: 'model.gguf', port: 0 });
//   const reply = await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', ... });
//   await server.close();
import type { AddressInfo } from 'node:net';
import { defaultGrammarCacheDir } from '../../compiler/node.js';
import type { ReasoningMode } from '../chat-format/reasoning.js';
import type { GivenTemplate } from '../chat-format/template-choice.js';
import type { BuiltinTemplateName } from '../chat-format/builtin-templates.js';
import type { ToolFormatKey } from '../chat-format/tool-formats.js';
import type { EngineMode, KvLayout, Overrides } from '../engine/engine-config.js';
import { Engine } from '../engine/client/engine.js';
import type { SpeculativeMode } from '../engine/speculative-modes.js';
import { loadCompiledArtifacts } from '../models/compiled-artifacts.js';
import { recordedTemplate } from '../models/recorded-template.js';
import { resolveModel } from '../models/resolve-model.js';
import { defaultServedModelName, modelAliases } from '../models/served-model-name.js';
import { LMFORGE_VERSION } from '../version.js';
import { ApiServer } from './api-server.js';
import { checkServerOptions } from './check-server-options.js';
import type { CorsOptions } from './cors.js';
import type { ToolCallArguments } from '../api/chat-completions/tool-calls.js';
import type { SamplingSetting } from '../engine/sampling-setting.js';

/** Everything is optional but `model`; the defaults are `lmforge serve`'s. */
export interface ServerOptions {
  /** A GGUF file, a model folder, or a name on the model search path, as `lmforge serve MODEL` takes. */
  model: string;
  /** Address to bind (default 127.0.0.1). */
  host?: string;
  /** Port to listen on (default 8000; 0 takes a free one: read it from `url`). */
  port?: number;
  /** The name clients send as `model` and GET /v1/models lists (default: the GGUF file's stem, or the folder's name). */
  servedModelName?: string;
  /** Keys a request needs one of, as `Authorization: Bearer KEY` (default none: every endpoint is open). */
  apiKeys?: readonly string[];
  /** CORS (default: any origin, method and header; no credentials). */
  cors?: Partial<CorsOptions>;
  /** Largest request body in bytes; larger ones get 413 (default 16 MiB). */
  maxRequestBytes?: number;
  /** Record timed request events, served at GET /debug/trace (default off). */
  tracing?: boolean;
  /** Tool-call format (default: detected from the chat template). */
  toolFormat?: ToolFormatKey;
  /** `function.arguments` as an object (default, the spec) or as OpenAI's JSON string. */
  toolCallArguments?: ToolCallArguments;
  /** Thinking split off into reasoning_content: on, off, or auto (default: when the template writes </think>). */
  reasoning?: ReasoningMode;
  /**
   * A chat template instead of the model's own: a built-in's name (`'plain'`), as
   * `--chat-template NAME` takes it, or Jinja source, stop strings its turns need, and a label for logs. Default: the model's,
   * else one chosen from its vocabulary's turn tokens (see runtime/chat-format/template-choice.ts).
   */
  chatTemplate?: GivenTemplate | BuiltinTemplateName;
  /** Serve the web chat page at `/` (default true). */
  ui?: boolean;
  /** auto (default), or NAME[:ID] with NAME one of cuda, metal, vulkan, rocm, opencl, cpu. */
  device?: string;
  /** A libllama shared library to use instead of the bundled build. */
  modelLib?: string;
  /** Engine preset: local (default), interactive or server. */
  mode?: EngineMode;
  /** Engine fields (max_num_sequence, context_window_size, ...); they win over the mode. */
  overrides?: Overrides;
  /** KV cells in one pool (shared, default) or a stream per sequence id (per-sequence). */
  kvLayout?: KvLayout;
  /** Where tokens are chosen: in the model's graph where a request allows it (device), from logits on the host, or auto (default: the host path, measured faster on a CPU and on an H100). */
  sampling?: SamplingSetting;
  /** CPU threads for llama.cpp (default: every usable CPU, fewer while other processes keep CPUs busy). */
  threads?: number;
  /** Requests that may wait for a free sequence; beyond it requests get 503 (default 1024). */
  maxQueuedRequests?: number;
  /** Speculative decoding: disable (default), ngram, small_draft, eagle or medusa with `draftModel`. */
  speculativeMode?: SpeculativeMode;
  /** The draft model for small_draft (found like `model`), the EAGLE-3 GGUF for eagle, or the heads GGUF for medusa. */
  draftModel?: string;
  /** Deadline for compiling one response_format, in ms (default 10 s). */
  grammarTimeoutMs?: number;
  /** An engine holding requests that finishes no step for this long is ended and another started, in ms (default 300 s; 0: never). */
  watchdogMs?: number;
  /** Folder of compiled output formats (default $LMFORGE_HOME/grammars). */
  grammarCacheDir?: string;
  /** Called once the port is open, before the model loads (until it has, /health answers 503). */
  onListening?: (server: { url: string; address: AddressInfo; modelPath: string; servedModelName: string }) => void;
}

export interface LmforgeServer extends AsyncDisposable {
  /** `http://host:port`; the API is under `/v1`, its description at `/docs`. */
  readonly url: string;
  readonly address: AddressInfo;
  /** The GGUF file served. */
  readonly modelPath: string;
  readonly servedModelName: string;
  /** The loaded engine, also usable directly (`engine.generate`). */
  readonly engine: Engine;
  /** The HTTP side: its Prometheus `metrics`, and start-up notes on the tool format and reasoning. */
  readonly http: ApiServer;
  /** Where the token-level artifacts came from: a compiled folder (loaded, or rebuilt and why), or none. */
  readonly artifactsNote: string;
  /** Stops taking requests, lets running ones finish for up to `graceMs` (default 0), closes every connection and frees the engine. */
  close(graceMs?: number): Promise<void>;
}

export async function createServer(options: ServerOptions): Promise<LmforgeServer> {
  const givenTemplate = checkServerOptions(options);
  const model = await resolveModel(options.model);
  // A compiled folder's artifacts: loaded, or rebuilt first when another lmforge or vocabulary made them.
  const compiled = await loadCompiledArtifacts(model);
  // A template chosen at compile time (--chat-template) serves as if given again; a flag wins over it.
  const chatTemplate = givenTemplate ?? recordedTemplate(model.config);
  const servedModelName = options.servedModelName ?? defaultServedModelName(model);
  const http = new ApiServer({
    modelId: servedModelName,
    modelAliases: modelAliases(model, servedModelName),
    apiKeys: options.apiKeys ?? [],
    cors: { allowCredentials: false, allowedOrigins: ['*'], allowedMethods: ['*'], allowedHeaders: ['*'], ...options.cors },
    tracing: options.tracing === true,
    maxBodyBytes: options.maxRequestBytes ?? 16 * 1024 * 1024,
    version: LMFORGE_VERSION,
    ...(options.toolFormat ? { toolFormat: options.toolFormat } : {}),
    toolCallArguments: options.toolCallArguments ?? 'object',
    reasoning: options.reasoning ?? 'auto',
    ...(chatTemplate ? { chatTemplate } : {}),
    ui: options.ui !== false,
  });
  const address = await http.listen(options.host ?? '127.0.0.1', options.port ?? 8000);
  const url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  options.onListening?.({ url, address, modelPath: model.ggufPath, servedModelName });
  let engine: Engine;
  try {
    engine = await Engine.create({
      modelPath: model.ggufPath,
      device: options.device ?? 'auto',
      ...(options.modelLib ? { modelLib: options.modelLib } : {}),
      mode: options.mode ?? 'local',
      overrides: options.overrides ?? {},
      ...(options.kvLayout ? { kvLayout: options.kvLayout } : {}),
      ...(options.sampling ? { sampling: options.sampling } : {}),
      maxQueuedRequests: options.maxQueuedRequests ?? 1024,
      tracing: options.tracing === true,
      speculativeMode: options.speculativeMode ?? 'disable',
      ...(options.draftModel ? { draftModelPath: (await resolveModel(options.draftModel)).ggufPath } : {}),
      ...(options.threads ? { threads: options.threads } : {}),
      grammarTimeoutMs: options.grammarTimeoutMs ?? 10_000,
      ...(options.watchdogMs !== undefined ? { watchdogMs: options.watchdogMs } : {}),
      grammarCacheDir: options.grammarCacheDir ?? defaultGrammarCacheDir(),
      ...(compiled.artifacts ? { vocabularyTables: compiled.artifacts.vocabularyTables, compiledGrammars: compiled.artifacts.grammars } : {}),
    });
  } catch (error) {
    await http.drain(0); // a server that cannot load its model leaves no port open behind it
    throw error;
  }
  try {
    http.ready(engine);
  } catch (error) {
    // Nothing of a server that failed to start is left running: its port, its engine process.
    await http.drain(0);
    await engine.dispose();
    throw error;
  }
  const close = async (graceMs = 0): Promise<void> => {
    await http.drain(graceMs);
    await engine.dispose();
  };
  return { url, address, modelPath: model.ggufPath, servedModelName, engine, http, artifactsNote: compiled.note, close, [Symbol.asyncDispose]: () => close() };
}
