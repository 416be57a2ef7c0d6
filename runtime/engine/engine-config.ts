// Engine limits: a mode preset (spec, Limits) plus `--overrides`, checked key by key, and a
// KV cache that fits in memory. Pure: the model and device facts come in as plain numbers.
import {
  cellsThatFit,
  fixedBytes,
  gib,
  logitRows,
  memoryBudget,
  MIN_KV_CELLS,
  requiredBytes,
  ubatchFor,
  type MemoryFacts,
  type ModelShape,
} from './memory-budget.js';
import { UserFacingError } from '../../compiler/lmforge-error.js';

export const ENGINE_MODES = ['local', 'interactive', 'server'] as const;
export type EngineMode = (typeof ENGINE_MODES)[number];

/** The one check of a mode, whoever gives it: a flag, a library option, a preset loop. */
export function isEngineMode(value: unknown): value is EngineMode {
  return (ENGINE_MODES as readonly unknown[]).includes(value);
}

/**
 * How KV cells are laid out (llama.cpp's kv_unified). `shared`: one pool for every sequence,
 * where sequences share cells (a cached prefix, the n choices of a request) and
 * max_total_seq_length is a budget they draw on together. `per-sequence`: each sequence id
 * has a stream of cells of its own, and a shared prefix is copied into it. On a CPU a step's
 * attention passes over every cell of the pool, so the shared pool makes every stream pay for
 * every other sequence's context (bench/kv-streams.ts): per-sequence streams decode 1.4-1.6×
 * faster at 8-16 streams, at the cost of memory for a full stream per sequence id.
 */
export const KV_LAYOUTS = ['shared', 'per-sequence'] as const;
export type KvLayout = (typeof KV_LAYOUTS)[number];

export interface EngineConfig {
  mode: EngineMode;
  /** Most sequences decoded together (each choice of a request is one sequence). */
  maxNumSequence: number;
  /** KV cells in all: prompt plus generated tokens of everything running (and cached). */
  maxTotalSeqLength: number;
  /** Where those cells live: one pool, or a stream for each sequence id. */
  kvLayout: KvLayout;
  /** Per-sequence layout: the cells of each sequence id's stream; 0 in the shared pool. */
  streamCells: number;
  /** Most prompt tokens computed in one step. */
  prefillChunkSize: number;
  /** Longest sequence (prompt plus output) one request may have. */
  contextWindowSize: number;
  /** Sliding-window size of the model's attention, 0 when it has none. */
  slidingWindowSize: number;
  /** Finished sequences kept only for their KV cells, for prompts that start the same (0: no prefix cache). */
  prefixCacheRecyclingSeqs: number;
  /** Draft tokens one step may verify across all sequences (0: speculative decoding is off). */
  maxDraftTokens: number;
  /** Prompt tokens one step may score across all requests (echo with logprobs), each a logit row beyond the sequences' and drafts'. */
  scoredRowsPerStep: number;
  tensorParallelShards: number;
  gpuMemoryUtilization: number;
  /** Requests waiting beyond this many are refused as overload. */
  maxQueuedRequests: number;
  /** How big the KV cache is and why, for the start-up log. */
  memoryNote: string;
}

/** A configuration the caller gave that cannot run: theirs to fix (400, as a GrammarError), not a server error. */
export class ConfigError extends UserFacingError {
  override name = 'ConfigError';
  constructor(message: string) {
    super(message, { status: 400 });
  }
}

/** What the config is computed from: the model and the memory of the chosen devices. */
export interface ModelFacts extends ModelShape {
  contextLength: number;
  slidingWindow: number;
  /** Memory of the chosen GPUs, or of the host for the CPU. */
  memory: MemoryFacts;
  /** llama.cpp's hard limit on sequences per context. */
  maxParallelSequences: number;
}

type OverrideKey =
  | 'tensor_parallel_shards'
  | 'max_num_sequence'
  | 'max_total_seq_length'
  | 'prefill_chunk_size'
  | 'max_history_size'
  | 'gpu_memory_utilization'
  | 'spec_draft_length'
  | 'prefix_cache_max_num_recycling_seqs'
  | 'context_window_size'
  | 'sliding_window_size'
  | 'attention_sink_size';

interface KeyRule {
  kind: 'int' | 'fraction';
  min: number;
  /** Why a value other than the no-op one cannot be honoured yet; absent when it is honoured. */
  notYet?: { noop: number; why: string };
}

