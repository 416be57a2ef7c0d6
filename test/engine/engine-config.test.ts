// Mode presets and --overrides: every key the spec lists, each checked, with messages naming it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { throwsError } from '../helpers/throws.js';
import { computeEngineConfig, ConfigError, parseMode, parseOverrides, scoredRows, type ModelFacts } from '../../runtime/engine/engine-config.js';

const test = suite('engine config');

const GiB = 2 ** 30;
const MiB = 2 ** 20;

// SmolLM2-135M (Q4_1) on a 24 GiB machine with 20 GiB available.
const facts: ModelFacts = {
  contextLength: 8192,
  slidingWindow: 0,
  kvBytesPerToken: 23040,
  modelBytes: 92 * MiB,
  vocabSize: 49152,
  embeddingLength: 576,
  memory: { onDevice: false, totalBytes: 24 * GiB, availableBytes: 20 * GiB, source: 'RAM' },
  maxParallelSequences: 256,
};
const onGpu = (freeBytes: number): ModelFacts => ({ ...facts, memory: { onDevice: true, totalBytes: 80 * GiB, availableBytes: freeBytes, source: 'cuda:0' } });
const onHost = (totalBytes: number, availableBytes = totalBytes, source = 'RAM'): ModelFacts => ({ ...facts, memory: { onDevice: false, totalBytes, availableBytes, source } });

/** Prompt tokens a step scores (echo with logprobs): 16 MiB of rows of 49,152 floats. */
const SCORED_ROWS = 85;

/**
 * Logit rows llama.cpp reserves for `sequences` running sequences with the default prefix-cache
 * ids (max(16, sequences) more), `drafts` draft rows and SCORED_ROWS a step: the output buffer
 * and its twin in the compute buffer each have a row per sequence id or output, whichever is more.
 */
function logitRowsFor(sequences: number, drafts = 0): number {
  return 2 * Math.max(sequences + drafts + SCORED_ROWS, sequences + Math.max(16, sequences));
}

/**
 * The sizing rule written out once more, independently of memory-budget.ts: cells fit in the
 * budget beside weights, activations (n_ubatch × n_embd × 48 B), logits (logitRowsFor ×
 * vocab × 4 B) and the runtime (320 MiB on the host, 512 MiB on a GPU); each cell costs its
 * K and V (23040 B) and its f16 mask column (n_ubatch × 2 B); whole blocks of 256 cells.
 */
function expectedCells(budget: number, sequences: number, runtime: number, drafts = 0, ubatch = 512): number {
  const fixed = facts.modelBytes + ubatch * 576 * 48 + logitRowsFor(sequences, drafts) * 49152 * 4 + runtime;
  return Math.floor(Math.floor((budget - fixed) / (23040 + ubatch * 2)) / 256) * 256;
}

const throwsConfig = (run: () => unknown, pattern: RegExp) => throwsError(run, ConfigError, pattern);

test('local and interactive presets follow the spec', () => {
  const local = computeEngineConfig('local', {}, facts);
  assert.equal([local.maxNumSequence, local.maxTotalSeqLength, local.prefillChunkSize], [4, 8192, 8192]);
  const interactive = computeEngineConfig('interactive', {}, facts);
  assert.equal([interactive.maxNumSequence, interactive.maxTotalSeqLength, interactive.prefillChunkSize], [1, 8192, 8192]);
});

test('the per-sequence KV layout gives each sequence id a stream of its own, a context window where memory allows', () => {
  // local: 4 running + 16 recycling ids, each a stream of the 8,192-token window (3.5 GiB).
  const local = computeEngineConfig('local', {}, facts, false, 'per-sequence');
  assert.equal([local.kvLayout, local.streamCells, local.maxTotalSeqLength, local.contextWindowSize], ['per-sequence', 8192, 20 * 8192, 8192]);
  assert.match(local.memoryNote, /20 streams of 8192 cells/);
  assert.equal([computeEngineConfig('local', {}, facts).kvLayout, computeEngineConfig('local', {}, facts).streamCells], ['shared', 0]);
  // An explicit total is split between the ids, in whole blocks; a request's window shrinks to its stream.
  const split = computeEngineConfig('local', { max_total_seq_length: 40_000, prefix_cache_max_num_recycling_seqs: 4 }, facts, false, 'per-sequence');
  assert.equal([split.streamCells, split.maxTotalSeqLength, split.contextWindowSize], [4864, 8 * 4864, 4864]);
  // Where memory holds less than a window for each id, each gets what fits.
  const small = computeEngineConfig('local', {}, onHost(4 * GiB), false, 'per-sequence');
  assert.is(small.streamCells, Math.floor(expectedCells(4 * GiB * 0.9, 4, 320 * MiB) / 20 / 256) * 256);
  assert.is(small.contextWindowSize, small.streamCells);
  throwsConfig(
    () => computeEngineConfig('local', { max_total_seq_length: 4096 }, facts, false, 'per-sequence'),
    /--kv-layout per-sequence: 4096 KV cells cannot give each of 20 sequence ids .* a stream of 256 cells/,
  );
});

