// ln softmax over a row of logits in the graph, and the max it shifts by: what the sampler links of
// lmforge's own share (typical_p's masses, logprobs, top_n_sigma's floor).
import type { GgmlApi, GgmlContext, GgmlTensor } from './ggml-api.js';

/** x[argmax x] of the `size` logits x, as a one-entry tensor. */
export function maxOf(ggml: GgmlApi, ctx: GgmlContext, x: GgmlTensor, size: number): GgmlTensor {
  const best = ggml.ggml_argmax(ctx, ggml.ggml_reshape_2d(ctx, x, size, 1));
  return ggml.ggml_reshape_1d(ctx, ggml.ggml_get_rows(ctx, ggml.ggml_reshape_2d(ctx, x, 1, size), best), 1);
}

/**
 * ln softmax x of the `size` logits x, in one row: x − m − ln Σ exp(x − m) with m = max x
 * (ln of a softmax would underflow to -∞ for unlikely tokens). A masked token (-∞) stays -∞.
 */
export function logSoftmax(ggml: GgmlApi, ctx: GgmlContext, x: GgmlTensor, size: number): GgmlTensor {
  const shifted = ggml.ggml_sub(ctx, ggml.ggml_reshape_2d(ctx, x, size, 1), maxOf(ggml, ctx, x, size));
  const logNormaliser = ggml.ggml_log(ctx, ggml.ggml_sum_rows(ctx, ggml.ggml_exp(ctx, shifted)));
  return ggml.ggml_reshape_1d(ctx, ggml.ggml_sub(ctx, shifted, logNormaliser), size);
}
