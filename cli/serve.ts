// `lmforge serve MODEL [options]`: load a model and answer OpenAI chat completions over HTTP.
import type { CAC } from 'cac';
import { parseDeviceSpec } from '../runtime/backend/device-spec.js';
import { describeEngineConfig, KV_LAYOUTS, parseKvLayout, parseMode, overrideValue, parseOverrides, type Overrides } from '../runtime/engine/engine-config.js';
import { MODES_WITH_ADDITIONAL_MODEL, SPECULATIVE_MODES_AVAILABLE, type SpeculativeMode } from '../runtime/engine/speculative-modes.js';
import { CHAT_PAGE_OPEN_PATHS, isSendableKey, OPEN_PATHS, openPaths, parseApiKeys } from '../runtime/server/auth.js';
import { createServer } from '../runtime/server/create-server.js';
import { CORS_LISTS, corsEntryProblem, type CorsListOption } from '../runtime/server/cors.js';
import { knownModels } from '../runtime/models/known-models.js';
import { isListenPort, PORT_RANGE } from '../runtime/server/api-server.js';
import { UsageError } from './cli-error.js';
import { numberAsTyped } from './option-values.js';
import { MAX_THREADS, MAX_TIMER_MS } from '../runtime/server/check-server-options.js';
import { LMFORGE_VERSION } from '../runtime/version.js';
import { DEFAULT_GRAMMAR_CACHE_MAX_BYTES, defaultGrammarCacheDir } from '../compiler/node.js';
import { DEFAULT_RESPONSES_STORE_BYTES } from '../runtime/api/responses/response-store.js';
import { REASONING_MODES, type ReasoningMode } from '../runtime/chat-format/reasoning.js';
import { isToolFormatKey, TOOL_FORMAT_KEYS, type ToolFormatKey } from '../runtime/chat-format/tool-formats.js';
import { BUILTIN_TEMPLATE_NAMES } from '../runtime/chat-format/builtin-templates.js';
import { givenTemplateOf } from './chat-template-option.js';
import { SAMPLING_SETTINGS, type SamplingSetting } from '../runtime/engine/sampling-setting.js';

export interface ServeFlags {
  modelLib?: string;
  device: string;
  mode: string;
  kvLayout: string;
  sampling: string;
  additionalModels?: string;
  speculativeMode: string;
  overrides?: string;
  enableTracing?: boolean;
  profileSteps?: boolean;
  host: string;
  port: number | string;
  allowCredentials?: boolean;
  allowedOrigins: string;
  allowedMethods: string;
  allowedHeaders: string;
  maxBatchSize?: number | string;
  maxTotalSeqLength?: number | string;
  prefillChunkSize?: number | string;
  maxQueuedRequests: number | string;
  maxRequestBytes: number | string;
  threads?: number | string;
  drainSeconds: number | string;
  grammarTimeout: number | string;
  watchdogTimeout: number | string;
  /** Bytes; cac's default is DEFAULT_GRAMMAR_CACHE_MAX_BYTES. */
  grammarCacheMaxBytes?: number | string;
  responsesStoreMaxBytes?: number | string;
  toolFormat?: string;
  toolCallArguments: string;
  reasoning: string;
  chatTemplate?: string;
  /** Each value as typed: one, or a list when repeated. */
  apiKey?: string | string[];
  servedModelName?: string;
  /** False with --no-ui. */
  ui?: boolean;
}

/** The spec's modes, plus `ngram` (prompt lookup, no second model). */

