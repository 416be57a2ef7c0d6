// The few llama.cpp backend-sampling calls the grammar mask sampler's tests and bench need:
// chains, the built-in greedy and dist links, llama_set_sampler and the sampled outputs.
// LEAD: dedupe with runtime/backend/sampler-api.ts (branch wip-device-sampling) at merge.
// Pointers are koffi's bigints; every sampler type is void * here, so no type name can clash.
import koffi from 'koffi';
import type { ContextHandle } from '../../runtime/backend/llama-api.js';

const ChainParams = koffi.struct({ no_perf: 'bool' });
const TokenData = koffi.struct({ id: 'int32_t', logit: 'float', p: 'float' });
const TokenDataArray = koffi.struct({ data: 'void *', size: 'size_t', selected: 'int64_t', sorted: 'bool' });

export type SamplerPointer = bigint;

export function bindBackendSamplerCalls(libllamaPath: string) {
  const lib = koffi.load(libllamaPath);
  const chainInit = lib.func('llama_sampler_chain_init', 'void *', [ChainParams]) as (params: { no_perf: boolean }) => SamplerPointer;
  const apply = lib.func('void llama_sampler_apply(void *smpl, void *cur_p)') as (sampler: SamplerPointer, candidates: bigint) => void;
  return {
    /** A chain of the given links, in order (the chain owns them). */
    chain(...links: SamplerPointer[]): SamplerPointer {
      const chain = chainInit({ no_perf: true });
      for (const link of links) this.llama_sampler_chain_add(chain, link);
      return chain;
    },
    llama_sampler_chain_add: lib.func('void llama_sampler_chain_add(void *chain, void *smpl)') as (chain: SamplerPointer, sampler: SamplerPointer) => void,
    llama_sampler_init_greedy: lib.func('void *llama_sampler_init_greedy()') as () => SamplerPointer,
    llama_sampler_init_dist: lib.func('void *llama_sampler_init_dist(uint32_t seed)') as (seed: number) => SamplerPointer,
    llama_sampler_init_temp: lib.func('void *llama_sampler_init_temp(float t)') as (temperature: number) => SamplerPointer,
    llama_sampler_init_top_k: lib.func('void *llama_sampler_init_top_k(int32_t k)') as (k: number) => SamplerPointer,
    llama_sampler_clone: lib.func('void *llama_sampler_clone(void *smpl)') as (sampler: SamplerPointer) => SamplerPointer | null,
    llama_sampler_copy: lib.func('void llama_sampler_copy(void *src, void *dst)') as (source: SamplerPointer, target: SamplerPointer) => void,
    llama_sampler_free: lib.func('void llama_sampler_free(void *smpl)') as (sampler: SamplerPointer) => void,
    llama_set_sampler: lib.func('bool llama_set_sampler(llama_context *ctx, int32_t seq_id, void *smpl)') as (context: ContextHandle, sequence: number, sampler: SamplerPointer | null) => boolean,
    llama_get_sampled_token_ith: lib.func('int32_t llama_get_sampled_token_ith(llama_context *ctx, int32_t i)') as (context: ContextHandle, i: number) => number,
    llama_get_sampled_logits_ith: lib.func('void *llama_get_sampled_logits_ith(llama_context *ctx, int32_t i)') as (context: ContextHandle, i: number) => bigint | null,
    llama_get_sampled_logits_count_ith: lib.func('uint32_t llama_get_sampled_logits_count_ith(llama_context *ctx, int32_t i)') as (context: ContextHandle, i: number) => number,
    llama_get_sampled_candidates_ith: lib.func('void *llama_get_sampled_candidates_ith(llama_context *ctx, int32_t i)') as (context: ContextHandle, i: number) => bigint | null,
    llama_get_sampled_candidates_count_ith: lib.func('uint32_t llama_get_sampled_candidates_count_ith(llama_context *ctx, int32_t i)') as (context: ContextHandle, i: number) => number,
    /** The host path: the chain over the logits of batch entry `i` (llama_get_logits_ith), sampled and accepted. */
    llama_sampler_sample: lib.func('int32_t llama_sampler_sample(void *smpl, llama_context *ctx, int32_t idx)') as (sampler: SamplerPointer, context: ContextHandle, i: number) => number,
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
