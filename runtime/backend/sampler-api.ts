// llama.cpp's sampler chains and backend sampling (include/llama.h, "backend sampling API"):
// a chain attached to a sequence id with llama_set_sampler joins the model's graph, so a decode
// returns that sequence's chosen token instead of its logits row. Only the built-in samplers
// whose ops run in the graph are bound here (greedy, dist, top_k, top_p, min_p, temp, penalties,
// logit_bias); custom samplers (llama_sampler_i) live elsewhere.
import koffi, { type LibraryHandle } from 'koffi';

/** llama-api.ts's context handle, restated (the same brand, so the two are one type) so that llama-api.ts can spread these bindings without an import cycle. */
type ContextHandle = { readonly __brand: 'llama_context' };

/** A llama_sampler (a chain or one stage). Pointers, not an opaque koffi type, so another file may bind the same C type. */
export type SamplerHandle = { readonly __brand: 'llama_sampler' };

export const LlamaSamplerChainParams = koffi.struct('llama_sampler_chain_params', {
  no_perf: 'bool',
});

/** One entry of llama_sampler_init_logit_bias's array; entries are packed into a Buffer at these offsets. */
export const LlamaLogitBias = koffi.struct('llama_logit_bias', {
  token: 'int32_t',
  bias: 'float',
});
export const LOGIT_BIAS_BYTES = koffi.sizeof(LlamaLogitBias);
export const LOGIT_BIAS_VALUE_OFFSET = koffi.offsetof(LlamaLogitBias, 'bias');

/** LLAMA_TOKEN_NULL: what llama_get_sampled_token_ith returns when the row was not sampled in the graph. */
export const TOKEN_NULL = -1;

/** llama_sampler_init_dist's seed that asks for a random one (LLAMA_DEFAULT_SEED). */
export const RANDOM_SEED = 0xffffffff;

export function bindSamplerApi(lib: LibraryHandle) {
  const f = <T>(signature: string) => lib.func(signature) as unknown as T;
  return {
    llama_sampler_chain_default_params: f<() => { no_perf: boolean }>('llama_sampler_chain_params llama_sampler_chain_default_params()'),
    llama_sampler_chain_init: f<(params: { no_perf: boolean }) => SamplerHandle | null>('void *llama_sampler_chain_init(llama_sampler_chain_params params)'),
    /** The chain takes ownership of the stage. */
    llama_sampler_chain_add: f<(chain: SamplerHandle, stage: SamplerHandle) => void>('void llama_sampler_chain_add(void *chain, void *smpl)'),
    llama_sampler_chain_get: f<(chain: SamplerHandle, i: number) => SamplerHandle | null>('void *llama_sampler_chain_get(void *chain, int32_t i)'),
    llama_sampler_chain_n: f<(chain: SamplerHandle) => number>('int32_t llama_sampler_chain_n(const void *chain)'),
    llama_sampler_name: f<(sampler: SamplerHandle) => string>('const char *llama_sampler_name(const void *smpl)'),
    llama_sampler_accept: f<(sampler: SamplerHandle, token: number) => void>('void llama_sampler_accept(void *smpl, int32_t token)'),
    llama_sampler_free: f<(sampler: SamplerHandle) => void>('void llama_sampler_free(void *smpl)'),
    /** A copy with the same state (penalty windows, the generator's position), not yet bound to any context's graph. */
    llama_sampler_clone: f<(sampler: SamplerHandle) => SamplerHandle | null>('void *llama_sampler_clone(const void *smpl)'),
    /**
     * Copies `source`'s state (penalty windows, the generator's seed and position, a mask link's
     * mask) into `target`, a sampler of the same kind and configuration, which keeps its place in
     * a context's graph: a chain attached to a sequence id takes over another chain's request
     * without re-planning the graph.
     */
    llama_sampler_copy: f<(source: SamplerHandle, target: SamplerHandle) => void>('void llama_sampler_copy(const void *src, void *dst)'),

    llama_sampler_init_greedy: f<() => SamplerHandle>('void *llama_sampler_init_greedy()'),
    llama_sampler_init_dist: f<(seed: number) => SamplerHandle>('void *llama_sampler_init_dist(uint32_t seed)'),
    llama_sampler_init_top_k: f<(k: number) => SamplerHandle>('void *llama_sampler_init_top_k(int32_t k)'),
    llama_sampler_init_top_p: f<(p: number, minKeep: number) => SamplerHandle>('void *llama_sampler_init_top_p(float p, size_t min_keep)'),
    llama_sampler_init_min_p: f<(p: number, minKeep: number) => SamplerHandle>('void *llama_sampler_init_min_p(float p, size_t min_keep)'),
    llama_sampler_init_temp: f<(t: number) => SamplerHandle>('void *llama_sampler_init_temp(float t)'),
    llama_sampler_init_penalties: f<(nVocab: number, lastN: number, repeat: number, frequency: number, presence: number) => SamplerHandle>(
      'void *llama_sampler_init_penalties(int32_t n_vocab, int32_t penalty_last_n, float penalty_repeat, float penalty_freq, float penalty_present)',
    ),
    llama_sampler_init_logit_bias: f<(nVocab: number, count: number, biases: Buffer) => SamplerHandle>(
      'void *llama_sampler_init_logit_bias(int32_t n_vocab, int32_t n_logit_bias, const void *logit_bias)',
    ),

    /** Attaches (or with null detaches) a chain for a sequence id; the context re-plans its graph before the next decode. */
    llama_set_sampler: f<(ctx: ContextHandle, seq: number, sampler: SamplerHandle | null) => boolean>('bool llama_set_sampler(llama_context *ctx, int32_t seq_id, void *smpl)'),
    /** The token chosen in the graph for batch token `i` (which asked for logits), or TOKEN_NULL. */
    llama_get_sampled_token_ith: f<(ctx: ContextHandle, i: number) => number>('int32_t llama_get_sampled_token_ith(llama_context *ctx, int32_t i)'),
    /** The floats a chain left as its logits for batch token `i` (null: none; backend/sampled-outputs-sampler.ts says which). */
    llama_get_sampled_logits_ith: f<(ctx: ContextHandle, i: number) => unknown>('float *llama_get_sampled_logits_ith(llama_context *ctx, int32_t i)'),
    llama_get_sampled_logits_count_ith: f<(ctx: ContextHandle, i: number) => number>('uint32_t llama_get_sampled_logits_count_ith(llama_context *ctx, int32_t i)'),
    /** The token ids a chain left as its candidates for batch token `i` (null: none). */
    llama_get_sampled_candidates_ith: f<(ctx: ContextHandle, i: number) => unknown>('int32_t *llama_get_sampled_candidates_ith(llama_context *ctx, int32_t i)'),
    llama_get_sampled_candidates_count_ith: f<(ctx: ContextHandle, i: number) => number>('uint32_t llama_get_sampled_candidates_count_ith(llama_context *ctx, int32_t i)'),
  };
}

export type SamplerApi = ReturnType<typeof bindSamplerApi>;
