// Two truncation stages llama.cpp runs only on the host (their samplers have no backend_apply),
// as links of lmforge's own (custom-sampler.ts) that run in the graph, so a request that sets
// them keeps its sampling on the device: top_n_sigma and typical_p, with the host path's
// meaning (sampling/candidate-filters.ts). A removed token's logit becomes -inf, as llama.cpp's
// top_p and min_p links do; the draw after them never lands on it.
//
//   top_n_sigma, over the logits x (the whole vocabulary: it comes before top_k):
//     allowed = x > -∞; μ, σ = mean and population deviation of the allowed x;
//     keep x ≥ max x − n·σ (inclusive, so equal logits, σ = 0, keep them all)
//   typical_p, over the survivors so far (k entries after top_k, with their ids):
//     q = softmax x, H = −Σ q ln q; order by |ln q + H| ascending;
//     keep each token whose mass before it in that order is < p (the shortest prefix reaching p)
//
// Masked tokens (-inf) are clamped to -BIG where a sum would otherwise turn 0 · ∞ into NaN.
// Float32 in the graph against float64 on the host: a token within rounding of a boundary may
// be kept on one path and not the other; ties in typical_p's order may fall either way.
import { GGML_SORT_ORDER, type GgmlApi, type GgmlContext, type GgmlTensor } from './ggml-api.js';
import { defineCustomSampler, TOKEN_DATA_WORDS, type CustomSamplerHooks, type SamplerData, type SamplerPointer } from './custom-sampler.js';

export interface GraphTruncationLinks {
  /** top_n_sigma with n > 0: keeps logits within n standard deviations of the best. */
  topNSigma(n: number): SamplerPointer;
  /** typical_p with 0 ≤ p < 1: keeps the most typical tokens holding at least p of the mass (0: the most typical alone). */
  typical(p: number): SamplerPointer;
  /**
   * The first error a link's hook threw in this process, if any. A backend_apply that threw left
   * its stage out of the graph llama.cpp built (and reuses), so the engine refuses every token
   * such a chain chose from then on rather than hand out one drawn without its truncation.
   */
  failure(): Error | undefined;
}

type LinkState = { stage: 'top_n_sigma'; n: number } | { stage: 'typical'; p: number };

/** Far below any logit, far above float32's smallest: a masked token's stand-in in sums. */
const BIG = 1e30;

/** typical_p's least p in the graph: above 0, below any mass but a masked token's. */
const MIN_TYPICAL_P = 1e-30;

/** See GraphTruncationLinks.failure. */
let failure: Error | undefined;

type Set = (field: keyof SamplerData, tensor: GgmlTensor | null) => void;