export function registerServe(cli: CAC): void {
  cli
    .command('serve <model>', 'Serve a model over an OpenAI-compatible HTTP API')
    .usage(`serve MODEL [options]   (MODEL: a GGUF file, a model folder, a name on the model search path, or a known model: ${knownModels.map((m) => m.name).join(', ')})`)
    .option('--model-lib <path>', 'Full path of a libllama shared library to use instead of the bundled build (ROCm, OpenCL, custom builds)')
    .option('--device <device>', 'auto, or NAME[:ID] with NAME one of cuda, metal, vulkan, rocm, opencl, cpu', { default: 'auto' })
    .option('--mode <mode>', 'Engine preset: local (4 sequences), interactive (1), server (as many as memory allows)', { default: 'local' })
    .option('--kv-layout <layout>', `KV cells in one pool that sequences share (shared), or a stream for each sequence id (per-sequence: faster decoding of many streams on a CPU, a context window of memory per sequence id): ${KV_LAYOUTS.join(', ')}`, { default: 'shared' })
    .option('--additional-models <model>', 'One extra model (model_path or model_path,model_lib) for speculative decoding')
    .option('--sampling <where>', `where tokens are chosen: device (in the model's graph, for every request whose sampling can run there: only the token leaves the device), host (from each sequence's logits row, in JavaScript), or auto (the host path: the device path measured slower on a CPU and on an H100; see the README): ${SAMPLING_SETTINGS.join(', ')}`, { default: 'auto' })
    .option('--speculative-mode <mode>', 'disable, small_draft (a draft model, --additional-models), medusa (heads on the model\'s hidden state, --additional-models HEADS.gguf), eagle (an EAGLE-3 draft in llama.cpp\'s eagle3 GGUF, --additional-models EAGLE3.gguf), or ngram (drafts by prompt lookup, no second model); with a grammar, forced text is drafted too', { default: 'disable' })
    .option('--overrides <pairs>', 'Engine fields as key=value;... (max_num_sequence, max_total_seq_length, prefill_chunk_size, context_window_size, tensor_parallel_shards, gpu_memory_utilization, ...)')
    .option('--enable-tracing', 'Record timed request events, readable at GET /debug/trace (Chrome trace format)')
    .option('--profile-steps', "Time the phases of the engine's steps (plan, batch, decode, device, sample, commit, ...), readable at GET /debug/step-profile by decode width; the device phase makes an explicit synchronize after each decode, which may slow a GPU step slightly (off: nothing is timed)")
    .option('--host <host>', 'Address to bind', { default: '127.0.0.1' })
    .option('--port <port>', 'Port to listen on', { default: 8000 })
    .option('--allow-credentials', 'Send Access-Control-Allow-Credentials: true (CORS)')
    .option('--allowed-origins <json>', 'CORS allowed origins, a JSON list of strings', { default: '["*"]' })
    .option('--allowed-methods <json>', 'CORS allowed methods, a JSON list of strings', { default: '["*"]' })
    .option('--allowed-headers <json>', 'CORS allowed headers, a JSON list of strings', { default: '["*"]' })
    .option('--max-batch-size <n>', 'Older launch variant: same as --overrides max_num_sequence=N')
    .option('--max-total-seq-length <n>', 'Older launch variant: same as --overrides max_total_seq_length=N')
    .option('--prefill-chunk-size <n>', 'Older launch variant: same as --overrides prefill_chunk_size=N')
    .option('--max-queued-requests <n>', 'Requests that may wait for a free sequence; beyond it requests get 503', { default: 1024 })
    .option('--max-request-bytes <n>', 'Largest request body accepted; larger ones get 413', { default: 16 * 1024 * 1024 })
    .option('--threads <n>', 'CPU threads for llama.cpp, used as given (default: every usable CPU, fewer while other processes keep CPUs busy)')
    .option('--drain-seconds <n>', 'On SIGINT/SIGTERM, how long running requests may take to finish', { default: 30 })
    .option('--grammar-timeout <seconds>', 'Deadline for compiling one response_format; slower ones get a 400', { default: 10 })
    .option('--grammar-cache-max-bytes <n>', `Bytes of compiled response formats kept on disk ($LMFORGE_HOME/grammars, shared with other servers and compile-grammar); past it the least recently used are removed (0: memory only)`, { default: DEFAULT_GRAMMAR_CACHE_MAX_BYTES })
    .option('--responses-store-max-bytes <n>', 'Bytes of Responses API responses kept in memory for previous_response_id and GET /v1/responses/{id}; past it the oldest go (0: none stored)', { default: DEFAULT_RESPONSES_STORE_BYTES })
    .option('--watchdog-timeout <seconds>', 'An engine that holds requests and finishes no step for this long (a hung native call) is ended and another started; its requests get 503 engine_failed (0: never)', { default: 300 })
    .option('--tool-format <key>', `Tool-call format instead of the one detected from the chat template: ${TOOL_FORMAT_KEYS.join(', ')}`)
    .option('--tool-call-arguments <form>', 'function.arguments of tool calls as an object (the spec) or as a JSON string (OpenAI)', { default: 'object' })
    .option('--chat-template <template>', `A Jinja file, or a built-in template (${BUILTIN_TEMPLATE_NAMES.join(', ')}), used instead of the model's own (default: the model's, else gemma or chatml where the vocabulary has their turn tokens, else plain text turns)`)
    .option('--reasoning <mode>', 'Thinking before </think> goes to reasoning_content: on, off, or auto (when the chat template writes </think>)', { default: 'auto' })
    .option('--api-key <key>', `Require Authorization: Bearer KEY on every path but ${[...OPEN_PATHS].join(', ')} and, unless --no-ui, the chat page's ${CHAT_PAGE_OPEN_PATHS.join(', ')} (static files with no data; every API call the page makes needs the key); repeat the flag or comma-separate for several keys (default: $LMFORGE_API_KEY, same form; none: open)`)
    .option('--no-ui', 'Do not serve the web chat page at / (a 404 there instead, or a 401 to a request without a key when --api-key is set)')
    .option('--served-model-name <name>', 'The model name clients send and /v1/models lists (default: MODEL as typed when it is a name, like smollm2; for a path, the GGUF file\'s stem or the model folder\'s name); the MODEL argument and its path keep working')
    .action(async (model: string, flags: ServeFlags) => {
      await serve(model, flags);
    });
}

