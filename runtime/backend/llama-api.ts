// The one typed FFI file: every llama.cpp / ggml symbol lmforge calls, with struct layouts
// copied field by field from the pinned llama.cpp (v0.5.0 as shipped in
// @node-llama-cpp/*@3.22.1, include/llama.h). test/backend/struct-layout.test.ts reads the
// default parameters back and fails if these layouts drift from the loaded library.
import koffi, { type LibraryHandle } from 'koffi';
import { bindSamplerApi } from './sampler-api.js';

// Opaque handles, branded so a model can never be passed where a context is expected.
export type ModelHandle = { readonly __brand: 'llama_model' };
export type ContextHandle = { readonly __brand: 'llama_context' };
export type VocabHandle = { readonly __brand: 'llama_vocab' };
export type MemoryHandle = { readonly __brand: 'llama_memory' };
export type DeviceHandle = { readonly __brand: 'ggml_backend_dev' };
export type NativePointer = { readonly __brand: 'pointer' };

koffi.opaque('llama_model');
koffi.opaque('llama_context');
koffi.opaque('llama_vocab');
koffi.opaque('llama_memory_i');
koffi.opaque('ggml_backend_device');
koffi.opaque('ggml_backend_reg');

export const LlamaModelParams = koffi.struct('llama_model_params', {
  devices: 'void *',
  tensor_buft_overrides: 'void *',
  n_gpu_layers: 'int32_t',
  split_mode: 'int', // enum llama_split_mode
  load_mode: 'int', // enum llama_load_mode
  lazy_mode: 'int', // enum llama_lazy_mode
  main_gpu: 'int32_t',
  tensor_split: 'float *',
  progress_callback: 'void *',
  progress_callback_user_data: 'void *',
  kv_overrides: 'void *',
  vocab_only: 'bool',
  check_tensors: 'bool',
  use_extra_bufts: 'bool',
  no_host: 'bool',
  no_alloc: 'bool',
  load_mtp: 'bool',
});

export const LlamaContextParams = koffi.struct('llama_context_params', {
  n_ctx: 'uint32_t',
  n_batch: 'uint32_t',
  n_ubatch: 'uint32_t',
  n_seq_max: 'uint32_t',
  n_rs_seq: 'uint32_t',
  n_outputs_max: 'uint32_t',
  n_outputs_max_per_seq: 'uint32_t',
  n_threads: 'int32_t',
  n_threads_batch: 'int32_t',
  ctx_type: 'int',
  rope_scaling_type: 'int',
  pooling_type: 'int',
  attention_type: 'int',
  flash_attn_type: 'int',
  rope_freq_base: 'float',
  rope_freq_scale: 'float',
  yarn_ext_factor: 'float',
  yarn_attn_factor: 'float',
  yarn_beta_fast: 'float',
  yarn_beta_slow: 'float',
  yarn_orig_ctx: 'uint32_t',
  defrag_thold: 'float',
  cb_eval: 'void *',
  cb_eval_user_data: 'void *',
  type_k: 'int', // enum ggml_type
  type_v: 'int',
  abort_callback: 'void *',
  abort_callback_data: 'void *',
  embeddings: 'bool',
  offload_kqv: 'bool',
  no_perf: 'bool',
  op_offload: 'bool',
  swa_full: 'bool',
  kv_unified: 'bool',
  samplers: 'void *',
  n_samplers: 'size_t',
  ctx_other: 'void *',
});

export const LlamaBatch = koffi.struct('llama_batch', {
  n_tokens: 'int32_t',
  token: 'int32_t *',
  embd: 'float *',
  pos: 'int32_t *',
  n_seq_id: 'int32_t *',
  seq_id: 'int32_t **',
  logits: 'int8_t *',
});

export interface ModelParams {
  devices: unknown;
  tensor_buft_overrides: unknown;
  n_gpu_layers: number;
  split_mode: number;
  load_mode: number;
  lazy_mode: number;
  main_gpu: number;
  tensor_split: unknown;
  progress_callback: unknown;
  progress_callback_user_data: unknown;
  kv_overrides: unknown;
  vocab_only: boolean;
  check_tensors: boolean;
  use_extra_bufts: boolean;
  no_host: boolean;
  no_alloc: boolean;
  load_mtp: boolean;
}

