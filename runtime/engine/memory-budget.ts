// How many KV cells fit: what llama.cpp and lmforge allocate for a configuration, and the
// memory they may take. Pure: the facts come in as numbers (engine-worker.ts reads them).
//
// Resident memory of `lmforge serve` on the CPU, measured (bench/memory.ts) and modelled as
//   weights                                      the GGUF tensors (mapped from the file)
// + KV cache      cells × kvBytesPerToken        K and V, f16, every layer
// + KQ mask       cells × n_ubatch × 2           f16 attention mask in llama.cpp's compute buffer
// + activations   n_ubatch × n_embd × 4 × 12     the rest of the compute buffer
// + logits        rows × vocab × 4               output buffer, plus its twin in the compute buffer,
//                                                each a row per output or sequence id, whichever is more
// + runtime       320 MiB                        Node.js, the JavaScript heaps, libraries, a request's peak
// On a GPU the first four live on the device, and a fixed reserve stands in for the runtime
// (CUDA context, cuBLAS workspace).

export interface MemoryFacts {
  /** True when the KV cache goes to GPU memory (gpu_memory_utilization of its free memory). */
  onDevice: boolean;
  /** All of the memory: a GPU's, or the host's RAM (or its cgroup limit). */
  totalBytes: number;
  /** Free now: a GPU's free memory, or the host's available memory. */
  availableBytes: number;
  /** Where the figures come from, for messages ("RAM", "cgroup memory.max", "cuda:0"). */
  source: string;
}

export interface ModelShape {
  kvBytesPerToken: number;
  modelBytes: number;
  vocabSize: number;
  embeddingLength: number;
}

/** Host memory lmforge takes besides llama.cpp's buffers (measured peak ~280 MiB with the default model). */
export const RUNTIME_BYTES = 320 * 2 ** 20;
/** GPU memory kept back for the driver and the libraries. */
export const DEVICE_RESERVE_BYTES = 512 * 2 ** 20;
/** Share of all host memory `--mode server` takes by default (weights, KV cache and buffers together). */
export const HOST_SERVER_SHARE = 0.4;
/** Share of all host memory left free in any mode, whatever is available. */
export const HOST_HEADROOM = 0.1;
/** The smallest KV cache worth starting with (llama.cpp pads its context to this many cells). */
export const MIN_KV_CELLS = 256;
/** llama.cpp's n_ubatch for a batch size: lmforge asks for min(512, batch). */
export const ubatchFor = (batchSize: number) => Math.min(512, batchSize);

/** Logit rows of llama.cpp's two buffers: for `outputs` rows a step, with `sequenceIds` sequence ids. */
export function logitRows(outputs: number, sequenceIds: number): number {
  // llama.cpp sizes its output buffer by whichever is larger, and the context's n_outputs_max must cover it.
  return 2 * Math.max(outputs, sequenceIds);
}

/** Bytes that do not grow with the KV cache, for `rows` logit rows (logitRows) and a ubatch of `ubatch` tokens. */
export function fixedBytes(shape: ModelShape, memory: MemoryFacts, rows: number, ubatch: number): number {
  const activations = ubatch * shape.embeddingLength * 4 * 12;
  const logits = rows * shape.vocabSize * 4;
  const runtime = memory.onDevice ? DEVICE_RESERVE_BYTES : RUNTIME_BYTES;
  return shape.modelBytes + activations + logits + runtime;
}

/** Bytes each KV cell costs: its K and V rows and its column of the attention mask. */
export function bytesPerCell(shape: ModelShape, ubatch: number): number {
  return shape.kvBytesPerToken + ubatch * 2;
}

export interface MemoryBudget {
  /** What this configuration may take in all. */
  bytes: number;
  /** How that was reached, for messages: "40% of 23.4 GiB total RAM". */
  why: string;
}

/**
 * Memory a mode may take. On a GPU: gpu_memory_utilization of its free memory. On the host,
 * `server` takes a share of all memory (gpu_memory_utilization when given, else 40%), and no
 * mode takes more than is available now less 10% of the total, so the system stays usable.
 */
export function memoryBudget(memory: MemoryFacts, server: boolean, utilization: number | undefined, defaultUtilization: number): MemoryBudget {
  if (memory.onDevice) {
    const share = utilization ?? defaultUtilization;
    return { bytes: memory.availableBytes * share, why: `${percent(share)} of ${gib(memory.availableBytes)} free on ${memory.source}` };
  }
  const headroom = memory.totalBytes * HOST_HEADROOM;
  const available = memory.availableBytes - headroom;
  const availableWhy = `${gib(memory.availableBytes)} available ${describeSource(memory)} less ${percent(HOST_HEADROOM)} of ${gib(memory.totalBytes)} kept free`;
  if (!server) return { bytes: available, why: availableWhy };
  const share = utilization ?? HOST_SERVER_SHARE;
  const ofTotal = memory.totalBytes * share;
  return ofTotal <= available
    ? { bytes: ofTotal, why: `${percent(share)} of ${gib(memory.totalBytes)} total ${describeSource(memory)}` }
    : { bytes: available, why: availableWhy };
}

/** Cells that fit in `budget` beside the fixed costs, rounded down to whole blocks of `block` cells. */
export function cellsThatFit(budget: number, shape: ModelShape, memory: MemoryFacts, sequences: number, ubatch: number, block = MIN_KV_CELLS): number {
  const room = budget - fixedBytes(shape, memory, sequences, ubatch);
  const cells = Math.floor(room / bytesPerCell(shape, ubatch));
  return cells <= 0 ? 0 : Math.floor(cells / block) * block;
}

/** Everything a configuration takes, in bytes. */
export function requiredBytes(cells: number, shape: ModelShape, memory: MemoryFacts, sequences: number, ubatch: number): number {
  return fixedBytes(shape, memory, sequences, ubatch) + cells * bytesPerCell(shape, ubatch);
}

function describeSource(memory: MemoryFacts): string {
  return memory.source === 'RAM' ? 'RAM' : `(${memory.source})`;
}

export function gib(bytes: number): string {
  if (bytes < 2 ** 20) return `${Math.round(bytes / 2 ** 10)} KiB`;
  if (bytes < 2 ** 30) return `${Math.round(bytes / 2 ** 20)} MiB`;
  return `${(bytes / 2 ** 30).toFixed(1)} GiB`;
}

function percent(fraction: number): string {
  return `${Math.round(fraction * 1000) / 10}%`;
}