/** A value as a message quotes it: an empty one shows. */
const typed = (value: number | string): string => (value === '' ? "''" : String(value));
/** Node's timers hold 2³¹ − 1 ms: a longer time would fire at once. */
const MAX_SECONDS = Math.floor(MAX_TIMER_MS / 1000);

/** A whole number ≥ 1, at most `max.most` where given (`max.why` says whose limit that is). */
function positiveInteger(value: number | string | undefined, flag: string, max?: { most: number; why: string }): number | undefined {
  if (value === undefined) return undefined;
  const n = numberAsTyped(value);
  const range = max ? `from 1 to ${max.most} (${max.why})` : '≥ 1';
  if (!Number.isSafeInteger(n) || n < 1 || (max && n > max.most)) throw new UsageError(`${flag} ${typed(value)} is not valid: it must be a whole number ${range}`);
  return n;
}

function wholeSeconds(value: number | string, flag: string): number {
  const n = numberAsTyped(value);
  if (!(n >= 1) || n > MAX_SECONDS) throw new UsageError(`${flag} ${typed(value)} is not valid: it must be a whole number of seconds from 1 to ${MAX_SECONDS}`);
  return n;
}

function positiveNumber(value: number | string, flag: string): number {
  const n = numberAsTyped(value, { fraction: true });
  if (!(n > 0) || n > MAX_SECONDS) throw new UsageError(`${flag} ${typed(value)} is not valid: it must be a number of seconds > 0 and at most ${MAX_SECONDS}`);
  return n;
}

function secondsOrZero(value: number | string, flag: string): number {
  const n = numberAsTyped(value, { fraction: true });
  if (!(n >= 0) || n > MAX_SECONDS) throw new UsageError(`${flag} ${typed(value)} is not valid: it must be a number of seconds from 0 (never) to ${MAX_SECONDS}`);
  return n;
}

/** A size in bytes, 0 allowed, as a plain whole number (no unit suffixes: no other flag takes them). */
function byteCount(value: number | string, flag: string, zero: string): number {
  const n = numberAsTyped(value);
  if (!Number.isSafeInteger(n) || n < 0) throw new UsageError(`${flag} ${typed(value)} is not valid: it must be a whole number of bytes ≥ 0 (0: ${zero})`);
  return n;
}

