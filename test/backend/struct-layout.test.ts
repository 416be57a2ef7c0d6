// The FFI struct layouts must match the pinned llama.cpp exactly. Two independent checks:
// a C program compiled against that version's llama.h reports sizeof/offsetof of every field,
// and the loaded library's default parameters read back with their documented values.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LlamaBatch, LlamaContextParams, LlamaModelParams } from '../../runtime/backend/llama-api.js';
import { loadLlamaLibrary } from '../../runtime/backend/library.js';
import { LlamaLogitBias, LlamaSamplerChainParams } from '../../runtime/backend/sampler-api.js';
import { vocabularyPath } from '../../fixtures/vocabularies.js';

const test = suite('struct layout');

const structs = { llama_model_params: LlamaModelParams, llama_context_params: LlamaContextParams, llama_batch: LlamaBatch, llama_sampler_chain_params: LlamaSamplerChainParams, llama_logit_bias: LlamaLogitBias };
const membersOf = (type: (typeof structs)[keyof typeof structs]) => type.members ?? {};

test('every field offset and struct size equals what the C compiler computes from llama.h', async () => {
  // The llama.cpp source tree the fixtures check out (its models/ folder holds the vocabularies).
  const source = dirname(dirname(await vocabularyPath('gpt-2')));
  const lines = ['#include <stdio.h>', '#include <stddef.h>', '#include "llama.h"', 'int main(void) {'];
  for (const [name, type] of Object.entries(structs)) {
    const cName = name === 'llama_batch' || name === 'llama_logit_bias' ? name : `struct ${name}`;
    lines.push(`  printf("${name} size %zu\\n", sizeof(${cName}));`);
    for (const field of Object.keys(membersOf(type))) lines.push(`  printf("${name}.${field} %zu\\n", offsetof(${cName}, ${field}));`);
  }
  lines.push('  return 0;', '}');
  const dir = mkdtempSync(join(tmpdir(), 'lmforge-layout-'));
  writeFileSync(join(dir, 'layout.c'), lines.join('\n'));
  execFileSync('cc', ['-std=c11', '-I', join(source, 'include'), '-I', join(source, 'ggml', 'include'), '-o', join(dir, 'layout'), join(dir, 'layout.c')]);
  const reported = new Map(
    execFileSync(join(dir, 'layout'), { encoding: 'utf8' })
      .trim()
      .split('\n')
      .map((line) => {
        const [key, value] = line.split(/ (?=\d+$)/);
        return [key!, Number(value)] as const;
      }),
  );
  for (const [name, type] of Object.entries(structs)) {
    assert.is(type.size, reported.get(`${name} size`), `sizeof(${name})`);
    for (const [field, member] of Object.entries(membersOf(type))) {
      assert.is(member.offset, reported.get(`${name}.${field}`), `offsetof(${name}, ${field})`);
    }
    // Every C field is declared: the C side has no field we left out (sizes would hide a trailing one only if padded).
    const cFields = [...reported.keys()].filter((key) => key.startsWith(`${name}.`)).length;
    assert.is(cFields, Object.keys(membersOf(type)).length);
  }
});

test('default parameters read back with the values the pinned llama.cpp documents', () => {
  const { api } = loadLlamaLibrary({ kinds: ['cpu'] });
  const model = api.llama_model_default_params();
  assert.equal(
    { n_gpu_layers: model.n_gpu_layers, split_mode: model.split_mode, load_mode: model.load_mode, lazy_mode: model.lazy_mode, main_gpu: model.main_gpu },
    { n_gpu_layers: -1, split_mode: 1, load_mode: -1, lazy_mode: 1, main_gpu: 0 },
  );
  assert.equal(
    [model.vocab_only, model.check_tensors, model.use_extra_bufts, model.no_host, model.no_alloc, model.load_mtp],
    [false, false, true, false, false, false],
  );
  const context = api.llama_context_default_params();
  assert.equal(
    [context.n_ctx, context.n_batch, context.n_ubatch, context.n_seq_max, context.n_rs_seq, context.n_outputs_max, context.n_outputs_max_per_seq],
    [512, 2048, 512, 1, 0, 0, 1],
  );
  assert.equal([context.rope_scaling_type, context.pooling_type, context.attention_type, context.flash_attn_type], [-1, -1, -1, -1]);
  assert.equal([context.yarn_ext_factor, context.yarn_attn_factor, context.defrag_thold, context.type_k, context.type_v], [-1, -1, -1, 1, 1]);
  assert.equal(
    [context.embeddings, context.offload_kqv, context.no_perf, context.op_offload, context.swa_full, context.kv_unified, context.n_samplers],
    [false, true, true, true, true, false, 0],
  );
  assert.equal(api.llama_sampler_chain_default_params(), { no_perf: true });
});

test.run();
