// Medusa heads as a ggml graph of lmforge's own, computed by a ggml backend on the target's
// device: for each head k, r = h + SiLU(W_k h + b_k), logits = O_k r, and the argmax of each
// column, so only K × n token ids come back from the device. The weights are read from GGUF
// files (the heads', and the target's for a tied output projection) into one backend buffer,
// in their stored types: a quantized output matrix is multiplied as it is.
import { openSync, readSync, closeSync } from 'node:fs';
import type { Device } from './devices.js';
import { GGML_STATUS_SUCCESS, GGML_TYPE, type GgmlAllocator, type GgmlApi, type GgmlBackend, type GgmlBuffer, type GgmlContext, type GgmlTensor } from './ggml-api.js';
import type { LlamaApi, NativePointer } from './llama-api.js';

/** Where one tensor's data lies in a GGUF file. */
export interface TensorSource {
  path: string;
  /** Absolute byte offset of the data in the file. */
  offset: number;
  /** ggml type of the stored data. */
  type: number;
  /** ggml order: dims[0] is a matrix's input width. */
  dims: number[];
}

export interface MedusaWeights {
  /** Width of the hidden state the heads read (the target's n_embd). */
  embedding: number;
  /** Rows of the output projection: the vocabulary size. */
  vocabulary: number;
  heads: { fc: TensorSource; bias: TensorSource; output?: TensorSource }[];
  /** The output projection shared by every head (the target's own), when heads have none of their own. */
  sharedOutput?: TensorSource;
}

export class MedusaGraph {
  private readonly weightsContext: GgmlContext;
  private readonly weightsBuffer: GgmlBuffer;
  private readonly allocator: GgmlAllocator;
  private readonly tensors: { fc: GgmlTensor; bias: GgmlTensor; output: GgmlTensor }[];
  private readonly setThreads: NativePointer | null;
  private threadCount = -1;
  private disposed = false;
  private running: Promise<unknown> | undefined;

  private constructor(
    private readonly ggml: GgmlApi,
    private readonly backend: GgmlBackend,
    readonly weights: MedusaWeights,
    llama: LlamaApi,
    device: Device,
  ) {
    const count = weights.heads.length * 3 + 1;
    const context = ggml.ggml_init({ mem_size: ggml.ggml_tensor_overhead() * count, mem_buffer: null, no_alloc: true });
    if (!context) throw new Error('ggml_init failed for the Medusa weights');
    this.weightsContext = context;
    const create = (source: TensorSource): GgmlTensor => {
      const [ne0, ne1 = 1] = source.dims;
      return source.dims.length === 1 ? ggml.ggml_new_tensor_1d(context, source.type, ne0!) : ggml.ggml_new_tensor_2d(context, source.type, ne0!, ne1);
    };
    const shared = weights.sharedOutput ? create(weights.sharedOutput) : undefined;
    this.tensors = weights.heads.map((head) => ({ fc: create(head.fc), bias: create(head.bias), output: head.output ? create(head.output) : shared! }));
    const buffer = ggml.ggml_backend_alloc_ctx_tensors(context, backend);
    if (!buffer) throw new Error('could not allocate the Medusa weights on the device');
    this.weightsBuffer = buffer;
    const load = (tensor: GgmlTensor, source: TensorSource) => this.upload(tensor, source);
    weights.heads.forEach((head, k) => {
      const t = this.tensors[k]!;
      load(t.fc, head.fc);
      load(t.bias, head.bias);
      if (head.output) load(t.output, head.output);
    });
    if (shared && weights.sharedOutput) load(shared, weights.sharedOutput);
    this.allocator = ggml.ggml_gallocr_new(ggml.ggml_backend_get_default_buffer_type(backend));
    this.setThreads = ggml.ggml_backend_reg_get_proc_address(llama.ggml_backend_dev_backend_reg(device.handle), 'ggml_backend_set_n_threads');
  }

  /** Loads the weights onto `device` (a backend of its own, beside llama.cpp's). */
  static create(ggml: GgmlApi, llama: LlamaApi, device: Device, weights: MedusaWeights): MedusaGraph {
    const backend = ggml.ggml_backend_dev_init(device.handle, null);
    if (!backend) throw new Error(`ggml could not start a backend on ${device.name} for the Medusa heads`);
    try {
      return new MedusaGraph(ggml, backend, weights, llama, device);
    } catch (error) {
      ggml.ggml_backend_free(backend);
      throw error;
    }
  }