/** A CORS list given as a flag: JSON, each entry one that can match (the option's table row says which flag and what entries). */
function jsonList(value: string, option: CorsListOption): string[] {
  const { flag, entries, example } = CORS_LISTS[option];
  let parsed: unknown;
  try {
    parsed = JSON.parse(String(value));
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed) || !parsed.every((item) => typeof item === 'string')) {
    throw new UsageError(`${flag} ${value} is not valid: it must be a JSON list of strings, for example '${example}'`);
  }
  for (const entry of parsed) {
    const problem = corsEntryProblem(entries, entry);
    if (problem) throw new UsageError(`${flag} ${value} is not valid: ${problem}`);
  }
  return parsed;
}

/** Folds the older variant's three flags into overrides; giving both forms of one field is an error. */
export function mergeLegacyLimits(overrides: Overrides, flags: ServeFlags): Overrides {
  const legacy = [
    ['--max-batch-size', 'max_num_sequence', flags.maxBatchSize],
    ['--max-total-seq-length', 'max_total_seq_length', flags.maxTotalSeqLength],
    ['--prefill-chunk-size', 'prefill_chunk_size', flags.prefillChunkSize],
  ] as const;
  const merged = { ...overrides };
  for (const [flag, key, value] of legacy) {
    // None is the older variant's own word for "compute it automatically", as leaving the flag out does.
    if (value === undefined || /^none$/i.test(String(value).trim())) continue;
    // The same rule as --overrides key=N (max_total_seq_length ≥ 16, ...), named as typed.
    const n = overrideValue(key, String(value).trim(), `${flag} ${value === '' ? "''" : value}`);
    if (merged[key] !== undefined) throw new UsageError(`${flag} and --overrides ${key} both set the same limit; give one`);
    merged[key] = n;
  }
  return merged;
}

/** The file of `--additional-models` (model_path or model_path,model_lib): small_draft's draft model, eagle's EAGLE-3 draft or medusa's heads, which only they use. */
function parseAdditionalModels(value: string | undefined, mode: SpeculativeMode): string | undefined {
  if (value === undefined) {
    if (mode === 'small_draft') throw new UsageError('--speculative-mode small_draft needs a draft model: give it with --additional-models PATH');
    if (mode === 'eagle') throw new UsageError('--speculative-mode eagle needs an EAGLE-3 draft: give it with --additional-models EAGLE3.gguf (llama.cpp\'s convert_hf_to_gguf.py converts published EAGLE-3 checkpoints)');
    if (mode === 'medusa') throw new UsageError('--speculative-mode medusa needs Medusa heads: give them with --additional-models HEADS.gguf (lmforge train-heads makes them)');
    return undefined;
  }
  const models = String(value).split(';').filter(Boolean);
  const parts = String(models[0] ?? '').split(',');
  if (models.length !== 1 || parts.length > 2) {
    throw new UsageError(`--additional-models takes one model (model_path or model_path,model_lib): only one additional model is supported`);
  }
  if (mode === 'ngram') throw new UsageError(`--speculative-mode ngram drafts from the text so far and takes no additional model: leave out --additional-models, or use small_draft, eagle or medusa with it`);
  if (!MODES_WITH_ADDITIONAL_MODEL.includes(mode)) throw new UsageError(`--additional-models ${value} is a draft model, an EAGLE-3 draft or Medusa heads: add --speculative-mode small_draft, eagle or medusa to use it`);
  if (parts.length === 2) {
    throw new UsageError(`--additional-models ${value}: a separate model library for the draft is not supported; the main library runs it (give model_path alone)`);
  }
  return parts[0]!;
}

