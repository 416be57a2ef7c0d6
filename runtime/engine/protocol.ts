// The few plain messages the engine worker and the main thread exchange.
import type { SamplingParams } from '../sampling/index.js';
import type { SamplingSetting } from './sampling-setting.js';
import type { EngineConfig, EngineMode, KvLayout, Overrides } from './engine-config.js';
import type { GrammarSpec } from '../grammar-service/grammar-spec.js';
import type { SpeculativeMode } from './speculative-modes.js';
import type { ProbeTarget } from './probe-failure.js';
import type { StepProfileTotals, StepWallTotals } from './step-profile.js';

/** What to generate for one request. */
export interface GenerateRequest {
  /** Rendered prompt text (special-token text such as "<|im_start|>" is parsed), or token ids. */
  prompt: string | readonly number[];
  /** Add the model's BOS token in front of a text prompt when the model wants one. */
  addSpecial?: boolean;
  /**
   * Keep only the prompt's last this-many tokens (vLLM's truncate_prompt_tokens: left
   * truncation, the BOS token with the rest); -1: as many as leave room for maxTokens (for one
   * token without it).
   */
  truncatePromptTokens?: number;
  /** Number of choices; they share the prompt's KV cells. */
  n?: number;
  /**
   * Most generated tokens per choice; unset means up to the context window. 0 generates
   * nothing: the prompt is computed (and scored, with `promptLogprobs`) and each choice
   * finishes with 'length'.
   */
  maxTokens?: number;
  stop?: readonly string[];
  /**
   * Of `stop`, those output when they end a choice (vLLM's include_stop_str_in_output: the
   * request's own, not a template's); the others are cut from the text, as OpenAI's are.
   */
  outputStops?: readonly string[];
  /**
   * Tokens whose generation ends the choice (vLLM's stop_token_ids), finish reason 'stop': a
   * control token's text is left out, as an end token's is; another's is output.
   */
  stopTokenIds?: readonly number[];
  /**
   * Fewest tokens generated before the choice may end (vLLM's min_tokens): until then no token
   * that would end it is sampled (end of generation, a turn opener, `stopTokenIds`) and stop
   * strings are not looked for. An output format's end still ends the choice, and so do
   * `maxTokens` and the context.
   */
  minTokens?: number;
  /** The only tokens a choice may generate (vLLM's allowed_token_ids): an end token too, or it runs to its length. */
  allowedTokenIds?: readonly number[];
  /**
   * Words never to be generated (vLLM's bad_words): each is tokenized as written and with a
   * leading space, and the last token of either is not sampled where the output's last tokens
   * are the rest of it (a one-token word never).
   */
  badWords?: readonly string[];
  ignoreEos?: boolean;
  /**
   * false: the prompt is computed whole, never taken from other requests' KV cells (its own
   * choices still share it). Reproducibility over speed: see `seed`.
   */
  cachePrompt?: boolean;
  sampling?: Partial<SamplingParams>;
  /** Seeds the sampling stream: the same draws for the same request, so the same output where the logits are the same (see `cachePrompt`). */
  seed?: number;
  /** Names the request in trace entries (when tracing is on). */
  traceId?: string;
  /** A compiled grammar artifact (Engine.compileGrammar) the output must follow. */
  grammar?: Uint8Array;
  /**
   * Text the chat template opens the model's turn with (its generation prompt). A control
   * token in it, generated outside a grammar, means the model began a new turn: it ends the choice.
   */
  turnOpener?: string;
  /**
   * Whether control tokens (and user-defined media markers, Gemma's <start_of_image>) generated
   * outside a grammar are left out of the text (default true, vLLM's skip_special_tokens). A
   * grammar that names a control token keeps its text.
   */
  skipSpecialTokens?: boolean;
  /**
   * OpenAI's Predicted Outputs: text most of the answer is expected to repeat (a file being
   * edited). Under speculative decoding its tokens are drafted where the output follows them;
   * drafts are verified, so it changes no output beyond the near-ties batch shapes may swap.
   */
  prediction?: string;
  /**
   * Score the prompt: a `prompt_logprobs` event gives every prompt token's logprob under the
   * model, with `sampling.topLogprobs` most likely tokens at its place (OpenAI's legacy `echo`
   * with `logprobs`). Those are the log-softmax of the model's own logits: no bias, penalty or
   * grammar of the request's applies to a token it did not choose. The prompt is computed
   * whole, never taken from the prefix cache (cached cells have no logits left).
   */
  promptLogprobs?: boolean;
  /**
   * With `promptLogprobs`: how many most likely tokens each prompt position lists (0 to
   * MAX_TOP_LOGPROBS), where they are asked for apart from the output's (vLLM's
   * `prompt_logprobs`); unset, `sampling.topLogprobs` (the legacy `echo`).
   */
  promptTopLogprobs?: number;
}

/** One timed engine event of a request, in microseconds since the epoch (Chrome trace format). */
export interface TraceEntry {
  traceId: string;
  name: string;
  ts: number;
  /** Present for spans, absent for instants. */
  dur?: number;
  args?: Record<string, number | string>;
}