  get headCount(): number {
    return this.tensors.length;
  }

  /**
   * Each head's argmax token for each of the `columns` hidden states in `hidden` (column-major:
   * hidden state i at i × embedding), for the first `heads` heads. Result: head k's token for
   * column i at k × columns + i.
   */
  async argmax(hidden: Float32Array, columns: number, heads: number, threads: number): Promise<Int32Array> {
    const ggml = this.ggml;
    const { embedding } = this.weights;
    heads = Math.min(heads, this.tensors.length);
    const nodes = heads * 8 + 4;
    const context = ggml.ggml_init({ mem_size: ggml.ggml_tensor_overhead() * nodes + ggml.ggml_graph_overhead(), mem_buffer: null, no_alloc: true });
    if (!context) throw new Error('ggml_init failed for the Medusa graph');
    try {
      const input = ggml.ggml_new_tensor_2d(context, GGML_TYPE.f32, embedding, columns);
      ggml.ggml_set_input(input);
      const graph = ggml.ggml_new_graph(context);
      const residuals: GgmlTensor[] = [];
      for (let k = 0; k < heads; k++) {
        const t = this.tensors[k]!;
        const inner = ggml.ggml_silu(context, ggml.ggml_add(context, ggml.ggml_mul_mat(context, t.fc, input), t.bias));
        residuals.push(ggml.ggml_add(context, input, inner));
      }
      const outputs: GgmlTensor[] = [];
      if (this.weights.sharedOutput) {
        // One product for all heads: the output matrix (the largest weight by far) is read once.
        const all = residuals.reduce((joined, residual) => ggml.ggml_concat(context, joined, residual, 1));
        outputs.push(ggml.ggml_argmax(context, ggml.ggml_mul_mat(context, this.tensors[0]!.output, all)));
      } else {
        residuals.forEach((residual, k) => outputs.push(ggml.ggml_argmax(context, ggml.ggml_mul_mat(context, this.tensors[k]!.output, residual))));
      }
      for (const best of outputs) {
        ggml.ggml_set_output(best);
        ggml.ggml_build_forward_expand(graph, best);
      }
      if (!ggml.ggml_gallocr_alloc_graph(this.allocator, graph)) throw new Error('could not allocate the Medusa graph on the device');
      ggml.ggml_backend_tensor_set(input, hidden, 0, columns * embedding * 4);
      if (this.setThreads && threads !== this.threadCount) {
        ggml.setThreads(this.setThreads, this.backend, threads);
        this.threadCount = threads;
      }
      const status = await (this.running = new Promise<number>((resolve, reject) => {
        ggml.ggml_backend_graph_compute.async(this.backend, graph, (error, result) => (error ? reject(error) : resolve(result)));
      }).finally(() => (this.running = undefined)));
      if (status !== GGML_STATUS_SUCCESS) throw new Error(`the Medusa graph failed with ggml status ${status}`);
      // Head-major either way: head k's token for column i at k × columns + i.
      const result = new Int32Array(heads * columns);
      const per = (heads * columns) / outputs.length;
      outputs.forEach((best, k) => ggml.ggml_backend_tensor_get(best, result.subarray(k * per, (k + 1) * per), 0, per * 4));
      return result;
    } finally {
      ggml.ggml_free(context);
    }
  }

  /** Frees the weights and the backend, after any computation still running. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.running?.catch(() => undefined);
    this.ggml.ggml_gallocr_free(this.allocator);
    this.ggml.ggml_backend_buffer_free(this.weightsBuffer);
    this.ggml.ggml_free(this.weightsContext);
    this.ggml.ggml_backend_free(this.backend);
  }

  /** Copies a tensor's bytes from its file to the device, a few MiB at a time. */
  private upload(tensor: GgmlTensor, source: TensorSource): void {
    const size = this.ggml.ggml_nbytes(tensor);
    const chunk = Buffer.alloc(Math.min(size, 8 << 20));
    const fd = openSync(source.path, 'r');
    try {
      for (let done = 0; done < size; ) {
        const n = Math.min(chunk.length, size - done);
        const read = readSync(fd, chunk, 0, n, source.offset + done);
        if (read !== n) throw new Error(`${source.path}: tensor data ends early (${done + read} of ${size} bytes at offset ${source.offset})`);
        this.ggml.ggml_backend_tensor_set(tensor, chunk.subarray(0, n), done, n);
        done += n;
      }
    } finally {
      closeSync(fd);
    }
  }
}