function linkHooks(ggml: GgmlApi): CustomSamplerHooks<LinkState> {
  /** x[argmax x], as a one-entry tensor. */
  const maxOf = (ctx: GgmlContext, x: GgmlTensor, size: number): GgmlTensor =>
    ggml.ggml_reshape_1d(ctx, ggml.ggml_get_rows(ctx, ggml.ggml_reshape_2d(ctx, x, 1, size), ggml.ggml_argmax(ctx, ggml.ggml_reshape_2d(ctx, x, size, 1))), 1);

  function topNSigma(ctx: GgmlContext, x: GgmlTensor, size: number, n: number, set: Set): void {
    const allowed = ggml.ggml_step(ctx, ggml.ggml_scale_bias(ctx, x, 1, BIG));
    const clamped = ggml.ggml_clamp(ctx, x, -BIG, BIG);
    const count = ggml.ggml_sum(ctx, allowed);
    const mean = ggml.ggml_div(ctx, ggml.ggml_sum(ctx, ggml.ggml_mul(ctx, clamped, allowed)), count);
    const deviations = ggml.ggml_mul(ctx, ggml.ggml_sub(ctx, clamped, mean), allowed);
    const sigma = ggml.ggml_sqrt(ctx, ggml.ggml_div(ctx, ggml.ggml_sum(ctx, ggml.ggml_sqr(ctx, deviations)), count));
    const floor = ggml.ggml_sub(ctx, maxOf(ctx, x, size), ggml.ggml_scale(ctx, sigma, n));
    // below = step(floor − x); keep = 1 − below; log keep is 0 or -∞.
    const below = ggml.ggml_step(ctx, ggml.ggml_scale(ctx, ggml.ggml_sub(ctx, x, floor), -1));
    set('logits', ggml.ggml_add(ctx, x, ggml.ggml_log(ctx, ggml.ggml_scale_bias(ctx, below, -1, 1))));
  }

  function typical(ctx: GgmlContext, x: GgmlTensor, size: number, candidates: GgmlTensor | null, p: number, set: Set): void {
    const q = ggml.ggml_soft_max(ctx, x);
    const shifted = ggml.ggml_sub(ctx, x, maxOf(ctx, x, size));
    const logQ = ggml.ggml_clamp(ctx, ggml.ggml_sub(ctx, shifted, ggml.ggml_log(ctx, ggml.ggml_sum(ctx, ggml.ggml_exp(ctx, shifted)))), -BIG, 0);
    const negEntropy = ggml.ggml_sum(ctx, ggml.ggml_mul(ctx, q, logQ));
    // |ln q + H| = |ln q − (−H)|: masked tokens score about BIG and come last.
    const order = ggml.ggml_argsort(ctx, ggml.ggml_abs(ctx, ggml.ggml_sub(ctx, logQ, negEntropy)), GGML_SORT_ORDER.ascending);
    const sort = (t: GgmlTensor) => ggml.ggml_reshape_1d(ctx, ggml.ggml_get_rows(ctx, ggml.ggml_reshape_2d(ctx, t, 1, size), order), size);
    const sortedQ = sort(q);
    const before = ggml.ggml_sub(ctx, ggml.ggml_cumsum(ctx, sortedQ), sortedQ);
    // The first token has nothing before it: a p above 0 keeps it, whatever p asked (0 too).
    const keep = ggml.ggml_step(ctx, ggml.ggml_scale_bias(ctx, before, -1, Math.max(p, MIN_TYPICAL_P)));
    set('logits', ggml.ggml_add(ctx, sort(x), ggml.ggml_log(ctx, keep)));
    // The logits now stand in the new order: their ids go with them.
    set('candidates', candidates ? sort(candidates) : order);
  }

  return {
    apply(_state, { logits }) {
      // The engine runs these links only in the graph; on the host they fail closed (no token).
      for (let i = 1; i < logits.length; i += TOKEN_DATA_WORDS) logits[i] = -Infinity;
    },
    backendInit: () => true,
    backendApply(state, ctx, _graph, data, set) {
      const size = ggml.ggml_nelements(data.logits!);
      const x = ggml.ggml_reshape_1d(ctx, data.logits!, size);
      if (state.stage === 'top_n_sigma') topNSigma(ctx, x, size, state.n, set);
      else typical(ctx, x, size, data.candidates, state.p, set);
    },
    clone: (state) => ({ ...state }),
    // Nothing mutable: the settings are the configuration, which a copy shares.
    copyState: () => undefined,
    free: () => undefined,
    fail: (_state, error) => {
      failure ??= error;
    },
  };
}

/** The links on the libllama at `libllamaPath`. */
export function graphTruncationLinks(libllamaPath: string): GraphTruncationLinks {
  const samplers = defineCustomSampler(libllamaPath, 'graph-truncation', linkHooks);
  return {
    topNSigma(n) {
      if (!(n > 0 && Number.isFinite(n))) throw new RangeError(`top_n_sigma must be a positive number, got ${n}`);
      return samplers.create({ stage: 'top_n_sigma', n });
    },
    typical(p) {
      if (!(p >= 0 && p < 1)) throw new RangeError(`typical_p must be at least 0 and below 1 to truncate, got ${p}`);
      return samplers.create({ stage: 'typical', p });
    },
    failure: () => failure,
  };
}