const RULES: Record<OverrideKey, KeyRule> = {
  tensor_parallel_shards: { kind: 'int', min: 1 },
  max_num_sequence: { kind: 'int', min: 1 },
  max_total_seq_length: { kind: 'int', min: 16 },
  prefill_chunk_size: { kind: 'int', min: 1 },
  context_window_size: { kind: 'int', min: 16 },
  gpu_memory_utilization: { kind: 'fraction', min: 0 },
  sliding_window_size: { kind: 'int', min: -1, notYet: { noop: -1, why: 'the sliding window is fixed by the model file in the llama.cpp backend' } },
  attention_sink_size: { kind: 'int', min: 0, notYet: { noop: 0, why: 'attention sinks are not available in the llama.cpp backend' } },
  max_history_size: { kind: 'int', min: 0, notYet: { noop: 0, why: 'history rollback for recurrent models is not implemented yet' } },
  spec_draft_length: { kind: 'int', min: 0 },
  prefix_cache_max_num_recycling_seqs: { kind: 'int', min: 0 },
};

export type Overrides = Partial<Record<OverrideKey, number>>;

/** Parses `key=value;key=value`. Every key must be one the spec lists, every value in range. */
export function parseOverrides(text: string | undefined): Overrides {
  const overrides: Overrides = {};
  if (!text) return overrides;
  for (const part of text.split(';')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    const key = (eq < 0 ? part : part.slice(0, eq)).trim();
    const raw = eq < 0 ? '' : part.slice(eq + 1).trim();
    if (!Object.hasOwn(RULES, key)) {
      throw new ConfigError(`--overrides: unknown key '${key}'; allowed keys: ${Object.keys(RULES).join(', ')}`);
    }
    const rule = RULES[key as OverrideKey];
    if (eq < 0 || raw === '') throw new ConfigError(`--overrides: ${key} needs a value (${key}=VALUE)`);
    if (key in overrides) throw new ConfigError(`--overrides: ${key} is given twice`);
    // `a=1,b=2`: the second pair read as the first's value; say which separator the spec uses.
    if (/,\s*[a-z_]+\s*=/.test(raw)) throw new ConfigError(`--overrides: ${key}=${raw} is not valid: separate pairs with ';', not ',' (${part.trim().replace(/,\s*(?=[a-z_]+\s*=)/g, ';')})`);
    overrides[key as OverrideKey] = overrideValue(key as OverrideKey, raw, `--overrides: ${key}=${raw}`);
  }
  return overrides;
}

/** An object literal's kind of object: a Map's or a class's entries are not its own keys, and would be dropped unseen. */
export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && [Object.prototype, null].includes(Object.getPrototypeOf(value));

/**
 * Overrides given as an object (the library's `overrides`), checked as `--overrides` text is:
 * every key one the spec lists, every value a number in range. `name` says where they came from.
 */

export function checkOverrides(overrides: unknown, name: string): Overrides {
  if (!isPlainObject(overrides)) throw new ConfigError(`${name} must be a plain object of engine fields, for example { max_num_sequence: 8 }`);
  for (const [key, value] of Object.entries(overrides)) {
    if (!Object.hasOwn(RULES, key)) throw new ConfigError(`${name}: unknown key '${key}'; allowed keys: ${Object.keys(RULES).join(', ')}`);
    if (typeof value !== 'number') throw new ConfigError(`${name}.${key} must be a number, got ${JSON.stringify(value) ?? String(value)}`);
    overrideValue(key as OverrideKey, String(value), `${name}.${key}=${value}`);
  }
  return overrides as Overrides;
}

/** A key's value checked against its rule; errors begin with `given`, the value as the user wrote it. */
export function overrideValue(key: OverrideKey, raw: string, given: string): number {
  const rule = RULES[key];
  const value = Number(raw);
  if (rule.kind === 'int') {
    if (!/^-?\d+$/.test(raw) || !Number.isSafeInteger(value) || value < rule.min) {
      throw new ConfigError(`${given} is not valid: it must be an integer ≥ ${rule.min}`);
    }
  } else if (!Number.isFinite(value) || value <= 0 || value > 1) {
    throw new ConfigError(`${given} is not valid: it must be a number in (0, 1]`);
  }
  if (rule.notYet && value !== rule.notYet.noop) throw new ConfigError(`${given} cannot be honoured: ${rule.notYet.why}`);
  return value;
}

export function parseKvLayout(text: string): KvLayout {
  if (!(KV_LAYOUTS as readonly string[]).includes(text)) {
    throw new ConfigError(`--kv-layout '${text}' is not valid: use one of ${KV_LAYOUTS.join(', ')}`);
  }
  return text as KvLayout;
}

