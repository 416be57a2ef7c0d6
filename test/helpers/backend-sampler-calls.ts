// The llama.cpp sampler calls the sampler links' tests and bench/mask-sampler.ts use: the
// engine's own bindings (runtime/backend/sampler-api.ts, part of the library's api) taking and
// giving samplers as koffi's bigint addresses, which lmforge's own links (custom-sampler.ts)
// are; plus a chain builder, and the two host-path calls the engine never makes
// (llama_sampler_sample, llama_sampler_apply), bound here.
import koffi from 'koffi';
import type { ContextHandle, LlamaApi } from '../../runtime/backend/llama-api.js';
import type { SamplerHandle } from '../../runtime/backend/sampler-api.js';

const TokenData = koffi.struct({ id: 'int32_t', logit: 'float', p: 'float' });
const TokenDataArray = koffi.struct({ data: 'void *', size: 'size_t', selected: 'int64_t', sorted: 'bool' });

export type SamplerPointer = bigint;

/** A sampler handle as these tests hold it, and back. */
const handle = (sampler: SamplerPointer | null) => sampler as unknown as SamplerHandle;
const pointer = (sampler: SamplerHandle | null) => sampler as unknown as SamplerPointer;

export function bindBackendSamplerCalls(library: { api: LlamaApi; path: string }) {
  const { api } = library;
  const lib = koffi.load(library.path);
  const apply = lib.func('void llama_sampler_apply(void *smpl, void *cur_p)') as (sampler: SamplerPointer, candidates: bigint) => void;
  const sample = lib.func('int32_t llama_sampler_sample(void *smpl, llama_context *ctx, int32_t idx)') as (sampler: SamplerPointer, context: ContextHandle, i: number) => number;
  return {
    /** A chain of the given links, in order (the chain owns them). */
    chain(...links: SamplerPointer[]): SamplerPointer {
      const chain = api.llama_sampler_chain_init({ no_perf: true });
      if (!chain) throw new Error('llama_sampler_chain_init failed');
      for (const link of links) api.llama_sampler_chain_add(chain, handle(link));
      return pointer(chain);
    },
    llama_sampler_init_greedy: () => pointer(api.llama_sampler_init_greedy()),
    llama_sampler_init_dist: (seed: number) => pointer(api.llama_sampler_init_dist(seed)),
    llama_sampler_init_temp: (temperature: number) => pointer(api.llama_sampler_init_temp(temperature)),
    llama_sampler_init_top_k: (k: number) => pointer(api.llama_sampler_init_top_k(k)),
    llama_sampler_init_penalties: (vocabSize: number, lastN: number, repeat: number, frequency: number, presence: number) =>
      pointer(api.llama_sampler_init_penalties(vocabSize, lastN, repeat, frequency, presence)),
    llama_sampler_accept: (sampler: SamplerPointer, token: number) => api.llama_sampler_accept(handle(sampler), token),
    llama_sampler_clone: (sampler: SamplerPointer) => pointer(api.llama_sampler_clone(handle(sampler))),
    llama_sampler_copy: (source: SamplerPointer, target: SamplerPointer) => api.llama_sampler_copy(handle(source), handle(target)),
    llama_sampler_free: (sampler: SamplerPointer) => api.llama_sampler_free(handle(sampler)),
    llama_set_sampler: (context: ContextHandle, sequence: number, sampler: SamplerPointer | null) => api.llama_set_sampler(context, sequence, handle(sampler)),
    llama_get_sampled_token_ith: (context: ContextHandle, i: number) => api.llama_get_sampled_token_ith(context, i),
    llama_get_sampled_logits_ith: (context: ContextHandle, i: number) => api.llama_get_sampled_logits_ith(context, i) as bigint | null,
    llama_get_sampled_logits_count_ith: (context: ContextHandle, i: number) => api.llama_get_sampled_logits_count_ith(context, i),
    llama_get_sampled_candidates_ith: (context: ContextHandle, i: number) => api.llama_get_sampled_candidates_ith(context, i) as bigint | null,
    llama_get_sampled_candidates_count_ith: (context: ContextHandle, i: number) => api.llama_get_sampled_candidates_count_ith(context, i),
    /** The host path: the chain over the logits of batch entry `i` (llama_get_logits_ith), sampled and accepted. */
    llama_sampler_sample: sample,
    /** Runs `sampler` over `logits` as a llama_token_data_array on the host; returns the logits after it. */
    applyOnHost(sampler: SamplerPointer, logits: Float32Array): Float32Array {
      const n = logits.length;
      const data = koffi.alloc(TokenData, n) as bigint;
      const array = koffi.alloc(TokenDataArray, 1) as bigint;
      try {
        const bytes = koffi.view(data, n * 12);
        const ids = new Int32Array(bytes);
        const values = new Float32Array(bytes);
        for (let i = 0; i < n; i++) {
          ids[i * 3] = i;
          values[i * 3 + 1] = logits[i]!;
          values[i * 3 + 2] = 0;
        }
        koffi.encode(array, TokenDataArray, { data, size: n, selected: -1, sorted: false });
        apply(sampler, array);
        const out = new Float32Array(n);
        for (let i = 0; i < n; i++) out[ids[i * 3]!] = values[i * 3 + 1]!;
        return out;
      } finally {
        koffi.free(data);
        koffi.free(array);
      }
    },
  };
}

export type BackendSamplerCalls = ReturnType<typeof bindBackendSamplerCalls>;
