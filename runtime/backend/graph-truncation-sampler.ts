// Three truncation stages llama.cpp runs only on the host (their samplers have no backend_apply),
// as links of lmforge's own (custom-sampler.ts) that run in the graph, so a request that sets
// them keeps its sampling on the device: top_n_sigma, typical_p and XTC, with the host path's
// meaning (sampling/candidate-filters.ts). A removed token's logit becomes -inf, as llama.cpp's
// top_p and min_p links do; the draw after them never lands on it.
//
//   top_n_sigma, over the logits x (the whole vocabulary: it comes before top_k):
//     allowed = x > -∞; μ, σ = mean and population deviation of the allowed x;
//     keep x ≥ max x − n·σ (inclusive, so equal logits, σ = 0, keep them all)
//   typical_p, over the survivors so far (k entries after top_k, with their ids):
//     q = softmax x, H = −Σ q ln q; order by |ln q + H| ascending;
//     keep each token whose mass before it in that order is < p (the shortest prefix reaching p)
//   XTC, over the survivors, in steps where the request's chance comes up (a 0 / 1 input each
//   step, drawn on the host from the link's own seeded stream as llama.cpp's dist draws its
//   uniform): q = softmax x; above = q ≥ threshold; when two or more are above, remove all of
//   them but the least likely
//
// Masked tokens (-inf) are clamped to -BIG where a sum would otherwise turn 0 · ∞ into NaN.
// Float32 in the graph against float64 on the host: a token within rounding of a boundary may
// be kept on one path and not the other; ties in typical_p's order may fall either way.
import { GGML_SORT_ORDER, GGML_TYPE, type GgmlApi, type GgmlContext, type GgmlTensor } from './ggml-api.js';
import { allowNothingOnHost, defineCustomSampler, type CustomSamplerHooks, type SamplerData, type SamplerPointer } from './custom-sampler.js';
import { logSoftmax, maxOf } from './graph-log-softmax.js';

/** A seeded stream of 32-bit draws (sampling/seeded-rng.ts's SeededRng is one), copied with its position. */
export interface DrawStream {
  nextUint32(): number;
  clone(): DrawStream;
}

export interface GraphTruncationLinks {
  /** top_n_sigma with n > 0: keeps logits within n standard deviations of the best. */
  topNSigma(n: number): SamplerPointer;
  /** typical_p with 0 ≤ p < 1: keeps the most typical tokens holding at least p of the mass (0: the most typical alone). */
  typical(p: number): SamplerPointer;
  /**
   * XTC with 0 < probability ≤ 1 and a threshold: in a step where `rng`'s next draw falls below
   * `probability`, removes every token at least `threshold` likely but the least likely of them.
   * The link owns `rng` (one per sequence: its seed, its choice).
   */
  xtc(probability: number, threshold: number, rng: DrawStream): SamplerPointer;
  /**
   * The first error a link's hook threw in this process, if any. A backend_apply that threw left
   * its stage out of the graph llama.cpp built (and reuses), so the engine refuses every token
   * such a chain chose from then on rather than hand out one drawn without its truncation.
   */
  failure(): Error | undefined;
}

type LinkState =
  | { stage: 'top_n_sigma'; n: number }
  | { stage: 'typical'; p: number }
  | {
      stage: 'xtc';
      probability: number;
      threshold: number;
      rng: DrawStream;
      /** The graph's 0 / 1 inputs, one per row the chain samples (backend_apply to backend_reset). */
      inputs: GgmlTensor[];
    };

/** Far below any logit, far above float32's smallest: a masked token's stand-in in sums. */
const BIG = 1e30;

/** typical_p's least p in the graph: above 0, below any mass but a masked token's. */
const MIN_TYPICAL_P = 1e-30;

/** Replaces a field of the chain's data (CustomSamplerHooks.backendApply's `set`). */
type SetField = (field: keyof SamplerData, tensor: GgmlTensor | null) => void;