test('server mode on a GPU sizes the KV cache from its free memory and gpu_memory_utilization', () => {
  const server = computeEngineConfig('server', {}, onGpu(8 * GiB));
  assert.is(server.maxNumSequence, 128);
  assert.is(server.maxTotalSeqLength, expectedCells(8 * GiB * 0.85, 128, 512 * MiB));
  assert.ok(server.maxTotalSeqLength > 8192 * 4, 'server mode holds more than local mode');
  const half = computeEngineConfig('server', { gpu_memory_utilization: 0.5 }, onGpu(8 * GiB));
  assert.is(half.maxTotalSeqLength, expectedCells(4 * GiB, 128, 512 * MiB));
  assert.match(server.memoryNote, /^kv cache: \d+ cells \([\d.]+ GiB\) = 85% of 8\.0 GiB free on cuda:0 after 92 MiB weights/);
});

test('server mode on the CPU takes 40% of all memory, not everything ggml calls free', () => {
  const server = computeEngineConfig('server', {}, facts);
  // 40% of 24 GiB = 9.6 GiB for weights, buffers and KV: some 420k cells, not 0.85 × 24 GiB.
  assert.is(server.maxTotalSeqLength, expectedCells(0.4 * 24 * GiB, 128, 320 * MiB));
  assert.ok(server.maxTotalSeqLength * facts.kvBytesPerToken < 0.4 * 24 * GiB);
  assert.match(server.memoryNote, /^kv cache: \d+ cells \(\d+\.\d GiB\) = 40% of 24\.0 GiB total RAM after 92 MiB weights and \d+ MiB buffers and runtime$/);
  // An explicit gpu_memory_utilization sets the share on the CPU as well.
  const quarter = computeEngineConfig('server', { gpu_memory_utilization: 0.25 }, facts);
  assert.is(quarter.maxTotalSeqLength, expectedCells(0.25 * 24 * GiB, 128, 320 * MiB));
});

test('server mode on the CPU keeps 10% of memory free beyond what is in use, and a cgroup limit counts as all memory', () => {
  // 24 GiB total but 4 GiB available: 4 − 2.4 = 1.6 GiB, less than the 9.6 GiB share.
  const busy = computeEngineConfig('server', {}, onHost(24 * GiB, 4 * GiB));
  assert.is(busy.maxTotalSeqLength, expectedCells(1.6 * GiB, 128, 320 * MiB));
  assert.match(busy.memoryNote, /4\.0 GiB available RAM less 10% of 24\.0 GiB kept free/);
  const limited = computeEngineConfig('server', {}, onHost(2 * GiB, 2 * GiB, 'cgroup memory.max'));
  assert.is(limited.maxTotalSeqLength, expectedCells(0.4 * 2 * GiB, 128, 320 * MiB));
  assert.match(limited.memoryNote, /40% of 2\.0 GiB total \(cgroup memory\.max\)/);
});

test('server mode stops at max_num_sequence × context window when memory holds more', () => {
  const big = computeEngineConfig('server', {}, onHost(1024 * GiB));
  assert.is(big.maxTotalSeqLength, 128 * 8192);
  assert.match(big.memoryNote, /capped by max_num_sequence×context_window_size = 128×8192$/);
  const few = computeEngineConfig('server', { max_num_sequence: 2, context_window_size: 1024 }, facts);
  assert.is(few.maxTotalSeqLength, 2048);
});

test('a model that does not fit beside the smallest KV cache is refused in every mode, with one line', () => {
  // 512 MiB total: 40% is 205 MiB, less than 92 MiB of weights plus 320 MiB of runtime.
  throwsConfig(() => computeEngineConfig('server', {}, onHost(512 * MiB)), /^not enough memory for this model: 92 MiB weights \+ \d+ MiB buffers and runtime \+ the smallest KV cache \(256 cells, 6 MiB\) need \d+ MiB, but the budget is 205 MiB \(40% of 512 MiB total RAM\); --overrides gpu_memory_utilization=F changes the share$/);
  throwsConfig(() => computeEngineConfig('local', {}, onHost(400 * MiB)), /^not enough memory for this model: .* but the budget is 360 MiB \(400 MiB available RAM less 10% of 400 MiB kept free\)$/);
  throwsConfig(() => computeEngineConfig('interactive', {}, onHost(24 * GiB, 300 * MiB)), /^not enough memory for this model/);
  throwsConfig(() => computeEngineConfig('server', {}, onGpu(256 * MiB)), /^not enough memory for this model: .*85% of 256 MiB free on cuda:0/);
});

