// A link of lmforge's own (custom-sampler.ts) that subtracts, each step, amounts the host
// computed for a few tokens: a penalty that follows from a sequence's tokens alone, not from its
// logits (DRY's), runs in the graph this way, and the logits row never crosses to the host: the
// penalised tokens go up instead, as (id, amount) pairs.
//
//   before each graph computation (backend_set_input): penalties(emit) lists this step's pairs;
//   in the graph, over the logits x (the whole vocabulary: the link comes before any truncation):
//     x' = x with x[id] − amount at each pair (get_rows, sub, set_rows)
//
// The inputs have a fixed length, `capacity` pairs (no step can penalise more tokens than the
// vocabulary or the sequence has), uploaded whole before every computation: input tensors live
// in the graph's compute buffer, which its other tensors reuse once the inputs are read, so
// nothing uploaded survives to the next step (uploading only the pairs in use read stale ids
// there and aborted the engine). Unused pairs point at the entry after the last token,
// subtracting 0: past the row's end the link appends one entry to x and drops it again; in a
// wider row (llama.cpp's probe graph) it is an entry no token reads. Either way they never
// collide with a real pair.
import { GGML_TYPE, type GgmlApi, type GgmlTensor } from './ggml-api.js';
import { allowNothingOnHost, defineCustomSampler, type CustomSamplerHooks, type SamplerPointer } from './custom-sampler.js';

/** Lists one step's penalties: emit(token, amount) once for each penalised token. */
export type PenaltySource = (emit: (token: number, amount: number) => void) => void;

export interface SparseBiasLinks {
  /**
   * A link subtracting `source`'s penalties each step, up to `capacity` tokens a step (a step
   * with more fails its request: see the link's failure). `vocabSize`: the logits' width.
   */
  create(source: PenaltySource, capacity: number, vocabSize: number): SamplerPointer;
  /** The first error a link's hook threw in this process, if any (a step's penalties went missing). */
  failure(): Error | undefined;
}

interface LinkState {
  source: PenaltySource;
  capacity: number;
  vocabSize: number;
  /** This step's pairs; entries past `count` hold the padding pair (vocabSize, 0). */
  ids: Int32Array;
  amounts: Float32Array;
  count: number;
  /** The graph's inputs (backend_apply to backend_reset). */
  inputs: { ids: GgmlTensor; amounts: GgmlTensor }[];
}

function newState(source: PenaltySource, capacity: number, vocabSize: number): LinkState {
  return { source, capacity, vocabSize, ids: new Int32Array(capacity).fill(vocabSize), amounts: new Float32Array(capacity), count: 0, inputs: [] };
}

function linkHooks(ggml: GgmlApi): CustomSamplerHooks<LinkState> {
  return {
    apply: allowNothingOnHost,
    backendInit: () => true,
    backendApply(state, ctx, _graph, data, set) {
      const logits = data.logits!;
      const size = ggml.ggml_nelements(logits);
      // At least the vocabulary (llama.cpp probes a chain on a wider row), in token order.
      if (size < state.vocabSize || data.candidates) throw new Error(`a sparse bias link needs the whole vocabulary of ${state.vocabSize} logits, not ${size}${data.candidates ? ' candidates' : ''}`);
      const ids = ggml.ggml_new_tensor_1d(ctx, GGML_TYPE.i32, state.capacity);
      const amounts = ggml.ggml_new_tensor_2d(ctx, GGML_TYPE.f32, 1, state.capacity);
      ggml.ggml_set_name(ids, 'sparse_bias_ids');
      ggml.ggml_set_name(amounts, 'sparse_bias_amounts');
      ggml.ggml_set_input(ids);
      ggml.ggml_set_input(amounts);
      state.inputs.push({ ids, amounts });
      const x = ggml.ggml_reshape_1d(ctx, logits, size);
      // One more entry for the padding pairs: its value is never read back.
      const rows = ggml.ggml_reshape_2d(ctx, ggml.ggml_concat(ctx, x, ggml.ggml_view_1d(ctx, x, 1, 0), 0), 1, size + 1);
      const penalised = ggml.ggml_sub(ctx, ggml.ggml_get_rows(ctx, rows, ids), amounts);
      const written = ggml.ggml_set_rows(ctx, rows, penalised, ids);
      set('logits', ggml.ggml_view_1d(ctx, ggml.ggml_reshape_1d(ctx, written, size + 1), size, 0));
    },
    backendSetInput(state) {
      if (state.inputs.length === 0) return;
      const { ids, amounts, vocabSize, capacity } = state;
      const previous = state.count;
      let count = 0;
      let overflow = false;
      state.source((token, amount) => {
        if (count === capacity) {
          overflow = true;
          return;
        }
        ids[count] = token;
        amounts[count++] = amount;
      });
      // Inputs are written whatever happens (the tensors hold no valid ids of their own); a step
      // that lists too many goes up without penalties and is reported below, failing its request.
      if (overflow) count = 0;
      // The pairs the last step used beyond this one's go back to padding.
      for (let i = count; i < Math.max(previous, overflow ? capacity : 0); i++) {
        ids[i] = vocabSize;
        amounts[i] = 0;
      }
      state.count = count;
      for (const input of state.inputs) {
        ggml.ggml_backend_tensor_set(input.ids, ids, 0, capacity * 4);
        ggml.ggml_backend_tensor_set(input.amounts, amounts, 0, capacity * 4);
      }
      if (overflow) throw new Error(`more than ${capacity} tokens penalised in one step`);
    },
    backendReset(state) {
      state.inputs = [];
    },
    clone: (state) => newState(state.source, state.capacity, state.vocabSize),
    // The sequence whose penalties these are: a chain taken over samples for the new one.
    copyState(source, target) {
      target.source = source.source;
    },
    free: () => undefined,
  };
}

/** The links on the libllama at `libllamaPath`. */
export function sparseBiasLinks(libllamaPath: string): SparseBiasLinks {
  const samplers = defineCustomSampler(libllamaPath, 'sparse-bias', linkHooks);
  return {
    create(source, capacity, vocabSize) {
      if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
      return samplers.create(newState(source, capacity, vocabSize));
    },
    failure: () => samplers.failure(),
  };
}
