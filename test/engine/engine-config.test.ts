// Mode presets and --overrides: every key the spec lists, each checked, with messages naming it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { throwsError } from '../helpers/throws.js';
import { computeEngineConfig, ConfigError, parseMode, parseOverrides, type ModelFacts } from '../../runtime/engine/engine-config.js';

const test = suite('engine config');

const facts: ModelFacts = {
  contextLength: 8192,
  slidingWindow: 0,
  kvBytesPerToken: 23040,
  modelBytes: 100 * 2 ** 20,
  freeDeviceBytes: 8 * 2 ** 30,
  maxParallelSequences: 256,
};

const throwsConfig = (run: () => unknown, pattern: RegExp) => throwsError(run, ConfigError, pattern);

test('local and interactive presets follow the spec', () => {
  const local = computeEngineConfig('local', {}, facts);
  assert.equal([local.maxNumSequence, local.maxTotalSeqLength, local.prefillChunkSize], [4, 8192, 8192]);
  const interactive = computeEngineConfig('interactive', {}, facts);
  assert.equal([interactive.maxNumSequence, interactive.maxTotalSeqLength, interactive.prefillChunkSize], [1, 8192, 8192]);
});

test('server mode sizes the KV cache from device memory', () => {
  const server = computeEngineConfig('server', {}, facts);
  const budget = facts.freeDeviceBytes * 0.85 - facts.modelBytes - 512 * 2 ** 20;
  assert.is(server.maxNumSequence, 128);
  assert.is(server.maxTotalSeqLength, Math.min(Math.floor(budget / facts.kvBytesPerToken), 128 * 8192));
  assert.ok(server.maxTotalSeqLength > 8192 * 4, 'server mode holds more than local mode');
  const half = computeEngineConfig('server', { gpu_memory_utilization: 0.5 }, facts);
  assert.ok(half.maxTotalSeqLength < server.maxTotalSeqLength);
  throwsConfig(() => computeEngineConfig('server', {}, { ...facts, freeDeviceBytes: 2 ** 29 }), /no memory for a KV cache/);
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
  throwsConfig(() => parseOverrides('spec_draft_length=4'), /spec_draft_length=4 cannot be honoured: speculative decoding/);
  throwsConfig(() => parseOverrides('prefix_cache_max_num_recycling_seqs=2'), /prefix cache/);
  throwsConfig(() => parseOverrides('attention_sink_size=4'), /attention_sink_size=4 cannot be honoured/);
  throwsConfig(() => computeEngineConfig('local', parseOverrides('context_window_size=9000'), facts), /context_window_size=9000 is larger than the model's context of 8192/);
  throwsConfig(() => computeEngineConfig('interactive', parseOverrides('max_num_sequence=4'), facts), /max_num_sequence=4 contradicts --mode interactive/);
  throwsConfig(() => computeEngineConfig('local', parseOverrides('max_num_sequence=300'), facts), /exceeds llama\.cpp's limit of 256/);
  throwsConfig(() => parseMode('batch'), /--mode 'batch' is not valid: use one of local, interactive, server/);
});

test('no-op values of keys the backend cannot change are accepted', () => {
  assert.equal(parseOverrides('spec_draft_length=0; attention_sink_size=0 ;'), { spec_draft_length: 0, attention_sink_size: 0 });
});

test.run();