export function parseMode(text: string): EngineMode {
  if (!isEngineMode(text)) throw new ConfigError(`--mode '${text}' is not valid: use one of ${ENGINE_MODES.join(', ')}`);
  return text;
}

const DEFAULT_UTILIZATION = 0.85;
/** Prompt tokens `server` computes per step unless told otherwise. */
const SERVER_PREFILL_CHUNK = 2048;

/**
 * Draft tokens a step may verify when speculation is on: each needs a logit row, and llama.cpp
 * reserves every row a step may ask for (vocabulary × 4 bytes each, twice), so they are capped
 * for the whole step rather than per sequence.
 */
const DRAFT_TOKENS_PER_STEP = 64;

/**
 * Most bytes of logit rows one step computes for prompts being scored (GenerateRequest.promptLogprobs).
 * The context is made with room for them (llama.cpp aborts a decode with more outputs than it was
 * made for), and that room is paid for always: llama.cpp's graph reserves a vocabulary's floats
 * for each output row of a micro-batch, and its output buffer holds them. 16 MiB: 85 rows of
 * SmolLM2's 49,152 floats, 16 of Gemma 3's 262,144. On a CPU a prompt token costs about the same
 * in a step of a few dozen tokens as in a larger one (scheduler.ts promptStepFloor).
 */
const SCORED_LOGITS_BYTES = 16 * 2 ** 20;

/** Prompt tokens a step may score for a vocabulary of `vocabSize` tokens: SCORED_LOGITS_BYTES of rows, at least 16. */
export function scoredRows(vocabSize: number): number {
  return Math.max(16, Math.floor(SCORED_LOGITS_BYTES / (vocabSize * 4)));
}

/** Longest a sequence may grow, prompt and output together: the context window, within the shared KV budget. */
export function lengthLimitOf(config: Pick<EngineConfig, 'contextWindowSize' | 'maxTotalSeqLength'>): number {
  return Math.min(config.contextWindowSize, config.maxTotalSeqLength);
}

/**
 * The preset for the mode, then every explicit override on top; impossible combinations are
 * errors. `speculative`: drafts are verified, which takes logit rows beyond one per sequence.
 */
export function computeEngineConfig(mode: EngineMode, overrides: Overrides, facts: ModelFacts, speculative = false, kvLayout: KvLayout = 'shared'): EngineConfig {
  const contextWindowSize = overrides.context_window_size ?? facts.contextLength;
  if (contextWindowSize > facts.contextLength) {
    throw new ConfigError(`--overrides: context_window_size=${contextWindowSize} is larger than the model's context of ${facts.contextLength} tokens`);
  }
  const server = mode === 'server';
  // The spec: "an explicit override replaces the inferred value", interactive's one sequence too.
  const maxNumSequence = overrides.max_num_sequence ?? (server ? Math.min(facts.maxParallelSequences, 128) : mode === 'local' ? 4 : 1);
  if (maxNumSequence > facts.maxParallelSequences) {
    throw new ConfigError(`--overrides: max_num_sequence=${maxNumSequence} exceeds llama.cpp's limit of ${facts.maxParallelSequences} sequences`);
  }
  const prefixCacheRecyclingSeqs = recyclingSeqs(overrides, facts, maxNumSequence);
  const maxDraftTokens = speculative ? DRAFT_TOKENS_PER_STEP : 0;
  const scoredRowsPerStep = scoredRows(facts.vocabSize);
  const rows = logitRows(maxNumSequence + maxDraftTokens + scoredRowsPerStep, maxNumSequence + prefixCacheRecyclingSeqs);
  const sequenceIds = kvLayout === 'per-sequence' ? maxNumSequence + prefixCacheRecyclingSeqs : 0;
  const kv = planKvCache(mode, overrides, facts, contextWindowSize, maxNumSequence, rows, sequenceIds);
  const maxTotalSeqLength = kv.cells;
  // A chunk of prompt is computed into KV cells: no more than the cache holds. An explicit value
  // beyond it is refused rather than quietly lowered (an override replaces, it is not a hint).
  if (overrides.prefill_chunk_size !== undefined && overrides.prefill_chunk_size > maxTotalSeqLength) {
    throw new ConfigError(
      // Named by its key: it may have come from --overrides or from the older --prefill-chunk-size.
      `prefill_chunk_size=${overrides.prefill_chunk_size} exceeds max_total_seq_length=${maxTotalSeqLength}, the KV cells a chunk is computed into; give at most ${maxTotalSeqLength}`,
    );
  }
  const prefillChunkSize = Math.min(overrides.prefill_chunk_size ?? (server ? SERVER_PREFILL_CHUNK : contextWindowSize), maxTotalSeqLength);
  // A context window beyond the cells one sequence can hold is lowered to them, an explicit one
  // too (the engine: line says so): tests and benchmarks pair a long window with a tight pool
  // to make sequences compete for cells, and what one sequence can use is the pool either way.
  return {
    mode,
    maxNumSequence,
    maxTotalSeqLength,
    kvLayout,
    streamCells: kv.streamCells,
    prefillChunkSize,
    contextWindowSize: Math.min(contextWindowSize, kv.streamCells || maxTotalSeqLength),
    slidingWindowSize: facts.slidingWindow,
    prefixCacheRecyclingSeqs,
    maxDraftTokens,
    scoredRowsPerStep,
    tensorParallelShards: overrides.tensor_parallel_shards ?? 1,
    gpuMemoryUtilization: overrides.gpu_memory_utilization ?? DEFAULT_UTILIZATION,
    maxQueuedRequests: 1024,
    memoryNote: kv.note,
  };
}

