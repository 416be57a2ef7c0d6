// What createServer takes: everything `lmforge serve` does, as options (checked for JavaScript
// callers in check-server-options.ts).
import type { AddressInfo } from 'node:net';
import type { ToolCallArguments } from '../api/chat-completions/tool-calls.js';
import type { BuiltinTemplateName } from '../chat-format/builtin-templates.js';
import type { ReasoningMode } from '../chat-format/reasoning.js';
import type { GivenTemplate } from '../chat-format/template-choice.js';
import type { ToolFormatKey } from '../chat-format/tool-formats.js';
import type { EngineMode, KvLayout, Overrides } from '../engine/engine-config.js';
import type { SamplingSetting } from '../engine/sampling-setting.js';
import type { SpeculativeMode } from '../engine/speculative-modes.js';
import type { CorsOptions } from './cors.js';

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
  /** Time the phases of the engine's steps, served at GET /debug/step-profile (default off; on a GPU each step then waits for the device). */
  profileSteps?: boolean;
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
  /** Bytes of Responses API responses kept in memory for previous_response_id and GET /v1/responses/{id} (default 64 MiB; 0: none stored). */
  responsesStoreMaxBytes?: number;
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
  /**
   * Most bytes of compiled output formats in grammarCacheDir: past it the least recently used
   * files are removed (default 1 GiB, `--grammar-cache-max-bytes`; 0: kept in memory only).
   */
  grammarCacheMaxBytes?: number;
  /** Called once the port is open, before the model loads (until it has, /health answers 503). */
  onListening?: (server: { url: string; address: AddressInfo; modelPath: string; servedModelName: string }) => void;
}