test('local and interactive take the context window when it fits, and what fits when it does not', () => {
  const local = computeEngineConfig('local', {}, facts);
  assert.is(local.maxTotalSeqLength, 8192);
  assert.match(local.memoryNote, /^kv cache: 8192 cells \(180 MiB\) for the 8192-token context window; \d+ MiB of 17\.6 GiB \(20\.0 GiB available RAM less 10% of 24\.0 GiB kept free\)$/);
  // 1 GiB available: 1 − 0.1 = 0.9 GiB, of which 92 MiB weights and ~357 MiB fixed; ~19k cells fit.
  const tight = computeEngineConfig('local', {}, { ...onHost(1 * GiB), contextLength: 131072 });
  assert.is(tight.maxTotalSeqLength, expectedCells(0.9 * GiB, 4, 320 * MiB));
  assert.ok(tight.maxTotalSeqLength < 131072);
  assert.is(tight.contextWindowSize, tight.maxTotalSeqLength);
  assert.match(tight.memoryNote, /less than the 131072-token context window: what fits in 922 MiB/);
  const interactive = computeEngineConfig('interactive', {}, { ...onHost(1 * GiB), contextLength: 131072 });
  assert.is(interactive.maxTotalSeqLength, expectedCells(0.9 * GiB, 1, 320 * MiB));
});

test('an explicit max_total_seq_length is taken as given when available memory holds it, refused when not', () => {
  // Beyond the 40% server share, within what is available: the user asked for it.
  const asked = computeEngineConfig('server', { max_total_seq_length: 500_000 }, facts);
  assert.is(asked.maxTotalSeqLength, 500_000);
  assert.match(asked.memoryNote, /^kv cache: 500000 cells \(10\.7 GiB\) as max_total_seq_length asks/);
  throwsConfig(() => computeEngineConfig('server', { max_total_seq_length: 900_000 }, facts), /^--overrides: max_total_seq_length=900000 does not fit in memory: at most \d+ cells fit in 17\.6 GiB/);
  throwsConfig(() => computeEngineConfig('local', { max_total_seq_length: 8192 }, onHost(4 * GiB, 1 * GiB)), /max_total_seq_length=8192 does not fit in memory/);
  // The bound is exact for an explicit size, not rounded to whole blocks: 1 − 0.4 GiB less the fixed costs.
  const most = Math.floor((0.6 * GiB - (92 * MiB + 512 * 576 * 48 + logitRowsFor(4) * 49152 * 4 + 320 * MiB)) / (23040 + 1024));
  assert.ok(most % 256 !== 0);
  assert.is(computeEngineConfig('local', { max_total_seq_length: most }, onHost(4 * GiB, 1 * GiB)).maxTotalSeqLength, most);
  throwsConfig(() => computeEngineConfig('local', { max_total_seq_length: most + 1 }, onHost(4 * GiB, 1 * GiB)), new RegExp(`at most ${most} cells fit`));
});

test('speculative decoding reserves logit rows for the drafts a step verifies, and the KV cache gives way', () => {
  const tight = { ...onHost(1 * GiB), contextLength: 131072 };
  const plain = computeEngineConfig('local', {}, tight);
  const speculative = computeEngineConfig('local', {}, tight, true);
  assert.is(plain.maxDraftTokens, 0);
  assert.is(speculative.maxDraftTokens, 64);
  assert.is(speculative.maxTotalSeqLength, expectedCells(0.9 * GiB, 4, 320 * MiB, 64));
  assert.ok(speculative.maxTotalSeqLength < plain.maxTotalSeqLength);
});

test('a step scores 16 MiB of prompt rows (at least 16), and the context reserves them beside the sequences and drafts', () => {
  assert.equal([scoredRows(49152), scoredRows(262144), scoredRows(2_000_000)], [SCORED_ROWS, 16, 16]);
  assert.is(computeEngineConfig('local', {}, facts).scoredRowsPerStep, SCORED_ROWS);
  assert.is(computeEngineConfig('local', {}, { ...facts, vocabSize: 262144 }).scoredRowsPerStep, 16);
});