/** Finished sequences kept for the prefix cache by default (their cells count in the KV budget and are evicted first). */
const DEFAULT_RECYCLING_SEQS = 16;

/**
 * Sequence ids kept only for the prefix cache: each holds one finished request's cells until
 * the KV budget needs them. Ids cost nearly nothing; cells are bounded by the KV budget anyway.
 */
function recyclingSeqs(overrides: Overrides, facts: ModelFacts, maxNumSequence: number): number {
  const room = facts.maxParallelSequences - maxNumSequence;
  const asked = overrides.prefix_cache_max_num_recycling_seqs;
  if (asked === undefined) return Math.min(Math.max(DEFAULT_RECYCLING_SEQS, maxNumSequence), room);
  if (asked > room) {
    throw new ConfigError(
      `--overrides: prefix_cache_max_num_recycling_seqs=${asked} with max_num_sequence=${maxNumSequence} exceeds llama.cpp's limit of ${facts.maxParallelSequences} sequences (at most ${room})`,
    );
  }
  return asked;
}

interface KvPlan {
  cells: number;
  /** Cells of each sequence id's stream (per-sequence layout), else 0. */
  streamCells: number;
  note: string;
}

/**
 * The per-sequence layout: `plan`'s cells split into a stream for each of `sequenceIds`,
 * whole blocks each (llama.cpp gives each stream n_ctx / n_seq_max cells).
 */
function splitIntoStreams(plan: KvPlan, sequenceIds: number, facts: ModelFacts): KvPlan {
  const streamCells = Math.floor(plan.cells / sequenceIds / MIN_KV_CELLS) * MIN_KV_CELLS;
  if (streamCells < MIN_KV_CELLS) {
    throw new ConfigError(
      `--kv-layout per-sequence: ${plan.cells} KV cells cannot give each of ${sequenceIds} sequence ids (max_num_sequence + prefix_cache_max_num_recycling_seqs) ` +
        `a stream of ${MIN_KV_CELLS} cells; lower those, raise max_total_seq_length, or use --kv-layout shared`,
    );
  }
  const cells = streamCells * sequenceIds;
  return {
    cells,
    streamCells,
    note: `${plan.note}; per-sequence layout: ${sequenceIds} streams of ${streamCells} cells (${gib(cells * facts.kvBytesPerToken)})`,
  };
}

/**
 * KV cells for the mode, checked against memory (memory-budget.ts). `server` takes what its
 * budget holds, up to max_num_sequence × context_window_size; `local` and `interactive` take
 * the context window, or less when that does not fit; an explicit max_total_seq_length is
 * taken as given when the memory available holds it. In the per-sequence layout
 * (`sequenceIds` > 0) every mode asks for a context window for each sequence id, and the
 * cells are split into their streams. Throws when not even the smallest cache fits beside
 * the weights.
 */
function planKvCache(mode: EngineMode, overrides: Overrides, facts: ModelFacts, contextWindowSize: number, sequences: number, rows: number, sequenceIds: number): KvPlan {
  const plan = planPool(mode, overrides, facts, contextWindowSize, sequences, rows, sequenceIds);
  return sequenceIds > 0 ? splitIntoStreams(plan, sequenceIds, facts) : plan;
}