export interface TokenLogprob {
  token: number;
  logprob: number;
  /** The token's bytes in the output (what the text gained). */
  bytes: number[];
  top: { token: number; logprob: number; bytes: number[] }[];
}

/** A prompt token as the model scored it: the first has no logprob (nothing comes before it), no rank and no top list. */
export interface PromptTokenLogprob {
  token: number;
  logprob: number | null;
  /** 1 + how many tokens the model found more likely there (vLLM's rank); `top`'s ranks are their places in it. */
  rank: number | null;
  bytes: number[];
  top: { token: number; logprob: number; bytes: number[] }[];
}

export type FinishReason = 'stop' | 'length';

/** What became of a choice's tokens drafted from the request's prediction (OpenAI's usage names them so). */
export interface PredictionCounts {
  accepted: number;
  rejected: number;
}

/** Everything that happened to a request in one engine step. */
export type EngineEvent =
  | { type: 'started'; id: number; promptTokens: number }
  /** cachedTokens: on the request's first delta after its prompt was placed, the prompt tokens it took from the prefix cache. */
  | { type: 'delta'; id: number; choice: number; text: string; tokens: number[]; logprobs?: TokenLogprob[]; cachedTokens?: number }
  /**
   * GenerateRequest.promptLogprobs: one entry per prompt token, sent once, before any choice's
   * first delta or finish. For the prompt all choices share; `choice` is the first one's (0).
   */
  | { type: 'prompt_logprobs'; id: number; choice: number; tokens: PromptTokenLogprob[] }
  /**
   * endLogprob: with logprobs, the entry of the end token (EOS, a turn opener) that finished the
   * choice: generated and counted in completionTokens, but never in a delta (it is no output).
   */
  | { type: 'finished'; id: number; choice: number; reason: FinishReason; completionTokens: number; cachedTokens: number; endLogprob?: TokenLogprob; prediction?: PredictionCounts }
  | { type: 'error'; id: number; error: EngineErrorInfo }
  | { type: 'trace'; id: number; entries: TraceEntry[] };

/** engine_failed: the engine's process died (or is restarting after it did); the request was lost. */
export type EngineErrorCode = 'context_length_exceeded' | 'server_is_overloaded' | 'invalid_request' | 'internal_error' | 'engine_failed' | 'shutting_down';

export interface EngineErrorInfo {
  code: EngineErrorCode;
  message: string;
  /**
   * The GenerateRequest field the error is about, when there is one, named as the API names it
   * (`n`, `logit_bias`, `response_format`); `prompt` is the server's to name (messages, prompt).
   */
  param?: string;
}

/** Where the engine runs (EngineInitOptions.isolation). */
export type EngineIsolation = 'process' | 'thread';

export interface EngineInitOptions {
  modelPath: string;
  /**
   * Where the engine runs: 'process' (default), a child process the Engine restarts when it
   * dies, so a crash in native code never takes the caller down; or 'thread', a worker thread
   * of the caller's process (no process start, but a native crash ends the caller too).
   */
  isolation?: EngineIsolation;
  device: string;
  modelLib?: string;
  mode: EngineMode;
  overrides: Overrides;
  /** CPU threads, used as given; unset: up to every usable CPU, fewer while other processes keep CPUs busy. */
  threads?: number;
  /** Requests allowed to wait for a slot; more are refused as overload (default 1024). */
  maxQueuedRequests?: number;
  /** KV cells in one pool (default) or a stream per sequence id (engine-config.ts KvLayout). */
  kvLayout?: KvLayout;
  /** Record timed trace entries for every request. */
  tracing?: boolean;
  /** Time the phases of every decode step (step-profile.ts; bench:host), reported in stats().stepProfile. */
  profileSteps?: boolean;
  /** Where tokens are chosen: in the model's graph where a request allows it, or from logits on the host (device-sampling.ts; default auto). */
  sampling?: SamplingSetting;
  /** Where draft tokens come from (default disable); overrides.spec_draft_length fixes their number. */
  speculativeMode?: SpeculativeMode;
  /** The spec's --additional-models: small_draft's draft model (it must share the model's vocabulary), or medusa's heads GGUF. */
  draftModelPath?: string;
  /** Deadline for compiling one output format (default 10 s). */
  grammarTimeoutMs?: number;
  /**
   * The engine is killed (and another started) when it holds requests and has finished no step
   * for this long: a native call that hangs would otherwise hold them for ever (default 300 s,
   * SGLang's watchdog; 0: never).
   */
  watchdogMs?: number;
  /** Folder for compiled output formats on disk (default: memory only). */
  grammarCacheDir?: string;
  /** Most bytes of compiled formats kept in grammarCacheDir, least recently used removed past it (default 1 GiB; 0: memory only). */
  grammarCacheMaxBytes?: number;
  /** A compiled folder's vocabulary tables (TokenizerInfo.toCacheBytes), used instead of building them on the first constrained request. */
  vocabularyTables?: Uint8Array;
  /** A compiled folder's grammar artifacts (with token masks), served for their spec without compiling. */
  compiledGrammars?: { spec: GrammarSpec; artifact: Uint8Array }[];
}

