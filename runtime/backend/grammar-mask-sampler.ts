// A grammar's mask as one link of a llama.cpp sampler chain, applied inside llama.cpp's graph on
// the device that decodes (llama_set_sampler), so a constrained sequence's logits row need not
// cross to the host. The mask travels as a packed bitset a step, the engine's own layout (bit
// t % 32 of word t / 32: GrammarConstraint.mask, GrammarMatcher.fillNextTokenBitmask).
//
//   const mask = createGrammarMaskSampler(library.path, vocabSize);
//   llama_sampler_chain_add(chain, mask.sampler);      // first link: before top-k, temperature, dist
//   llama_set_sampler(context, sequence, chain);
//   each step, before llama_decode: mask.setMask(constraint.mask)   (null: every token allowed)
//
// On the device: ggml has no bit operations, so the bitset goes up as one int32 per 16 tokens
// (its 16-bit chunks: vocabulary / 4 bytes a sequence a step, 12.3 KiB for GPT-2's 50,257
// tokens), and one ggml_get_rows from a constant table of 65,536 rows × 16 floats of 0 / -inf
// (4 MiB, one per buffer type, shared by every mask sampler) expands them into an additive
// mask, added to the logits. The engine gives a link to every sequence whose tokens a mask may
// hold back (a grammar, allowed_token_ids, min_tokens, bad_words: engine/worker/device-sampling.ts);
// one without has no mask link, and costs nothing.
// The same mask applies on the host path (the `apply` of llama_token_data_array), so a chain
// works whichever part of it llama.cpp runs on the device.
//
// Limits, on purpose: one mask a sequence a step. A context whose sequences may output several
// rows a step (n_outputs_max_per_seq > 1, speculative verification) needs a mask per row: the
// link then declines the device (backend_init answers false), and llama.cpp runs it and every
// later link on the host, where the caller sets the mask before each row it samples.
//
// The hooks are JavaScript callbacks (custom-sampler.ts says on which thread they run).
import koffi from 'koffi';
import { GGML_TYPE, type GgmlApi, type GgmlBuffer, type GgmlBufferType, type GgmlContext, type GgmlTensor } from './ggml-api.js';
import { defineCustomSampler, TOKEN_DATA_WORDS, type CustomSamplerHooks, type CustomSamplerKind, type SamplerPointer } from './custom-sampler.js';

export type { SamplerPointer } from './custom-sampler.js';

/** Tokens one uploaded int32 carries: a row of the expansion table. */
const CHUNK_TOKENS = 16;
const TABLE_ROWS = 1 << CHUNK_TOKENS;
/** A chunk whose 16 tokens are all allowed (the unconstrained mask). */
const ALL_ALLOWED = TABLE_ROWS - 1;

export interface GrammarMaskSampler {
  /**
   * The llama_sampler. A chain it joins (llama_sampler_chain_add) owns it and frees it with
   * itself; one that joins none is freed with llama_sampler_free.
   */
  readonly sampler: SamplerPointer;
  /** Bytes this link uploads to the device a step: one int32 per 16 tokens. */
  readonly uploadBytes: number;
  /**
   * The tokens allowed at the next step: a bitset over the vocabulary (at least vocabSize / 32
   * words), copied now, so the caller may reuse its array. null allows every token.
   */
  setMask(bits: Uint32Array | null): void;
}

/** Creates a mask link for a model with `vocabSize` tokens, on the libllama at `libllamaPath`. */
export function createGrammarMaskSampler(libllamaPath: string, vocabSize: number): GrammarMaskSampler {
  if (!Number.isInteger(vocabSize) || vocabSize <= 0) throw new RangeError(`vocabSize must be a positive integer, got ${vocabSize}`);
  const samplers = kindFor(libllamaPath);
  const state = new MaskState(vocabSize);
  return handleOf(state, samplers.create(state));
}

/**
 * The mask link behind `sampler`, a llama_sampler that createGrammarMaskSampler made or that
 * llama.cpp cloned from one (llama_sampler_clone of a chain clones its links): the clone's
 * mask is set through this handle. undefined for a sampler that is no mask link.
 */
