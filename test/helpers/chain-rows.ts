// Decodes a short prompt per sequence on the tiny model with a backend sampler chain attached to
// each sequence id, beside a context without samplers, and returns what each chain left for the
// host (its token, logits and candidates) with the raw logits of the same prompt: the backend
// tests of lmforge's own sampler links read their graph's work through it. cpuBackend is their
// common set-up: the library on the CPU backend, its sampler calls, the tiny model.
import koffi from 'koffi';
import * as assert from 'uvu/assert';
import { Batch } from '../../runtime/backend/batch.js';
import { LlamaContext } from '../../runtime/backend/context.js';
import { listDevices } from '../../runtime/backend/devices.js';
import { loadLlamaLibrary } from '../../runtime/backend/library.js';
import { LlamaModel } from '../../runtime/backend/model.js';
import { tinyModelPath } from '../../fixtures/paths.js';
import { bindBackendSamplerCalls, type BackendSamplerCalls, type SamplerPointer } from './backend-sampler-calls.js';

/** llama.cpp on the CPU backend alone, its sampler calls, the CPU device and the tiny model loaded there. */
export async function cpuBackend() {
  const library = loadLlamaLibrary({ kinds: ['cpu'] });
  const calls = bindBackendSamplerCalls(library);
  const cpu = listDevices(library.api).filter((device) => device.kind === 'cpu').slice(0, 1);
  const tiny = await LlamaModel.create(library.api, { path: tinyModelPath, devices: cpu });
  return { library, api: library.api, calls, cpu, tiny };
}

export interface ChainRow {
  token: number;
  /** The raw logits of the same prompt, from a context without samplers. */
  logits: Float32Array;
  /** What the chain left as its logits, and as its candidates (empty when none). */
  left: Float32Array;
  candidates: Int32Array;
}

/** Decodes one prompt a sequence, sequence i sampled by chains[i] (freed after); returns each sequence's row. */
export function decodeWithChains(model: LlamaModel, calls: BackendSamplerCalls, chains: SamplerPointer[]): ChainRow[] {
  const { api } = model;
  const shape = { contextSize: 256, batchSize: 64, sequences: chains.length, threads: 1 };
  const context = LlamaContext.create(model, shape);
  const plain = LlamaContext.create(model, shape);
  const batch = new Batch(64);
  try {
    chains.forEach((chain, sequence) => assert.ok(calls.llama_set_sampler(context.handle, sequence, chain), `sequence ${sequence}'s chain attached`));
    const indices = chains.map((_, sequence) => {
      const prompt = [100 + sequence, 2000 + 7 * sequence, 300 + sequence];
      prompt.forEach((token, position) => batch.add(token, position, sequence, position === prompt.length - 1));
      return batch.length - 1;
    });
    context.decodeNow(batch);
    plain.decodeNow(batch);
    return indices.map((index) => {
      const logits = new Float32Array(koffi.view(api.llama_get_logits_ith(plain.handle, index) as unknown as bigint, context.vocabSize * 4)).slice();
      const leftAt = calls.llama_get_sampled_logits_ith(context.handle, index);
      const left = leftAt ? new Float32Array(koffi.view(leftAt, calls.llama_get_sampled_logits_count_ith(context.handle, index) * 4)).slice() : new Float32Array(0);
      const candidateCount = calls.llama_get_sampled_candidates_count_ith(context.handle, index);
      const candidates = candidateCount > 0 ? new Int32Array(koffi.view(calls.llama_get_sampled_candidates_ith(context.handle, index)!, candidateCount * 4)).slice() : new Int32Array(0);
      return { token: calls.llama_get_sampled_token_ith(context.handle, index), logits, left, candidates };
    });
  } finally {
    chains.forEach((chain, sequence) => {
      calls.llama_set_sampler(context.handle, sequence, null);
      calls.llama_sampler_free(chain);
    });
    batch.dispose();
    void context.dispose();
    void plain.dispose();
  }
}