export interface EngineInfo {
  config: EngineConfig;
  vocabSize: number;
  /** Token ids that end generation (EOS, EOT, ...). */
  endOfGeneration: number[];
  bosToken: number;
  addBos: boolean;
  /** Texts of control tokens by id, for templates. */
  bosText: string;
  eosText: string;
  architecture: string;
  description: string;
  contextLength: number;
  chatTemplate: string | undefined;
  /** The model's `tokenizer.chat_template.tool_use`, when it has one. */
  toolUseChatTemplate: string | undefined;
  devices: string[];
  /** CPU threads llama.cpp decodes with: at most `max`, fewer while other processes are busy when `adaptive`. */
  threads: { max: number; adaptive: boolean };
  library: string;
  /** Why that library: which CUDA build serves the card, or why CUDA was skipped. */
  libraryNotes: string[];
  /** Where tokens are chosen (the `sampling` setting resolved): in the graph where a request allows it, or on the host. */
  sampling: 'device' | 'host';
  /** Each token's text as a prompt would write it (control tokens included), by id. */
  tokenTexts: string[];
  /**
   * The vocabulary as grammar masks see it (TokenizerInfo.toCacheBytes), so that the compile
   * workers compute a format's first token mask within its deadline, off the engine's thread.
   */
  grammarVocabulary?: Uint8Array;
}

export type ToWorker =
  | { type: 'init'; options: EngineInitOptions }
  | { type: 'submit'; id: number; request: GenerateRequest }
  | { type: 'cancel'; id: number }
  | { type: 'stats' }
  | { type: 'detokenize'; id: number; tokens: readonly number[] }
  /** Text as a prompt is tokenized (special-token text parsed), BOS added when `addSpecial` and the model adds one. */
  | { type: 'tokenize'; id: number; text: string; addSpecial: boolean }
  | { type: 'shutdown' }
  /** What the server's side sent in one tick, in order (Engine.send): requests sent together arrive together. */
  | { type: 'together'; messages: ToWorker[] };

export type FromWorker =
  /** Sent before the start-up probe decodes (startup-probe.ts). */
  | { type: 'probing'; target: ProbeTarget }
  | { type: 'ready'; info: EngineInfo }
  | { type: 'init-failed'; message: string; userFacing: boolean }
  | { type: 'events'; events: EngineEvent[] }
  | { type: 'stats'; stats: EngineStats }
  | { type: 'detokenized'; id: number; text: string }
  /** The tokens, or why not (a text far longer than the context: tokenizing it whole would hold the engine's thread). */
  | { type: 'tokenized'; id: number; tokens: number[] }
  | { type: 'tokenized'; id: number; error: EngineErrorInfo }
  /** Every second from a serving engine: its steps so far, and whether it holds requests (the watchdog's reading). */
  | { type: 'alive'; steps: number; busy: boolean }
  | { type: 'closed' };

export interface EngineStats {
  running: number;
  waiting: number;
  /** KV cells running sequences hold. */
  kvCellsUsed: number;
  /** KV cells only the prefix cache holds (given up whenever running sequences need room). */
  kvCellsCached: number;
  /** Finished sequences kept for the prefix cache. */
  cachedSequences: number;
  /** Sequences that could still start (max_num_sequence less those running). */
  freeSlots: number;
  steps: number;
  /** Requests sent back to the queue to make room in the KV cache (they recompute on resumption). */
  preemptions: number;
  /** Tokens computed again after those preemptions (what a resumed request took back from the prefix cache is not counted). */
  recomputedTokens: number;
  /** Speculative decoding: draft tokens proposed, and of those, accepted by the target. */
  draftTokens: number;
  acceptedDraftTokens: number;
  /** Bytes of compiled grammars (and their token masks) kept for later requests (admission.ts). */
  grammarCacheBytes: number;
  /** Bytes of the vocabulary's caches for building masks (token sets by byte set, whitespace run tables). */
  vocabularyCacheBytes: number;
  /**
   * By draft position (0: the first token after the sequence's last): how many verifications
   * proposed a token there, and how many accepted it (with Medusa, position k is head k's).
   */
  draftPositions: { proposed: number[]; accepted: number[] };
  /** Decode steps' phase timings by width, when the engine was created with profileSteps. */
  stepProfile?: StepProfileTotals;
  /** Every step's count and wall time by width, mixed ones (prompt tokens, drafts) too, when created with profileSteps. */
  allSteps?: StepWallTotals;
  /**
   * Sampling on the device: steps that re-planned llama.cpp's graph because a sampler chain was
   * attached to or taken from a sequence id (device-sampling.ts keeps them attached, and leaves
   * idle copies, for the next alike).
   */
  samplerReplans?: number;
}