export interface ContextParams {
  n_ctx: number;
  n_batch: number;
  n_ubatch: number;
  n_seq_max: number;
  n_rs_seq: number;
  n_outputs_max: number;
  n_outputs_max_per_seq: number;
  n_threads: number;
  n_threads_batch: number;
  ctx_type: number;
  rope_scaling_type: number;
  pooling_type: number;
  attention_type: number;
  flash_attn_type: number;
  rope_freq_base: number;
  rope_freq_scale: number;
  yarn_ext_factor: number;
  yarn_attn_factor: number;
  yarn_beta_fast: number;
  yarn_beta_slow: number;
  yarn_orig_ctx: number;
  defrag_thold: number;
  cb_eval: unknown;
  cb_eval_user_data: unknown;
  type_k: number;
  type_v: number;
  abort_callback: unknown;
  abort_callback_data: unknown;
  embeddings: boolean;
  offload_kqv: boolean;
  no_perf: boolean;
  op_offload: boolean;
  swa_full: boolean;
  kv_unified: boolean;
  samplers: unknown;
  n_samplers: number;
  ctx_other: unknown;
}

export interface BatchStruct {
  n_tokens: number;
  token: NativePointer;
  embd: NativePointer | null;
  pos: NativePointer;
  n_seq_id: NativePointer;
  seq_id: NativePointer;
  logits: NativePointer;
}

export const SPLIT_MODE = { none: 0, layer: 1, row: 2, tensor: 3 } as const;
export const DEVICE_TYPE = { cpu: 0, gpu: 1, igpu: 2, accel: 3, meta: 4 } as const;
export const TOKEN_ATTR = { unknown: 1 << 0, unused: 1 << 1, normal: 1 << 2, control: 1 << 3, userDefined: 1 << 4, byte: 1 << 5 } as const;

type AsyncFn<A extends unknown[], R> = ((...args: A) => R) & {
  async: (...args: [...A, (error: unknown, result: R) => void]) => void;
};