function planPool(mode: EngineMode, overrides: Overrides, facts: ModelFacts, contextWindowSize: number, sequences: number, rows: number, sequenceIds: number): KvPlan {
  const server = mode === 'server';
  const explicit = overrides.max_total_seq_length;
  const cap = sequenceIds > 0 ? sequenceIds * contextWindowSize : server ? sequences * contextWindowSize : contextWindowSize;
  const wanted = explicit ?? cap;
  const prefill = overrides.prefill_chunk_size ?? (server ? SERVER_PREFILL_CHUNK : contextWindowSize);
  const ubatch = ubatchFor(Math.min(prefill, wanted) + sequences);
  // An explicit size may go beyond the server share, up to what is available now.
  const budget = memoryBudget(facts.memory, server && explicit === undefined, overrides.gpu_memory_utilization, DEFAULT_UTILIZATION);
  const fit = cellsThatFit(budget.bytes, facts, facts.memory, rows, ubatch);
  const most = cellsThatFit(budget.bytes, facts, facts.memory, rows, ubatch, 1);
  const smallest = Math.min(MIN_KV_CELLS, wanted);
  const fixed = fixedBytes(facts, facts.memory, rows, ubatch);
  const afterFixed = `after ${gib(facts.modelBytes)} weights and ${gib(fixed - facts.modelBytes)} buffers and runtime`;
  if (most < smallest) {
    const needed = requiredBytes(smallest, facts, facts.memory, rows, ubatch);
    const hint = server || facts.memory.onDevice ? '; --overrides gpu_memory_utilization=F changes the share' : '';
    throw new ConfigError(
      `not enough memory for this model: ${gib(facts.modelBytes)} weights + ${gib(fixed - facts.modelBytes)} buffers and runtime + the smallest KV cache ` +
        `(${smallest} cells, ${gib(smallest * facts.kvBytesPerToken)}) need ${gib(needed)}, but the budget is ${gib(Math.max(0, budget.bytes))} (${budget.why})${hint}`,
    );
  }
  const describe = (cells: number) => `kv cache: ${cells} cells (${gib(cells * facts.kvBytesPerToken)})`;
  const windows = sequenceIds > 0 ? `a ${contextWindowSize}-token context window for each of ${sequenceIds} sequence ids` : `the ${cap}-token context window`;
  if (explicit !== undefined) {
    if (explicit > most) {
      throw new ConfigError(
        `--overrides: max_total_seq_length=${explicit} does not fit in memory: at most ${most} cells fit in ${gib(budget.bytes)} (${budget.why}) ${afterFixed}`,
      );
    }
    return { cells: explicit, streamCells: 0, note: `${describe(explicit)} as max_total_seq_length asks; ${gib(requiredBytes(explicit, facts, facts.memory, rows, ubatch))} of ${gib(budget.bytes)} (${budget.why})` };
  }
  if (server) {
    const cells = Math.min(fit, cap);
    const capped = fit < cap ? '' : sequenceIds > 0 ? `, capped by ${windows}` : `, capped by max_num_sequence×context_window_size = ${sequences}×${contextWindowSize}`;
    return { cells, streamCells: 0, note: `${describe(cells)} = ${budget.why} ${afterFixed}${capped}` };
  }
  if (fit < cap) {
    return { cells: fit, streamCells: 0, note: `${describe(fit)}, less than ${windows}: what fits in ${gib(budget.bytes)} (${budget.why}) ${afterFixed}` };
  }
  return { cells: cap, streamCells: 0, note: `${describe(cap)} for ${windows}; ${gib(requiredBytes(cap, facts, facts.memory, rows, ubatch))} of ${gib(budget.bytes)} (${budget.why})` };
}

export function describeEngineConfig(config: EngineConfig): string {
  return (
    `mode=${config.mode} max_num_sequence=${config.maxNumSequence} max_total_seq_length=${config.maxTotalSeqLength} ` +
    `prefill_chunk_size=${config.prefillChunkSize} context_window_size=${config.contextWindowSize} ` +
    `prefix_cache_max_num_recycling_seqs=${config.prefixCacheRecyclingSeqs}` +
    (config.kvLayout === 'per-sequence' ? ` kv_layout=per-sequence stream_cells=${config.streamCells}` : '') +
    (config.maxDraftTokens > 0 ? ` draft_tokens_per_step=${config.maxDraftTokens}` : '') +
    (config.slidingWindowSize > 0 ? ` sliding_window_size=${config.slidingWindowSize}` : '') +
    (config.tensorParallelShards > 1 ? ` tensor_parallel_shards=${config.tensorParallelShards}` : '')
  );
}