function linkHooks(ggml: GgmlApi): CustomSamplerHooks<LinkState> {
  function topNSigma(ctx: GgmlContext, x: GgmlTensor, size: number, n: number, set: SetField): void {
    const allowed = ggml.ggml_step(ctx, ggml.ggml_scale_bias(ctx, x, 1, BIG));
    const clamped = ggml.ggml_clamp(ctx, x, -BIG, BIG);
    const count = ggml.ggml_sum(ctx, allowed);
    const mean = ggml.ggml_div(ctx, ggml.ggml_sum(ctx, ggml.ggml_mul(ctx, clamped, allowed)), count);
    const deviations = ggml.ggml_mul(ctx, ggml.ggml_sub(ctx, clamped, mean), allowed);
    const sigma = ggml.ggml_sqrt(ctx, ggml.ggml_div(ctx, ggml.ggml_sum(ctx, ggml.ggml_sqr(ctx, deviations)), count));
    const floor = ggml.ggml_sub(ctx, maxOf(ggml, ctx, x, size), ggml.ggml_scale(ctx, sigma, n));
    // below = step(floor − x); keep = 1 − below; log keep is 0 or -∞.
    const below = ggml.ggml_step(ctx, ggml.ggml_scale(ctx, ggml.ggml_sub(ctx, x, floor), -1));
    set('logits', ggml.ggml_add(ctx, x, ggml.ggml_log(ctx, ggml.ggml_scale_bias(ctx, below, -1, 1))));
  }

  function typical(ctx: GgmlContext, x: GgmlTensor, size: number, candidates: GgmlTensor | null, p: number, set: SetField): void {
    const q = ggml.ggml_soft_max(ctx, x);
    const logQ = ggml.ggml_clamp(ctx, logSoftmax(ggml, ctx, x, size), -BIG, 0);
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

  function excludeTopChoices(ctx: GgmlContext, x: GgmlTensor, size: number, threshold: number, applies: GgmlTensor, set: SetField): void {
    const q = ggml.ggml_soft_max(ctx, x);
    // above = 1 − step(threshold − q): q ≥ threshold.
    const above = ggml.ggml_scale_bias(ctx, ggml.ggml_step(ctx, ggml.ggml_scale_bias(ctx, q, -1, threshold)), -1, 1);
    const count = ggml.ggml_sum(ctx, above);
    // The least likely of those above: the largest of above · (2 − q) − 2 (−q above, −2 elsewhere).
    const kept = ggml.ggml_argmax(ctx, ggml.ggml_reshape_2d(ctx, ggml.ggml_scale_bias(ctx, ggml.ggml_mul(ctx, above, ggml.ggml_scale_bias(ctx, q, -1, 2)), 1, -2), size, 1));
    const zero = ggml.ggml_reshape_2d(ctx, ggml.ggml_scale(ctx, count, 0), 1, 1);
    // set_rows writes in place: into a copy, so that no reader of `above` depends on the order of ops.
    const others = ggml.ggml_reshape_1d(ctx, ggml.ggml_set_rows(ctx, ggml.ggml_reshape_2d(ctx, ggml.ggml_scale(ctx, above, 1), 1, size), zero, kept), size);
    // Removed only in a step where XTC applies and two or more are above.
    const gate = ggml.ggml_mul(ctx, applies, ggml.ggml_step(ctx, ggml.ggml_scale_bias(ctx, count, 1, -1.5)));
    const removed = ggml.ggml_mul(ctx, others, gate);
    set('logits', ggml.ggml_add(ctx, x, ggml.ggml_log(ctx, ggml.ggml_scale_bias(ctx, removed, -1, 1))));
  }

  return {
    apply: allowNothingOnHost,
    backendInit: () => true,
    backendApply(state, ctx, _graph, data, set) {
      const size = ggml.ggml_nelements(data.logits!);
      const x = ggml.ggml_reshape_1d(ctx, data.logits!, size);
      if (state.stage === 'top_n_sigma') topNSigma(ctx, x, size, state.n, set);
      else if (state.stage === 'typical') typical(ctx, x, size, data.candidates, state.p, set);
      else {
        const applies = ggml.ggml_new_tensor_1d(ctx, GGML_TYPE.f32, 1);
        ggml.ggml_set_name(applies, 'xtc_applies');
        ggml.ggml_set_input(applies);
        state.inputs.push(applies);
        excludeTopChoices(ctx, x, size, state.threshold, applies, set);
      }
    },
    backendSetInput(state) {
      if (state.stage !== 'xtc') return;
      for (const input of state.inputs) {
        // As on the host path: a 32-bit draw against the chance.
        const applies = state.rng.nextUint32() / 4294967296 < state.probability ? 1 : 0;
        ggml.ggml_backend_tensor_set(input, Float32Array.of(applies), 0, 4);
      }
    },
    backendReset(state) {
      if (state.stage === 'xtc') state.inputs = [];
    },
    clone: (state) => (state.stage === 'xtc' ? { ...state, rng: state.rng.clone(), inputs: [] } : { ...state }),
    // The settings are the configuration, which a copy shares; XTC's stream is its state.
    copyState(source, target) {
      if (source.stage === 'xtc' && target.stage === 'xtc') target.rng = source.rng.clone();
    },
    free: () => undefined,
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
    xtc(probability, threshold, rng) {
      if (!(probability > 0 && probability <= 1)) throw new RangeError(`xtc_probability must be above 0 and at most 1, got ${probability}`);
      if (!Number.isFinite(threshold)) throw new RangeError(`xtc_threshold must be a number, got ${threshold}`);
      return samplers.create({ stage: 'xtc', probability, threshold, rng, inputs: [] });
    },
    failure: () => samplers.failure(),
  };
}