/** The keys from --api-key, else from LMFORGE_API_KEY; each value may hold several, comma-separated. */
export function apiKeysOf(flagValues: readonly string[], env: NodeJS.ProcessEnv): string[] {
  const fromFlags = flagValues.length > 0;
  const values = fromFlags ? flagValues : [env.LMFORGE_API_KEY ?? ''];
  // An empty variable is no key; a variable of separators alone ("$K1,$K2" with both unset) served with none.
  if (!fromFlags && values[0]!.trim() === '') return [];
  const keys = parseApiKeys(values);
  const given = values.flatMap((value) => value.split(',')).length;
  if (keys.length < given) {
    // The keys are secrets: the message says where the empty one is, not what the others are.
    const empty = values[0]!.split(',').findIndex((part) => part.trim() === '');
    throw new UsageError(fromFlags ? '--api-key needs a key after it (several keys: repeat the flag, or separate them with commas)' : `LMFORGE_API_KEY holds an empty key (entry ${empty + 1} of ${given}, between commas): separate keys with single commas, or leave it empty for none`);
  }
  const unsendable = keys.find((key) => !isSendableKey(key));
  if (unsendable !== undefined) throw new UsageError(`${fromFlags ? '--api-key' : 'LMFORGE_API_KEY'}: a key must be printable ASCII (clients send it in an HTTP header, which carries nothing else as such); one holds '${[...unsendable].find((c) => !isSendableKey(c))}'`);
  return keys;
}

function servedModelNameOf(value: string | undefined): string | undefined {
  const name = value?.trim();
  if (name === '') throw new UsageError('--served-model-name needs a name after it');
  return name;
}

/** Whether a bound address is reachable only from this machine. */
export function isLoopbackAddress(address: string): boolean {
  return address === '::1' || /^(::ffff:)?127\./.test(address);
}

/** The start-up line about speculative decoding: where drafts come from and how many. */
export function describeSpeculation(mode: SpeculativeMode, draftModel: string | undefined, draftLength: number): string {
  if (mode === 'disable') return 'off';
  const source = mode === 'small_draft' ? `small_draft with ${draftModel}` : mode === 'medusa' ? `medusa with heads ${draftModel}` : mode === 'eagle' ? `eagle with EAGLE-3 draft ${draftModel}` : 'ngram (prompt lookup)';
  const length = draftLength > 0 ? `${draftLength} draft tokens a step` : 'draft length chosen per sequence from its acceptance and the measured cost';
  return `${source}, forced grammar text too; ${length}`;
}

