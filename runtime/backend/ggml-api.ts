// The ggml symbols lmforge calls itself, to run small graphs of its own (Medusa heads) beside
// llama.cpp, or to add operations to llama.cpp's own graph (the sampling links of
// custom-sampler.ts): tensors, a few operations, graphs computed by a ggml backend on a device
// the registry lists. They come from libggml-base, which libllama already loaded (the same
// build, pinned in library.ts); llama-api.ts has the registry and device calls.
// Signatures are copied from the pinned ggml/include/ggml.h, ggml-backend.h and ggml-alloc.h.
import { dirname, join } from 'node:path';
import koffi from 'koffi';
import type { DeviceHandle, NativePointer } from './llama-api.js';
import './llama-api.js'; // declares the ggml_backend_device and ggml_backend_reg types used here

export type GgmlContext = { readonly __brand: 'ggml_context' };
export type GgmlTensor = { readonly __brand: 'ggml_tensor' };
export type GgmlGraph = { readonly __brand: 'ggml_cgraph' };
export type GgmlBackend = { readonly __brand: 'ggml_backend' };
export type GgmlBuffer = { readonly __brand: 'ggml_backend_buffer' };
export type GgmlBufferType = { readonly __brand: 'ggml_backend_buffer_type' };
export type GgmlAllocator = { readonly __brand: 'ggml_gallocr' };

koffi.opaque('ggml_context');
koffi.opaque('ggml_tensor');
koffi.opaque('ggml_cgraph');
koffi.opaque('ggml_backend');
koffi.opaque('ggml_backend_buffer');
koffi.opaque('ggml_backend_buffer_type');
koffi.opaque('ggml_gallocr');

const GgmlInitParams = koffi.struct('ggml_init_params', {
  mem_size: 'size_t',
  mem_buffer: 'void *',
  no_alloc: 'bool',
});

/** ggml_type values (ggml.h) lmforge names. */
export const GGML_TYPE = { f32: 0, f16: 1, q4_0: 2, q4_1: 3, q8_0: 8, i32: 26, bf16: 30 } as const;

/** enum ggml_sort_order (ggml.h). */
export const GGML_SORT_ORDER = { ascending: 0, descending: 1 } as const;

/** ggml_status GGML_STATUS_SUCCESS. */
export const GGML_STATUS_SUCCESS = 0;