export function grammarMaskSamplerAt(sampler: SamplerPointer): GrammarMaskSampler | undefined {
  const state = bound?.stateAt(sampler);
  return state && handleOf(state, sampler);
}

function handleOf(state: MaskState, sampler: SamplerPointer): GrammarMaskSampler {
  return {
    sampler,
    uploadBytes: state.chunks.byteLength,
    setMask: (bits) => state.setMask(bits),
  };
}

/** One mask link's state: its mask as table rows, and its input tensor in the current graph. */
class MaskState {
  /** The mask, one table row (16 tokens' bits) per int32: what goes to the device as is. */
  readonly chunks: Int32Array;
  table: SharedTable | undefined;
  /** The graph's input tensor for the chunks, from backend_apply until backend_reset. */
  input: GgmlTensor | undefined;
  inputChunks = 0;
  freed = false;
  /** A hook that failed since the last setMask (koffi gave llama.cpp a zero instead). */
  private failure: Error | undefined;

  constructor(readonly vocabSize: number) {
    this.chunks = new Int32Array(Math.ceil(vocabSize / CHUNK_TOKENS)).fill(ALL_ALLOWED);
  }

  setMask(bits: Uint32Array | null): void {
    if (this.freed) throw new Error('this grammar mask sampler was freed (with the chain that owned it)');
    if (this.failure) {
      const failure = this.failure;
      this.failure = undefined;
      throw new Error(`the grammar mask sampler failed in llama.cpp's last call: ${failure.message}`, { cause: failure });
    }
    const chunks = this.chunks;
    if (bits === null) {
      chunks.fill(ALL_ALLOWED);
      return;
    }
    const words = Math.ceil(this.vocabSize / 32);
    if (bits.length < words) throw new RangeError(`grammar bitmask has ${bits.length} words, ${words} needed`);
    // Chunk c is the low (even c) or high (odd c) half of word c / 2: bit order is kept.
    for (let c = 0; c < chunks.length; c++) chunks[c] = (bits[c >>> 1]! >>> ((c & 1) << 4)) & 0xffff;
  }

  allows(token: number): boolean {
    return token >= 0 && token < this.vocabSize && ((this.chunks[token >>> 4]! >>> (token & 15)) & 1) === 1;
  }

  copyFrom(source: MaskState): void {
    this.chunks.set(source.chunks);
  }

  /** llama.cpp builds a new graph: the input tensor of the old one is gone. */
  resetGraph(): void {
    this.input = undefined;
    this.inputChunks = 0;
  }

  fail(error: Error): void {
    this.failure ??= error;
  }
}

/** The 0 / -inf expansion table on one buffer type, shared by the samplers that use it. */
interface SharedTable {
  context: GgmlContext;
  buffer: GgmlBuffer;
  tensor: GgmlTensor;
  users: number;
  key: bigint;
}

const tables = new Map<bigint, SharedTable>();

function acquireTable(ggml: GgmlApi, buft: GgmlBufferType): SharedTable | undefined {
  const key = BigInt(koffi.address(buft));
  const existing = tables.get(key);
  if (existing) {
    existing.users++;
    return existing;
  }
  const context = ggml.ggml_init({ mem_size: ggml.ggml_tensor_overhead() * 2, mem_buffer: null, no_alloc: true });
  if (!context) return undefined;
  const tensor = ggml.ggml_new_tensor_2d(context, GGML_TYPE.f32, CHUNK_TOKENS, TABLE_ROWS);
  ggml.ggml_set_name(tensor, 'grammar_mask_table');
  const buffer = ggml.ggml_backend_alloc_ctx_tensors_from_buft(context, buft);
  if (!buffer) {
    ggml.ggml_free(context);
    return undefined;
  }
  // Row r, column j: 0 when bit j of r is set (token allowed), -inf when not.
  const values = new Float32Array(TABLE_ROWS * CHUNK_TOKENS);
  for (let r = 0; r < TABLE_ROWS; r++) {
    for (let j = 0; j < CHUNK_TOKENS; j++) values[r * CHUNK_TOKENS + j] = (r >>> j) & 1 ? 0 : -Infinity;
  }
  ggml.ggml_backend_tensor_set(tensor, values, 0, values.byteLength);
  const table = { context, buffer, tensor, users: 1, key };
  tables.set(key, table);
  return table;
}