/** Binds every function lmforge uses from an already loaded libllama (ggml symbols resolve through its dependencies). */
export function bindLlamaApi(lib: LibraryHandle) {
  const logCallback = koffi.proto('void ggml_log_callback(int level, const char *text, void *user_data)');
  const f = <T>(signature: string) => lib.func(signature) as unknown as T;
  return {
    logCallback,
    // ggml backend registry and devices
    ggml_backend_load_all_from_path: f<(dir: string) => void>('void ggml_backend_load_all_from_path(const char *dir)'),
    ggml_backend_reg_count: f<() => number>('size_t ggml_backend_reg_count()'),
    ggml_backend_dev_count: f<() => number>('size_t ggml_backend_dev_count()'),
    ggml_backend_dev_get: f<(i: number) => DeviceHandle>('ggml_backend_device *ggml_backend_dev_get(size_t index)'),
    ggml_backend_dev_name: f<(d: DeviceHandle) => string>('const char *ggml_backend_dev_name(ggml_backend_device *d)'),
    ggml_backend_dev_description: f<(d: DeviceHandle) => string>('const char *ggml_backend_dev_description(ggml_backend_device *d)'),
    ggml_backend_dev_type: f<(d: DeviceHandle) => number>('int ggml_backend_dev_type(ggml_backend_device *d)'),
    ggml_backend_dev_memory: f<(d: DeviceHandle, free: [number], total: [number]) => void>(
      'void ggml_backend_dev_memory(ggml_backend_device *d, _Out_ size_t *free, _Out_ size_t *total)',
    ),
    ggml_backend_dev_backend_reg: f<(d: DeviceHandle) => NativePointer>('ggml_backend_reg *ggml_backend_dev_backend_reg(ggml_backend_device *d)'),
    ggml_backend_reg_name: f<(r: NativePointer) => string>('const char *ggml_backend_reg_name(ggml_backend_reg *r)'),

    // library
    llama_backend_init: f<() => void>('void llama_backend_init()'),
    llama_log_set: f<(cb: unknown, userData: null) => void>('void llama_log_set(ggml_log_callback *cb, void *user_data)'),
    llama_print_system_info: f<() => string>('const char *llama_print_system_info()'),
    llama_max_devices: f<() => number>('size_t llama_max_devices()'),
    llama_max_parallel_sequences: f<() => number>('size_t llama_max_parallel_sequences()'),
    llama_supports_gpu_offload: f<() => boolean>('bool llama_supports_gpu_offload()'),
    llama_model_default_params: f<() => ModelParams>('llama_model_params llama_model_default_params()'),
    llama_context_default_params: f<() => ContextParams>('llama_context_params llama_context_default_params()'),

    // model
    llama_model_load_from_file: f<AsyncFn<[string, ModelParams], ModelHandle | null>>(
      'llama_model *llama_model_load_from_file(const char *path, llama_model_params params)',
    ),
    llama_model_free: f<(m: ModelHandle) => void>('void llama_model_free(llama_model *m)'),
    llama_model_get_vocab: f<(m: ModelHandle) => VocabHandle>('const llama_vocab *llama_model_get_vocab(const llama_model *m)'),
    llama_model_n_ctx_train: f<(m: ModelHandle) => number>('int32_t llama_model_n_ctx_train(const llama_model *m)'),
    llama_model_n_embd: f<(m: ModelHandle) => number>('int32_t llama_model_n_embd(const llama_model *m)'),
    llama_model_n_layer: f<(m: ModelHandle) => number>('int32_t llama_model_n_layer(const llama_model *m)'),
    llama_model_n_head: f<(m: ModelHandle) => number>('int32_t llama_model_n_head(const llama_model *m)'),
    llama_model_n_head_kv: f<(m: ModelHandle) => number>('int32_t llama_model_n_head_kv(const llama_model *m)'),
    llama_model_n_swa: f<(m: ModelHandle) => number>('int32_t llama_model_n_swa(const llama_model *m)'),
    llama_model_is_recurrent: f<(m: ModelHandle) => boolean>('bool llama_model_is_recurrent(const llama_model *m)'),
    llama_model_is_hybrid: f<(m: ModelHandle) => boolean>('bool llama_model_is_hybrid(const llama_model *m)'),
    llama_model_size: f<(m: ModelHandle) => number>('uint64_t llama_model_size(const llama_model *m)'),
    llama_model_n_params: f<(m: ModelHandle) => number>('uint64_t llama_model_n_params(const llama_model *m)'),
    llama_model_desc: f<(m: ModelHandle, buf: Buffer, size: number) => number>('int32_t llama_model_desc(const llama_model *m, _Out_ uint8_t *buf, size_t size)'),
    llama_model_chat_template: f<(m: ModelHandle, name: string | null) => string | null>(
      'const char *llama_model_chat_template(const llama_model *m, const char *name)',
    ),
    llama_model_meta_count: f<(m: ModelHandle) => number>('int32_t llama_model_meta_count(const llama_model *m)'),
    llama_model_meta_key_by_index: f<(m: ModelHandle, i: number, buf: Buffer, size: number) => number>(
      'int32_t llama_model_meta_key_by_index(const llama_model *m, int32_t i, _Out_ uint8_t *buf, size_t size)',
    ),
    llama_model_meta_val_str_by_index: f<(m: ModelHandle, i: number, buf: Buffer, size: number) => number>(
      'int32_t llama_model_meta_val_str_by_index(const llama_model *m, int32_t i, _Out_ uint8_t *buf, size_t size)',
    ),

    // vocabulary
    llama_vocab_n_tokens: f<(v: VocabHandle) => number>('int32_t llama_vocab_n_tokens(const llama_vocab *v)'),
    llama_vocab_type: f<(v: VocabHandle) => number>('int llama_vocab_type(const llama_vocab *v)'),
    llama_vocab_get_attr: f<(v: VocabHandle, t: number) => number>('int llama_vocab_get_attr(const llama_vocab *v, int32_t t)'),
    llama_vocab_is_eog: f<(v: VocabHandle, t: number) => boolean>('bool llama_vocab_is_eog(const llama_vocab *v, int32_t t)'),
    llama_vocab_is_control: f<(v: VocabHandle, t: number) => boolean>('bool llama_vocab_is_control(const llama_vocab *v, int32_t t)'),
    llama_vocab_bos: f<(v: VocabHandle) => number>('int32_t llama_vocab_bos(const llama_vocab *v)'),
    llama_vocab_eos: f<(v: VocabHandle) => number>('int32_t llama_vocab_eos(const llama_vocab *v)'),
    llama_vocab_eot: f<(v: VocabHandle) => number>('int32_t llama_vocab_eot(const llama_vocab *v)'),
    llama_vocab_get_add_bos: f<(v: VocabHandle) => boolean>('bool llama_vocab_get_add_bos(const llama_vocab *v)'),
    llama_tokenize: f<(v: VocabHandle, text: Buffer, len: number, out: Int32Array, max: number, addSpecial: boolean, parseSpecial: boolean) => number>(
      'int32_t llama_tokenize(const llama_vocab *v, const uint8_t *text, int32_t len, _Out_ int32_t *tokens, int32_t max, bool add_special, bool parse_special)',
    ),
    llama_token_to_piece: f<(v: VocabHandle, t: number, buf: Buffer, len: number, lstrip: number, special: boolean) => number>(
      'int32_t llama_token_to_piece(const llama_vocab *v, int32_t t, _Out_ uint8_t *buf, int32_t len, int32_t lstrip, bool special)',
    ),

    // context, batch, decode
    llama_init_from_model: f<(m: ModelHandle, p: ContextParams) => ContextHandle | null>(
      'llama_context *llama_init_from_model(llama_model *m, llama_context_params params)',
    ),
    llama_free: f<(c: ContextHandle) => void>('void llama_free(llama_context *c)'),
    llama_n_ctx: f<(c: ContextHandle) => number>('uint32_t llama_n_ctx(const llama_context *c)'),
    llama_n_ctx_seq: f<(c: ContextHandle) => number>('uint32_t llama_n_ctx_seq(const llama_context *c)'),
    llama_n_batch: f<(c: ContextHandle) => number>('uint32_t llama_n_batch(const llama_context *c)'),
    llama_n_seq_max: f<(c: ContextHandle) => number>('uint32_t llama_n_seq_max(const llama_context *c)'),
    llama_set_n_threads: f<(c: ContextHandle, n: number, nBatch: number) => void>('void llama_set_n_threads(llama_context *c, int32_t n, int32_t n_batch)'),
    llama_n_threads: f<(c: ContextHandle) => number>('int32_t llama_n_threads(llama_context *c)'),
    llama_n_threads_batch: f<(c: ContextHandle) => number>('int32_t llama_n_threads_batch(llama_context *c)'),
    llama_batch_init: f<(nTokens: number, embd: number, nSeqMax: number) => BatchStruct>(
      'llama_batch llama_batch_init(int32_t n_tokens, int32_t embd, int32_t n_seq_max)',
    ),
    llama_batch_free: f<(b: BatchStruct) => void>('void llama_batch_free(llama_batch b)'),
    llama_decode: f<AsyncFn<[ContextHandle, BatchStruct], number>>('int32_t llama_decode(llama_context *c, llama_batch b)'),
    // Waits for the device to finish the last decode (llama_decode only queues it on a GPU).
    llama_synchronize: f<(c: ContextHandle) => void>('void llama_synchronize(llama_context *c)'),
    llama_get_logits: f<(c: ContextHandle) => NativePointer | null>('float *llama_get_logits(llama_context *c)'),
    llama_get_logits_ith: f<(c: ContextHandle, i: number) => NativePointer | null>('float *llama_get_logits_ith(llama_context *c, int32_t i)'),
    // With embeddings on, a decode also returns each output token's last hidden state (after
    // the final norm, what the output matrix multiplies); llama.cpp then outputs every token.
    llama_set_embeddings: f<(c: ContextHandle, on: boolean) => void>('void llama_set_embeddings(llama_context *c, bool embeddings)'),
    llama_get_embeddings: f<(c: ContextHandle) => NativePointer | null>('float *llama_get_embeddings(llama_context *c)'),
    // An encoder graph (EAGLE-3's feature fusion) runs on a batch of embeddings through this.
    llama_encode: f<(c: ContextHandle, b: BatchStruct) => number>('int32_t llama_encode(llama_context *c, llama_batch b)'),
    llama_n_ubatch: f<(c: ContextHandle) => number>('uint32_t llama_n_ubatch(const llama_context *c)'),

    // KV memory, per sequence
    llama_get_memory: f<(c: ContextHandle) => MemoryHandle>('llama_memory_i *llama_get_memory(const llama_context *c)'),
    llama_memory_clear: f<(m: MemoryHandle, data: boolean) => void>('void llama_memory_clear(llama_memory_i *m, bool data)'),
    llama_memory_seq_rm: f<(m: MemoryHandle, seq: number, p0: number, p1: number) => boolean>(
      'bool llama_memory_seq_rm(llama_memory_i *m, int32_t seq, int32_t p0, int32_t p1)',
    ),
    llama_memory_seq_cp: f<(m: MemoryHandle, src: number, dst: number, p0: number, p1: number) => void>(
      'void llama_memory_seq_cp(llama_memory_i *m, int32_t src, int32_t dst, int32_t p0, int32_t p1)',
    ),
    llama_memory_seq_keep: f<(m: MemoryHandle, seq: number) => void>('void llama_memory_seq_keep(llama_memory_i *m, int32_t seq)'),
    llama_memory_seq_pos_max: f<(m: MemoryHandle, seq: number) => number>('int32_t llama_memory_seq_pos_max(llama_memory_i *m, int32_t seq)'),
    llama_memory_seq_pos_min: f<(m: MemoryHandle, seq: number) => number>('int32_t llama_memory_seq_pos_min(llama_memory_i *m, int32_t seq)'),

    // sampler chains and sampling in the graph (sampler-api.ts)
    ...bindSamplerApi(lib),
  };
}

