// What a sampler chain in the graph sends back to the host, as two links of lmforge's own
// (custom-sampler.ts): the chosen token, and when the request asks for logprobs, that token's
// log-probability and the top candidates' ids and log-probabilities; nothing else.
//
// Without the last link llama.cpp copies whatever tensors the chain leaves in its data after a
// decode, row by row: the chain's final logits (a whole vocabulary of floats after greedy or
// temperature alone), the draw's probabilities (dist's softmax, a whole vocabulary too) and its
// candidates. The engine reads none of them. The outputs link, last in every chain, clears those
// fields, or sets them to the logprobs it computed:
//
//   chain: [grammar mask] → [logit_bias] → [penalties] → tap → greedy | temp → … → dist → outputs
//   after a decode: llama_get_sampled_logits_ith  → [chosen logprob, top 1..k logprobs]
//                   llama_get_sampled_candidates_ith → [top 1..k token ids]   (in no order)
//
// Log-probabilities are reported as on the host (sampling/token-sampler.ts): the log-softmax of
// the processed logits (after mask, bias and penalties, before temperature and truncation). The
// tap link stands where those logits are and hands them to the chain's outputs link; it adds no
// operation. A chain's links are applied one after another when llama.cpp builds a graph, so the
// next outputs link after a tap is its own chain's.
//
// In the graph, over the V processed logits x: logprobs = x - m - log Σ exp(x - m), m = max x
// (graph-log-softmax.ts); the top k by ggml_top_k over x, their log-probabilities and the
// chosen token's by get_rows.
// Masked tokens (-inf) may fill the top k when fewer are allowed: the reader drops them.
import type { GgmlApi, GgmlTensor } from './ggml-api.js';
import { logSoftmax } from './graph-log-softmax.js';
import { allowNothingOnHost, defineCustomSampler, type CustomSamplerHooks, type SamplerPointer } from './custom-sampler.js';

export interface SampledOutputLinks {
  /** A tap link: put it where the chain's logits are the ones logprobs describe. */
  tap(): SamplerPointer;
  /**
   * The last link of a chain. `topLogprobs`: null when the request asks for no logprobs (only
   * the token comes back); otherwise how many top candidates come back beside the chosen
   * token's logprob (0..vocabulary), which needs a tap earlier in the chain.
   */
  outputs(topLogprobs: number | null): SamplerPointer;
}

interface LinkState {
  role: 'tap' | 'outputs';
  topLogprobs: number | null;
}

/** The processed logits the last tap saw, for the next outputs link (same chain, same build). */
let tapped: GgmlTensor | undefined;

/** The links' hooks, over the loaded ggml. */
function linkHooks(ggml: GgmlApi): CustomSamplerHooks<LinkState> {
  return {
    // On the host there is nothing to report logprobs into: no token, rather than one without them.
    apply: allowNothingOnHost,
    // Every row of a sequence gets its own outputs; llama.cpp applies the chain to each row.
    backendInit: () => true,
    backendApply(state, ctx, _graph, data, set) {
      if (state.role === 'tap') {
        tapped = data.logits!;
        return;
      }
      set('probs', null);
      set('candidates', null);
      if (state.topLogprobs === null) {
        set('logits', null);
        return;
      }
      const processed = tapped;
      tapped = undefined;
      if (!processed) throw new Error('a logprobs outputs link needs a tap earlier in its chain');
      const sampled = data.sampled;
      if (!sampled) throw new Error('a logprobs outputs link must follow the link that draws the token');
      const size = ggml.ggml_nelements(processed);
      const logprobs = ggml.ggml_reshape_2d(ctx, logSoftmax(ggml, ctx, processed, size), 1, size); // a row an entry: get_rows picks tokens
      const chosen = ggml.ggml_get_rows(ctx, logprobs, ggml.ggml_reshape_1d(ctx, sampled, 1));
      const k = Math.min(state.topLogprobs, size);
      if (k === 0) {
        set('logits', ggml.ggml_reshape_1d(ctx, chosen, 1));
        return;
      }
      const top = ggml.ggml_top_k(ctx, ggml.ggml_reshape_2d(ctx, processed, size, 1), k);
      const topLogprobs = ggml.ggml_get_rows(ctx, logprobs, ggml.ggml_reshape_1d(ctx, top, k));
      set('logits', ggml.ggml_concat(ctx, ggml.ggml_reshape_1d(ctx, chosen, 1), ggml.ggml_reshape_1d(ctx, topLogprobs, k), 0));
      set('candidates', ggml.ggml_reshape_1d(ctx, top, k));
    },
    clone: (state) => ({ role: state.role, topLogprobs: state.topLogprobs }),
    // Nothing mutable: the settings are the configuration, which a copy shares.
    copyState: () => undefined,
    // No fail hook: a failed backend_apply leaves the row without logprobs, which its reader refuses (context.ts).
    free: () => undefined,
  };
}

/** The links on the libllama at `libllamaPath`. */
export function sampledOutputLinks(libllamaPath: string): SampledOutputLinks {
  const samplers = defineCustomSampler(libllamaPath, 'sampled-outputs', linkHooks);
  return {
    tap: () => samplers.create({ role: 'tap', topLogprobs: null }),
    outputs(topLogprobs) {
      if (topLogprobs !== null && (!Number.isInteger(topLogprobs) || topLogprobs < 0)) throw new RangeError(`topLogprobs must be null or a non-negative integer, got ${topLogprobs}`);
      return samplers.create({ role: 'outputs', topLogprobs });
    },
  };
}