function releaseTable(ggml: GgmlApi, table: SharedTable): void {
  if (--table.users > 0) return;
  tables.delete(table.key);
  ggml.ggml_backend_buffer_free(table.buffer);
  ggml.ggml_free(table.context);
}

/** The mask links' hooks, over the loaded ggml. */
function maskHooks(ggml: GgmlApi): CustomSamplerHooks<MaskState> {
  return {
    // Fails closed: a mask that could not be read allows nothing.
    apply(state, { ids, logits }, failed) {
      for (let i = 0; i < ids.length; i += TOKEN_DATA_WORDS) if (failed || !state.allows(ids[i]!)) logits[i + 1] = -Infinity;
    },
    backendInit(state, buft, outputsPerSequence) {
      // One mask a step cannot serve several rows of a sequence: the host path then, not a wrong mask.
      if (outputsPerSequence > 1) return false;
      state.table ??= acquireTable(ggml, buft);
      return state.table !== undefined;
    },
    backendApply(state, ctx, _graph, data, set) {
      const table = state.table!;
      const logits = data.logits!;
      const width = ggml.ggml_nelements(logits);
      // Over the whole vocabulary the mask lines up with the logits; after a link that kept
      // candidates (top-k first), their ids pick its entries.
      const chunkCount = Math.ceil((data.candidates ? state.vocabSize : width) / CHUNK_TOKENS);
      if (!state.input) {
        state.input = ggml.ggml_new_tensor_1d(ctx, GGML_TYPE.i32, chunkCount);
        ggml.ggml_set_name(state.input, 'grammar_mask_chunks');
        ggml.ggml_set_input(state.input);
        state.inputChunks = chunkCount;
      }
      const expanded = ggml.ggml_get_rows(ctx, table.tensor, state.input); // [16, chunks] of 0 / -inf
      const mask = data.candidates
        ? ggml.ggml_get_rows(ctx, ggml.ggml_reshape_2d(ctx, expanded, 1, chunkCount * CHUNK_TOKENS), data.candidates)
        : ggml.ggml_view_1d(ctx, ggml.ggml_reshape_1d(ctx, expanded, chunkCount * CHUNK_TOKENS), width, 0);
      // In the logits' own shape: a full row is 1-d, top-k's kept rows are [1, k].
      set('logits', ggml.ggml_add(ctx, logits, ggml.ggml_reshape(ctx, mask, logits)));
    },
    backendSetInput(state) {
      if (!state.input) return;
      const count = state.inputChunks;
      // A logits row wider than the vocabulary (never in a real graph) allows nothing past it.
      const chunks = count === state.chunks.length ? state.chunks : padded(state.chunks, count);
      ggml.ggml_backend_tensor_set(state.input, chunks, 0, count * 4);
    },
    backendReset: (state) => state.resetGraph(),
    clone(source) {
      const copy = new MaskState(source.vocabSize);
      copy.copyFrom(source);
      return copy;
    },
    copyState: (source, target) => target.copyFrom(source),
    free(state) {
      state.freed = true;
      if (state.table) releaseTable(ggml, state.table);
      state.table = undefined;
    },
    fail: (state, error) => state.fail(error),
  };
}

let bound: CustomSamplerKind<MaskState> | undefined;

/** The mask links' kind, its hooks registered once per process. */
function kindFor(libllamaPath: string): CustomSamplerKind<MaskState> {
  bound = defineCustomSampler(libllamaPath, 'grammar-mask', maskHooks);
  return bound;
}

function padded(chunks: Int32Array, count: number): Int32Array {
  const result = new Int32Array(count);
  result.set(chunks.subarray(0, count));
  return result;
}