/** Every flag checked before anything is loaded, so a typo costs no model load. */
export function checkServeFlags(flags: ServeFlags, env: NodeJS.ProcessEnv = process.env) {
  const mode = parseMode(flags.mode);
  const kvLayout = parseKvLayout(String(flags.kvLayout));
  const sampling = String(flags.sampling ?? 'auto');
  if (!(SAMPLING_SETTINGS as readonly string[]).includes(sampling)) throw new UsageError(`--sampling '${sampling}' is not valid: use one of ${SAMPLING_SETTINGS.join(', ')}`);
  const overrides = mergeLegacyLimits(parseOverrides(flags.overrides), flags);
  parseDeviceSpec(flags.device);
  const port = numberAsTyped(flags.port);
  if (!isListenPort(port)) throw new UsageError(`--port ${typed(flags.port)} is not valid: use ${PORT_RANGE}`);
  const speculativeMode = flags.speculativeMode;
  if (!(SPECULATIVE_MODES_AVAILABLE as readonly string[]).includes(speculativeMode)) {
    throw new UsageError(`--speculative-mode '${speculativeMode}' is not valid: use one of ${SPECULATIVE_MODES_AVAILABLE.join(', ')}`);
  }
  const draftModel = parseAdditionalModels(flags.additionalModels, speculativeMode as SpeculativeMode);
  if ((overrides.spec_draft_length ?? 0) > 0 && speculativeMode === 'disable') {
    throw new UsageError(`--overrides spec_draft_length=${overrides.spec_draft_length} needs speculative decoding: add --speculative-mode ngram, small_draft, eagle or medusa`);
  }
  if (flags.toolFormat !== undefined && !isToolFormatKey(String(flags.toolFormat))) {
    throw new UsageError(`--tool-format '${flags.toolFormat}' is not valid: use one of ${TOOL_FORMAT_KEYS.join(', ')}`);
  }
  if (flags.toolCallArguments !== 'object' && flags.toolCallArguments !== 'string') {
    throw new UsageError(`--tool-call-arguments '${flags.toolCallArguments}' is not valid: use object or string`);
  }
  if (!(REASONING_MODES as readonly string[]).includes(flags.reasoning)) {
    throw new UsageError(`--reasoning '${flags.reasoning}' is not valid: use one of ${REASONING_MODES.join(', ')}`);
  }
  const servedModelName = servedModelNameOf(flags.servedModelName);
  const chatTemplate = flags.chatTemplate === undefined ? undefined : givenTemplateOf(String(flags.chatTemplate));
  return {
    mode,
    kvLayout,
    sampling: sampling as SamplingSetting,
    overrides,
    speculativeMode: speculativeMode as SpeculativeMode,
    ...(draftModel ? { draftModel } : {}),
    apiKeys: apiKeysOf([flags.apiKey ?? []].flat(), env),
    ...(servedModelName !== undefined ? { servedModelName } : {}),
    ...(chatTemplate ? { chatTemplate } : {}),
    reasoning: flags.reasoning as ReasoningMode,
    ...(flags.toolFormat !== undefined ? { toolFormat: String(flags.toolFormat) as ToolFormatKey } : {}),
    toolCallArguments: flags.toolCallArguments as 'object' | 'string',
    port,
    cors: {
      allowCredentials: flags.allowCredentials === true,
      allowedOrigins: jsonList(flags.allowedOrigins, 'allowedOrigins'),
      allowedMethods: jsonList(flags.allowedMethods, 'allowedMethods'),
      allowedHeaders: jsonList(flags.allowedHeaders, 'allowedHeaders'),
    },
    maxQueuedRequests: positiveInteger(flags.maxQueuedRequests, '--max-queued-requests')!,
    maxRequestBytes: positiveInteger(flags.maxRequestBytes, '--max-request-bytes')!,
    threads: positiveInteger(flags.threads, '--threads', { most: MAX_THREADS, why: "ggml's most" }),
    drainMs: wholeSeconds(flags.drainSeconds, '--drain-seconds') * 1000,
    grammarTimeoutMs: positiveNumber(flags.grammarTimeout, '--grammar-timeout') * 1000,
    watchdogMs: secondsOrZero(flags.watchdogTimeout, '--watchdog-timeout') * 1000,
    grammarCacheMaxBytes: byteCount(flags.grammarCacheMaxBytes ?? DEFAULT_GRAMMAR_CACHE_MAX_BYTES, '--grammar-cache-max-bytes', 'compiled formats kept in memory only'),
    responsesStoreMaxBytes: byteCount(flags.responsesStoreMaxBytes ?? DEFAULT_RESPONSES_STORE_BYTES, '--responses-store-max-bytes', 'no response is stored'),
  };
}

function describeSampling(path: 'device' | 'host', setting: SamplingSetting): string {
  const why = setting === 'auto' ? ' (--sampling auto)' : '';
  return path === 'device'
    ? `in the model's graph${why}: every request's tokens are chosen there, and only they (with the logprobs asked for) come back`
    : `on the host, from each sequence's logits${why}`;
}

/** The arguments' form, with the flag OpenAI's SDKs need when it is the spec's object. */
function describeToolArguments(form: 'object' | 'string'): string {
  return form === 'string'
    ? 'function.arguments as JSON strings, as OpenAI sends them (--tool-call-arguments string)'
    : "function.arguments as objects, as the spec says (OpenAI's SDKs and the clients built on them parse a JSON string there: --tool-call-arguments string)";
}

function describeThreads(threads: { max: number; adaptive: boolean }, given: boolean): string {
  if (threads.adaptive) return `up to ${threads.max}, fewer while other processes keep CPUs busy (--threads N fixes the count)`;
  return given ? `${threads.max} (--threads)` : `${threads.max} (every usable CPU: the load of other processes cannot be read on this system)`;
}

/** The start-up line about the on-disk cache of compiled formats. */
function describeGrammarCache(maxBytes: number, dir: string = defaultGrammarCacheDir()): string {
  if (maxBytes === 0) return 'compiled formats kept in memory only (--grammar-cache-max-bytes 0)';
  return `compiled formats cached in ${dir}, least recently used removed past ${maxBytes} bytes (--grammar-cache-max-bytes)`;
}