/** Binds the ggml calls from libggml-base beside the given libllama. */
export function bindGgmlApi(libllamaPath: string) {
  const lib = koffi.load(join(dirname(libllamaPath), process.platform === 'win32' ? 'ggml-base.dll' : process.platform === 'darwin' ? 'libggml-base.dylib' : 'libggml-base.so'));
  const f = <T>(signature: string) => lib.func(signature) as unknown as T;
  const setThreads = koffi.proto('void ggml_backend_set_n_threads_t(ggml_backend *backend, int n_threads)');
  const api = {
    ggml_init: f<(params: { mem_size: number; mem_buffer: null; no_alloc: boolean }) => GgmlContext | null>('ggml_context *ggml_init(ggml_init_params params)'),
    ggml_free: f<(ctx: GgmlContext) => void>('void ggml_free(ggml_context *ctx)'),
    ggml_tensor_overhead: f<() => number>('size_t ggml_tensor_overhead()'),
    ggml_graph_overhead: f<() => number>('size_t ggml_graph_overhead()'),
    ggml_row_size: f<(type: number, ne: number) => number>('size_t ggml_row_size(int type, int64_t ne)'),
    ggml_nbytes: f<(t: GgmlTensor) => number>('size_t ggml_nbytes(const ggml_tensor *t)'),
    ggml_new_tensor_1d: f<(ctx: GgmlContext, type: number, ne0: number) => GgmlTensor>('ggml_tensor *ggml_new_tensor_1d(ggml_context *ctx, int type, int64_t ne0)'),
    ggml_new_tensor_2d: f<(ctx: GgmlContext, type: number, ne0: number, ne1: number) => GgmlTensor>(
      'ggml_tensor *ggml_new_tensor_2d(ggml_context *ctx, int type, int64_t ne0, int64_t ne1)',
    ),
    ggml_set_input: f<(t: GgmlTensor) => void>('void ggml_set_input(ggml_tensor *t)'),
    ggml_set_output: f<(t: GgmlTensor) => void>('void ggml_set_output(ggml_tensor *t)'),
    ggml_mul_mat: f<(ctx: GgmlContext, a: GgmlTensor, b: GgmlTensor) => GgmlTensor>('ggml_tensor *ggml_mul_mat(ggml_context *ctx, ggml_tensor *a, ggml_tensor *b)'),
    ggml_add: f<(ctx: GgmlContext, a: GgmlTensor, b: GgmlTensor) => GgmlTensor>('ggml_tensor *ggml_add(ggml_context *ctx, ggml_tensor *a, ggml_tensor *b)'),
    ggml_sub: f<(ctx: GgmlContext, a: GgmlTensor, b: GgmlTensor) => GgmlTensor>('ggml_tensor *ggml_sub(ggml_context *ctx, ggml_tensor *a, ggml_tensor *b)'),
    ggml_exp: f<(ctx: GgmlContext, a: GgmlTensor) => GgmlTensor>('ggml_tensor *ggml_exp(ggml_context *ctx, ggml_tensor *a)'),
    ggml_log: f<(ctx: GgmlContext, a: GgmlTensor) => GgmlTensor>('ggml_tensor *ggml_log(ggml_context *ctx, ggml_tensor *a)'),
    ggml_sum_rows: f<(ctx: GgmlContext, a: GgmlTensor) => GgmlTensor>('ggml_tensor *ggml_sum_rows(ggml_context *ctx, ggml_tensor *a)'),
    /** The indices of each row's k largest entries (I32), in no particular order. */
    ggml_top_k: f<(ctx: GgmlContext, a: GgmlTensor, k: number) => GgmlTensor>('ggml_tensor *ggml_top_k(ggml_context *ctx, ggml_tensor *a, int k)'),
    ggml_mul: f<(ctx: GgmlContext, a: GgmlTensor, b: GgmlTensor) => GgmlTensor>('ggml_tensor *ggml_mul(ggml_context *ctx, ggml_tensor *a, ggml_tensor *b)'),
    ggml_div: f<(ctx: GgmlContext, a: GgmlTensor, b: GgmlTensor) => GgmlTensor>('ggml_tensor *ggml_div(ggml_context *ctx, ggml_tensor *a, ggml_tensor *b)'),
    ggml_sqr: f<(ctx: GgmlContext, a: GgmlTensor) => GgmlTensor>('ggml_tensor *ggml_sqr(ggml_context *ctx, ggml_tensor *a)'),
    ggml_sqrt: f<(ctx: GgmlContext, a: GgmlTensor) => GgmlTensor>('ggml_tensor *ggml_sqrt(ggml_context *ctx, ggml_tensor *a)'),
    ggml_abs: f<(ctx: GgmlContext, a: GgmlTensor) => GgmlTensor>('ggml_tensor *ggml_abs(ggml_context *ctx, ggml_tensor *a)'),
    /** 1 where an entry is > 0, else 0. */
    ggml_step: f<(ctx: GgmlContext, a: GgmlTensor) => GgmlTensor>('ggml_tensor *ggml_step(ggml_context *ctx, ggml_tensor *a)'),
    ggml_scale: f<(ctx: GgmlContext, a: GgmlTensor, s: number) => GgmlTensor>('ggml_tensor *ggml_scale(ggml_context *ctx, ggml_tensor *a, float s)'),
    /** a · s + b, entry by entry. */
    ggml_scale_bias: f<(ctx: GgmlContext, a: GgmlTensor, s: number, b: number) => GgmlTensor>('ggml_tensor *ggml_scale_bias(ggml_context *ctx, ggml_tensor *a, float s, float b)'),
    ggml_clamp: f<(ctx: GgmlContext, a: GgmlTensor, min: number, max: number) => GgmlTensor>('ggml_tensor *ggml_clamp(ggml_context *ctx, ggml_tensor *a, float min, float max)'),
    /** The sum of every entry, as a one-entry tensor. */
    ggml_sum: f<(ctx: GgmlContext, a: GgmlTensor) => GgmlTensor>('ggml_tensor *ggml_sum(ggml_context *ctx, ggml_tensor *a)'),
    ggml_cumsum: f<(ctx: GgmlContext, a: GgmlTensor) => GgmlTensor>('ggml_tensor *ggml_cumsum(ggml_context *ctx, ggml_tensor *a)'),
    ggml_soft_max: f<(ctx: GgmlContext, a: GgmlTensor) => GgmlTensor>('ggml_tensor *ggml_soft_max(ggml_context *ctx, ggml_tensor *a)'),
    /** Copies b's rows into a at the row indices c (I32 or I64); returns the new a. */
    ggml_set_rows: f<(ctx: GgmlContext, a: GgmlTensor, b: GgmlTensor, rows: GgmlTensor) => GgmlTensor>('ggml_tensor *ggml_set_rows(ggml_context *ctx, ggml_tensor *a, ggml_tensor *b, ggml_tensor *c)'),
    /** Each row's entries' indices in `order` (GGML_SORT_ORDER), as I32. */
    ggml_argsort: f<(ctx: GgmlContext, a: GgmlTensor, order: number) => GgmlTensor>('ggml_tensor *ggml_argsort(ggml_context *ctx, ggml_tensor *a, int order)'),
    ggml_silu: f<(ctx: GgmlContext, a: GgmlTensor) => GgmlTensor>('ggml_tensor *ggml_silu(ggml_context *ctx, ggml_tensor *a)'),
    ggml_concat: f<(ctx: GgmlContext, a: GgmlTensor, b: GgmlTensor, dim: number) => GgmlTensor>('ggml_tensor *ggml_concat(ggml_context *ctx, ggml_tensor *a, ggml_tensor *b, int dim)'),
    ggml_get_rows: f<(ctx: GgmlContext, a: GgmlTensor, rows: GgmlTensor) => GgmlTensor>('ggml_tensor *ggml_get_rows(ggml_context *ctx, ggml_tensor *a, ggml_tensor *b)'),
    ggml_reshape: f<(ctx: GgmlContext, a: GgmlTensor, shape: GgmlTensor) => GgmlTensor>('ggml_tensor *ggml_reshape(ggml_context *ctx, ggml_tensor *a, ggml_tensor *b)'),
    ggml_reshape_1d: f<(ctx: GgmlContext, a: GgmlTensor, ne0: number) => GgmlTensor>('ggml_tensor *ggml_reshape_1d(ggml_context *ctx, ggml_tensor *a, int64_t ne0)'),
    ggml_reshape_2d: f<(ctx: GgmlContext, a: GgmlTensor, ne0: number, ne1: number) => GgmlTensor>('ggml_tensor *ggml_reshape_2d(ggml_context *ctx, ggml_tensor *a, int64_t ne0, int64_t ne1)'),
    ggml_view_1d: f<(ctx: GgmlContext, a: GgmlTensor, ne0: number, offset: number) => GgmlTensor>('ggml_tensor *ggml_view_1d(ggml_context *ctx, ggml_tensor *a, int64_t ne0, size_t offset)'),
    ggml_nelements: f<(t: GgmlTensor) => number>('int64_t ggml_nelements(const ggml_tensor *t)'),
    ggml_set_name: f<(t: GgmlTensor, name: string) => GgmlTensor>('ggml_tensor *ggml_set_name(ggml_tensor *t, const char *name)'),
    ggml_argmax: f<(ctx: GgmlContext, a: GgmlTensor) => GgmlTensor>('ggml_tensor *ggml_argmax(ggml_context *ctx, ggml_tensor *a)'),
    ggml_new_graph: f<(ctx: GgmlContext) => GgmlGraph>('ggml_cgraph *ggml_new_graph(ggml_context *ctx)'),
    ggml_build_forward_expand: f<(graph: GgmlGraph, t: GgmlTensor) => void>('void ggml_build_forward_expand(ggml_cgraph *graph, ggml_tensor *t)'),
    /** ggml's fatal error (what GGML_ASSERT and the CUDA backend call): prints file:line and the message, then aborts. */
    ggml_abort: f<(file: string, line: number, message: string) => never>('void ggml_abort(const char *file, int line, const char *fmt, ...)'),

    ggml_backend_dev_init: f<(device: DeviceHandle, params: null) => GgmlBackend | null>('ggml_backend *ggml_backend_dev_init(ggml_backend_device *device, const char *params)'),
    ggml_backend_free: f<(backend: GgmlBackend) => void>('void ggml_backend_free(ggml_backend *backend)'),
    ggml_backend_get_default_buffer_type: f<(backend: GgmlBackend) => GgmlBufferType>('ggml_backend_buffer_type *ggml_backend_get_default_buffer_type(ggml_backend *backend)'),
    ggml_backend_alloc_ctx_tensors: f<(ctx: GgmlContext, backend: GgmlBackend) => GgmlBuffer | null>('ggml_backend_buffer *ggml_backend_alloc_ctx_tensors(ggml_context *ctx, ggml_backend *backend)'),
    ggml_backend_alloc_ctx_tensors_from_buft: f<(ctx: GgmlContext, type: GgmlBufferType) => GgmlBuffer | null>(
      'ggml_backend_buffer *ggml_backend_alloc_ctx_tensors_from_buft(ggml_context *ctx, ggml_backend_buffer_type *buft)',
    ),
    ggml_backend_buffer_free: f<(buffer: GgmlBuffer) => void>('void ggml_backend_buffer_free(ggml_backend_buffer *buffer)'),
    ggml_backend_tensor_set: f<(t: GgmlTensor, data: ArrayBufferView, offset: number, size: number) => void>(
      'void ggml_backend_tensor_set(ggml_tensor *t, const void *data, size_t offset, size_t size)',
    ),
    ggml_backend_tensor_get: f<(t: GgmlTensor, data: ArrayBufferView, offset: number, size: number) => void>(
      'void ggml_backend_tensor_get(const ggml_tensor *t, _Out_ void *data, size_t offset, size_t size)',
    ),
    ggml_backend_graph_compute: f<((backend: GgmlBackend, graph: GgmlGraph) => number) & { async: (backend: GgmlBackend, graph: GgmlGraph, done: (error: unknown, status: number) => void) => void }>(
      'int ggml_backend_graph_compute(ggml_backend *backend, ggml_cgraph *graph)',
    ),
    ggml_gallocr_new: f<(type: GgmlBufferType) => GgmlAllocator>('ggml_gallocr *ggml_gallocr_new(ggml_backend_buffer_type *type)'),
    ggml_gallocr_free: f<(allocator: GgmlAllocator) => void>('void ggml_gallocr_free(ggml_gallocr *allocator)'),
    ggml_gallocr_alloc_graph: f<(allocator: GgmlAllocator, graph: GgmlGraph) => boolean>('bool ggml_gallocr_alloc_graph(ggml_gallocr *allocator, ggml_cgraph *graph)'),
    ggml_backend_reg_get_proc_address: f<(reg: NativePointer, name: string) => NativePointer | null>('void *ggml_backend_reg_get_proc_address(ggml_backend_reg *reg, const char *name)'),
    /** Calls a backend's ggml_backend_set_n_threads, found through its registry entry. */
    setThreads(pointer: NativePointer, backend: GgmlBackend, threads: number): void {
      koffi.call(pointer, setThreads, backend, threads);
    },
    GgmlInitParams,
  };
  return api;
}

export type GgmlApi = ReturnType<typeof bindGgmlApi>;

let bound: { path: string; api: GgmlApi } | undefined;

/** The ggml calls for the loaded libllama (bound once per process). */
export function ggmlApiFor(libllamaPath: string): GgmlApi {
  if (bound?.path !== libllamaPath) bound = { path: libllamaPath, api: bindGgmlApi(libllamaPath) };
  return bound.api;
}