export type LlamaApi = ReturnType<typeof bindLlamaApi>;

/**
 * llama.cpp's staging extensions that EAGLE-3 needs (src/llama-ext.h). That header declares
 * them without extern "C", so the library exports them under their C++ (Itanium) names, which
 * are bound here as they are; a build that lacks one (another version, --model-lib) gets one
 * clear error naming it, and only when eagle mode asks for them.
 */
export function bindLlamaExtensions(lib: LibraryHandle) {
  const f = <T>(name: string, signature: string, mangled: string): T => {
    try {
      return lib.func(signature.replace(name, mangled)) as unknown as T;
    } catch {
      throw new Error(`this libllama has no ${name} (C++ symbol ${mangled}): --speculative-mode eagle needs the llama.cpp build lmforge pins (or one with the same llama-ext.h)`);
    }
  };
  return {
    /** The target's layer ids whose inputs the EAGLE-3 encoder reads (three). */
    llama_model_target_layer_ids: f<(m: ModelHandle) => NativePointer | null>(
      'llama_model_target_layer_ids', 'const int32_t *llama_model_target_layer_ids(const llama_model *m)', '_Z28llama_model_target_layer_idsPK11llama_model',
    ),
    llama_model_target_layer_ids_n: f<(m: ModelHandle) => number>(
      'llama_model_target_layer_ids_n', 'uint32_t llama_model_target_layer_ids_n(const llama_model *m)', '_Z30llama_model_target_layer_ids_nPK11llama_model',
    ),
    /** Keep (or stop keeping) the input of layer `lid` for every token of each decode. */
    llama_set_embeddings_layer_inp: f<(c: ContextHandle, lid: number, on: boolean) => void>(
      'llama_set_embeddings_layer_inp', 'void llama_set_embeddings_layer_inp(llama_context *c, uint32_t lid, bool value)', '_Z30llama_set_embeddings_layer_inpP13llama_contextjb',
    ),
    llama_get_embeddings_layer_inp: f<(c: ContextHandle, lid: number) => NativePointer | null>(
      'llama_get_embeddings_layer_inp', 'float *llama_get_embeddings_layer_inp(llama_context *c, uint32_t lid)', '_Z30llama_get_embeddings_layer_inpP13llama_contextj',
    ),
    /** The pre-norm hidden state (an encoder's output, EAGLE-3's decoder state); masked: only rows that asked for logits. */
    llama_set_embeddings_nextn: f<(c: ContextHandle, on: boolean, masked: boolean) => void>(
      'llama_set_embeddings_nextn', 'void llama_set_embeddings_nextn(llama_context *c, bool value, bool masked)', '_Z26llama_set_embeddings_nextnP13llama_contextbb',
    ),
    llama_get_embeddings_nextn: f<(c: ContextHandle) => NativePointer | null>(
      'llama_get_embeddings_nextn', 'float *llama_get_embeddings_nextn(llama_context *c)', '_Z26llama_get_embeddings_nextnP13llama_context',
    ),
    llama_get_embeddings_nextn_ith: f<(c: ContextHandle, i: number) => NativePointer | null>(
      'llama_get_embeddings_nextn_ith', 'float *llama_get_embeddings_nextn_ith(llama_context *c, int32_t i)', '_Z30llama_get_embeddings_nextn_ithP13llama_contexti',
    ),
  };
}

export type LlamaExtensions = ReturnType<typeof bindLlamaExtensions>;