test('explicit overrides replace the preset values', () => {
  const config = computeEngineConfig('local', parseOverrides('max_num_sequence=8;max_total_seq_length=4096;prefill_chunk_size=256;context_window_size=2048'), facts);
  assert.equal([config.maxNumSequence, config.maxTotalSeqLength, config.prefillChunkSize, config.contextWindowSize], [8, 4096, 256, 2048]);
  assert.is(computeEngineConfig('local', parseOverrides('tensor_parallel_shards=2'), facts).tensorParallelShards, 2);
});

test('unknown keys, bad values and impossible combinations name the key', () => {
  throwsConfig(() => parseOverrides('max_batch=4'), /unknown key 'max_batch'.*allowed keys: tensor_parallel_shards/);
  throwsConfig(() => parseOverrides('max_num_sequence=0'), /max_num_sequence=0 is not valid: it must be an integer ≥ 1/);
  throwsConfig(() => parseOverrides('max_num_sequence=2.5'), /max_num_sequence=2\.5 is not valid/);
  throwsConfig(() => parseOverrides('prefill_chunk_size=abc'), /prefill_chunk_size=abc is not valid/);
  throwsConfig(() => parseOverrides('gpu_memory_utilization=1.5'), /gpu_memory_utilization=1\.5 is not valid: it must be a number in \(0, 1\]/);
  throwsConfig(() => parseOverrides('max_num_sequence'), /max_num_sequence needs a value/);
  throwsConfig(() => parseOverrides('max_num_sequence=2;max_num_sequence=3'), /max_num_sequence is given twice/);
  throwsConfig(() => parseOverrides('max_num_sequence=8,prefill_chunk_size=512'), /separate pairs with ';', not ',' \(max_num_sequence=8;prefill_chunk_size=512\)/);
  // An explicit chunk beyond the KV cache is refused, not quietly lowered; the preset's is lowered to fit.
  throwsConfig(
    () => computeEngineConfig('local', parseOverrides('max_total_seq_length=1000;prefill_chunk_size=4000'), facts),
    /prefill_chunk_size=4000 exceeds max_total_seq_length=1000, the KV cells a chunk is computed into; give at most 1000/,
  );
  assert.is(computeEngineConfig('local', parseOverrides('max_total_seq_length=1000'), facts).prefillChunkSize, 1000);
  assert.is(parseOverrides('spec_draft_length=4').spec_draft_length, 4);
  throwsConfig(() => parseOverrides('prefix_cache_max_num_recycling_seqs=-1'), /prefix_cache_max_num_recycling_seqs=-1 is not valid/);
  throwsConfig(
    () => computeEngineConfig('local', parseOverrides('max_num_sequence=200;prefix_cache_max_num_recycling_seqs=100'), facts),
    /prefix_cache_max_num_recycling_seqs=100 with max_num_sequence=200 exceeds llama\.cpp's limit of 256 sequences \(at most 56\)/,
  );
  throwsConfig(() => parseOverrides('attention_sink_size=4'), /attention_sink_size=4 cannot be honoured/);
  throwsConfig(() => computeEngineConfig('local', parseOverrides('context_window_size=9000'), facts), /context_window_size=9000 is larger than the model's context of 8192/);
  // An explicit override replaces what the mode infers (the spec's Limits), interactive's one sequence too.
  assert.is(computeEngineConfig('interactive', parseOverrides('max_num_sequence=4'), facts).maxNumSequence, 4);
  assert.is(computeEngineConfig('interactive', {}, facts).maxNumSequence, 1);
  throwsConfig(() => computeEngineConfig('local', parseOverrides('max_num_sequence=300'), facts), /exceeds llama\.cpp's limit of 256/);
  throwsConfig(() => parseMode('batch'), /--mode 'batch' is not valid: use one of local, interactive, server/);
});

test('the prefix cache keeps 16 finished sequences by default (at least max_num_sequence, within llama.cpp\'s limit); 0 turns it off', () => {
  assert.is(computeEngineConfig('local', {}, facts).prefixCacheRecyclingSeqs, 16);
  assert.is(computeEngineConfig('local', parseOverrides('max_num_sequence=32'), facts).prefixCacheRecyclingSeqs, 32);
  assert.is(computeEngineConfig('server', {}, facts).prefixCacheRecyclingSeqs, 128);
  assert.is(computeEngineConfig('local', parseOverrides('max_num_sequence=250'), facts).prefixCacheRecyclingSeqs, 6);
  assert.is(computeEngineConfig('local', parseOverrides('prefix_cache_max_num_recycling_seqs=0'), facts).prefixCacheRecyclingSeqs, 0);
});

test('no-op values of keys the backend cannot change are accepted', () => {
  assert.equal(parseOverrides('spec_draft_length=0; attention_sink_size=0 ;'), { spec_draft_length: 0, attention_sink_size: 0 });
});

test.run();