async function serve(modelSpec: string, flags: ServeFlags): Promise<void> {
  const checked = checkServeFlags(flags);
  const server = await createServer({
    model: modelSpec,
    host: flags.host,
    port: checked.port,
    ...(checked.servedModelName !== undefined ? { servedModelName: checked.servedModelName } : {}),
    apiKeys: checked.apiKeys,
    cors: checked.cors,
    tracing: flags.enableTracing === true,
    profileSteps: flags.profileSteps === true,
    maxRequestBytes: checked.maxRequestBytes,
    ...(checked.toolFormat ? { toolFormat: checked.toolFormat } : {}),
    toolCallArguments: checked.toolCallArguments,
    reasoning: checked.reasoning,
    ...(checked.chatTemplate ? { chatTemplate: checked.chatTemplate } : {}),
    ui: flags.ui !== false,
    device: flags.device,
    ...(flags.modelLib ? { modelLib: flags.modelLib } : {}),
    mode: checked.mode,
    kvLayout: checked.kvLayout,
    sampling: checked.sampling,
    overrides: checked.overrides,
    maxQueuedRequests: checked.maxQueuedRequests,
    speculativeMode: checked.speculativeMode,
    ...(checked.draftModel ? { draftModel: checked.draftModel } : {}),
    ...(checked.threads ? { threads: checked.threads } : {}),
    grammarTimeoutMs: checked.grammarTimeoutMs,
    watchdogMs: checked.watchdogMs,
    grammarCacheMaxBytes: checked.grammarCacheMaxBytes,
    responsesStoreMaxBytes: checked.responsesStoreMaxBytes,
    onListening: ({ url, address, modelPath }) => {
      if (checked.apiKeys.length === 0 && !isLoopbackAddress(address.address)) {
        console.warn(`lmforge: warning: listening on ${flags.host} (${address.address}) without an API key: anyone who can reach this address can use the model; pass --api-key KEY or set LMFORGE_API_KEY`);
      }
      console.log(`lmforge ${LMFORGE_VERSION}: loading ${modelPath} (health at ${url}/health answers 503 until ready)`);
    },
  });
  const { url, engine, http } = server;
  const info = engine.info;
  console.log(`model:   ${server.servedModelName} from ${server.modelPath} (${info.description}, ${info.architecture}, context ${info.contextLength})`);
  console.log(`device:  ${info.devices.join(', ')} via ${info.library}`);
  for (const note of info.libraryNotes) console.log(`device:  ${note}`);
  console.log(`engine:  ${describeEngineConfig(info.config)}`);
  console.log(`memory:  ${info.config.memoryNote}`);
  console.log(`threads: ${describeThreads(info.threads, checked.threads !== undefined)}`);
  console.log(`template: ${http.templateNote}`);
  console.log(`tools:   ${http.toolFormatNote}; ${describeToolArguments(checked.toolCallArguments)}`);
  console.log(`reasoning: ${http.reasoningNote}`);
  console.log(`artifacts: ${server.artifactsNote}`);
  console.log(`grammars: ${describeGrammarCache(checked.grammarCacheMaxBytes)}`);
  console.log(`sampling: ${describeSampling(info.sampling, checked.sampling)}`);
  console.log(`speculative: ${describeSpeculation(checked.speculativeMode, checked.draftModel, checked.overrides.spec_draft_length ?? 0)}`);
  if (flags.enableTracing === true) console.log(`tracing: on, at ${url}/debug/trace`);
  if (flags.profileSteps === true) console.log(`steps:   profiled, at ${url}/debug/step-profile (each decode waits for the device)`);
  console.log(`api key: ${checked.apiKeys.length > 0 ? `required (${checked.apiKeys.length} key${checked.apiKeys.length > 1 ? 's' : ''}); ${openPaths(flags.ui !== false).join(', ')} stay open` : 'none: every endpoint is open'}`);
  console.log(`metrics: ${url}/metrics (Prometheus)`);
  console.log(`chat:    ${flags.ui === false ? 'off (--no-ui)' : `${url}/ (the web chat page)`}`);
  console.log(`serving: ${url}/v1 (endpoints at ${url}/docs)`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`lmforge: ${signal}: finishing running requests (up to ${checked.drainMs / 1000} s), then stopping`);
    await server.close(checked.drainMs);
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}
