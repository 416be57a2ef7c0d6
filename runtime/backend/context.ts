// A llama.cpp context: the KV cache of every sequence, decode, and zero-copy logits. Its cache
// operations are the engine's KvOps (engine/worker/kv-manager.ts).
import koffi from 'koffi';
import type { BatchStruct, ContextHandle, LlamaApi, MemoryHandle } from './llama-api.js';
import type { SamplerHandle } from './sampler-api.js';
import { TOKEN_NULL } from './sampler-api.js';
import type { LlamaModel } from './model.js';
import type { Batch } from './batch.js';
import { CpuLoadSampler, usableCpus } from './cpu-load.js';
import { ThreadGovernor } from './thread-governor.js';

export interface ContextOptions {
  /** KV cells shared by all sequences (max_total_seq_length). */
  contextSize: number;
  /** Most tokens one decode call may carry (prefill chunk plus one token per running sequence). */
  batchSize: number;
  /** Sequence slots (max_num_sequence, plus room for the n choices of a request). */
  sequences: number;
  /** Logit rows one decode may ask for (at least one per sequence slot; more when drafts are verified). */
  outputs?: number;
  /** CPU threads (default: every CPU this process may use); with `adaptiveThreads`, the most it uses. */
  threads?: number;
  /**
   * Decode with fewer threads while other processes keep CPUs busy (thread-governor.ts).
   * Off by default: a count the caller gives is used as is. Ignored where the kernel's CPU
   * counters cannot be read (not Linux).
   */
  adaptiveThreads?: boolean;
  /** Replaces the governor built from `threads` and `adaptiveThreads` (tests inject the load they want). */
  threadGovernor?: ThreadGovernor;
  /**
   * Sliding-window models only: give SWA layers as many cells as the context (llama.cpp's
   * swa_full, and its default) instead of about window × sequences + batch. Cells out of the
   * window are then rarely reclaimed, so cached prefixes stay reusable, and cells two sequences
   * share (never reclaimed) cannot crowd out new tokens, at the cost of SWA layers' KV memory
   * (and attention over the larger cache). Default true.
   */
  fullSlidingWindowCache?: boolean;
  /**
   * One pool of cells for every sequence (default true): max_total_seq_length is a shared
   * budget and sequences share cells (the prefix cache, the n choices of a request). False
   * gives each sequence id a stream of contextSize / sequences cells of its own, where a
   * sequence's attention reads only its own cells; cells cannot be shared then, only copied
   * whole. On a CPU the shared pool costs every decode a pass over every sequence's cells
   * (bench/kv-streams.ts). The engine's --kv-layout chooses.
   */
  unifiedKv?: boolean;
  /**
   * The context this one reads from (llama.cpp's ctx_other): an EAGLE-3 draft without token
   * embeddings or an output matrix of its own uses the target's.
   */
  other?: LlamaContext;
}

function logThreadChange(threads: number, load: { cpus: number; othersCores: number }): void {
  process.stderr.write(`lmforge: decoding with ${threads} thread${threads === 1 ? '' : 's'}: other processes used ${load.othersCores.toFixed(2)} of ${load.cpus} CPUs\n`);
}

/** The most tokens llama.cpp computes in one graph (n_ubatch): larger batches run in parts this size. */
export const MICRO_BATCH_TOKENS = 512;

export class DecodeError extends Error {
  override name = 'DecodeError';
  constructor(readonly code: number) {
    super(
      code === 1
        ? 'llama_decode found no free KV cells for this batch'
        : `llama_decode failed with status ${code}`,
    );
  }
}

export class LlamaContext {
  private readonly memory: MemoryHandle;
  readonly vocabSize: number;
  private logitsPointer: bigint = 0n;
  private logitsView = new Float32Array(0);
  /** Whether logitsView was checked against llama.cpp's buffer since the last decode. */
  private logitsFresh = false;
  private decoding: Promise<void> | undefined;
  private hiddenStatesOn = false;
  private hiddenPointer: bigint = 0n;
  private hiddenView = new Float32Array(0);
  private disposed = false;
  /** Threads the next decode runs with (what llama_set_n_threads was last given). */
  private threadCount: number;

  private constructor(
    private readonly api: LlamaApi,
    readonly handle: ContextHandle,
    readonly model: LlamaModel,
    readonly contextSize: number,
    readonly batchSize: number,
    readonly sequences: number,
    /** One pool of cells for every sequence (else a stream per sequence id). */
    readonly unifiedKv: boolean,
    threads: number,
    /** Chooses the thread count before each decode; undefined when the count is fixed. */
    readonly threadGovernor: ThreadGovernor | undefined,
  ) {
    this.memory = api.llama_get_memory(handle);
    this.vocabSize = model.vocabulary.size;
    this.threadCount = threads;
  }

  static create(model: LlamaModel, options: ContextOptions): LlamaContext {
    const api = model.api;
    const params = api.llama_context_default_params();
    const threads = options.threadGovernor?.maxThreads ?? options.threads ?? usableCpus();
    let governor = options.threadGovernor;
    if (!governor && options.adaptiveThreads) {
      const sampler = CpuLoadSampler.create();
      if (sampler) {
        governor = new ThreadGovernor({
          maxThreads: threads,
          sample: () => sampler.sample(),
          reset: () => sampler.reset(),
          ...(process.env.LMFORGE_THREADS_LOG === '1' ? { onChange: logThreadChange } : {}),
        });
      }
    }
    params.n_ctx = options.contextSize;
    params.n_batch = options.batchSize;
    params.n_ubatch = Math.min(MICRO_BATCH_TOKENS, options.batchSize);
    params.n_seq_max = options.sequences;
    params.n_threads = threads;
    params.n_threads_batch = threads;
    // One pool of cells for every sequence (a shared budget), or n_ctx / n_seq_max cells for each.
    const unifiedKv = options.unifiedKv ?? true;
    params.kv_unified = unifiedKv;
    params.swa_full = options.fullSlidingWindowCache ?? true;
    // A step needs one output row per running sequence, plus one per draft token verified.
    // Left at 0, llama.cpp reserves logits for a whole ubatch (n_ubatch × vocabulary floats:
    // 96 MiB for a 49k vocabulary) in its compute buffer. The per-sequence limit applies only
    // to llama.cpp's own backend samplers, which lmforge does not use.
    params.n_outputs_max_per_seq = 1;
    // llama.cpp's output buffer holds a row per sequence id at least, and must fit in this.
    params.n_outputs_max = Math.max(options.outputs ?? 0, options.sequences);
    if (options.other) params.ctx_other = options.other.handle;
    const handle = api.llama_init_from_model(model.handle, params);
    if (!handle) {
      throw new Error(`llama.cpp could not create a context of ${options.contextSize} tokens for ${options.sequences} sequences (not enough memory?)`);
    }
    return new LlamaContext(api, handle, model, api.llama_n_ctx(handle), api.llama_n_batch(handle), api.llama_n_seq_max(handle), unifiedKv, threads, governor);
  }

  /** Threads the last decode ran with (or the next will, before the first). */
  get threads(): number {
    return this.threadCount;
  }

  /** Runs llama_decode on a koffi worker thread; the JavaScript thread stays free meanwhile. */
  decode(batch: Batch): Promise<void> {
    const struct = this.beforeDecode(batch);
    this.decoding = new Promise<void>((resolve, reject) => {
      this.api.llama_decode.async(this.handle, struct, (error, status) => {
        this.decoding = undefined;
        if (error) reject(error);
        else if (status !== 0) reject(new DecodeError(status));
        else resolve();
      });
    });
    return this.decoding;
  }

  /**
   * Runs llama_decode on this thread, which waits for it. For a caller with nothing to do
   * meanwhile: it spares the two thread hops of decode() (to a libuv thread and back), each a
   * point where a busy machine's scheduler can hand the CPU to another process.
   */
  decodeNow(batch: Batch): void {
    const status = this.api.llama_decode(this.handle, this.beforeDecode(batch));
    if (status !== 0) throw new DecodeError(status);
  }

  /** Waits until the device has finished the last decode (on a CPU it already has). */
  synchronize(): void {
    this.api.llama_synchronize(this.handle);
  }

  private beforeDecode(batch: Batch): BatchStruct {
    if (this.decoding) throw new Error('a decode is already running on this context');
    const struct = batch.toStruct();
    if (this.threadGovernor) {
      const threads = this.threadGovernor.threads();
      if (threads !== this.threadCount) {
        this.api.llama_set_n_threads(this.handle, threads, threads);
        this.threadCount = threads;
      }
    }
    this.logitsFresh = false;
    return struct;
  }

  /**
   * Logits of output row `row` of the last decode (rows count the tokens that asked for
   * logits, in batch order): a view into llama.cpp's buffer, valid until the next decode.
   */
  logits(row: number, outputs: number): Float32Array {
    const needed = outputs * this.vocabSize;
    if (!this.logitsFresh || this.logitsView.length < needed) {
      // One FFI call per step, not per sequence: the buffer only moves when a decode resizes it.
      const pointer = this.api.llama_get_logits(this.handle) as unknown as bigint | null;
      if (!pointer) throw new Error('no logits: the last decode asked for none');
      if (pointer !== this.logitsPointer || this.logitsView.length < needed) {
        this.logitsPointer = pointer;
        this.logitsView = new Float32Array(koffi.view(pointer, needed * 4));
      }
      this.logitsFresh = true;
    }
    return this.logitsView.subarray(row * this.vocabSize, (row + 1) * this.vocabSize);
  }

  /**
   * Samples a sequence id's logits in the graph with `chain` from the next decode on (null: its
   * logits come back instead). The chain must outlive its attachment. Returns false where
   * llama.cpp cannot run the chain there (it then keeps returning logits).
   */
  setSampler(sequence: number, chain: SamplerHandle | null): boolean {
    if (this.decoding) throw new Error('a decode is running on this context');
    return this.api.llama_set_sampler(this.handle, sequence, chain);
  }

  /** The token the graph chose for batch token `index` of the last decode (its sequence has a chain). */
  sampledToken(index: number): number {
    const token = this.api.llama_get_sampled_token_ith(this.handle, index);
    if (token === TOKEN_NULL) throw new Error(`the last decode sampled no token for batch token ${index}`);
    return token;
  }

  /**
   * What a chain's outputs link left for batch token `index` of the last decode
   * (backend/sampled-outputs-sampler.ts): `values`, the chosen token's log-probability then the
   * top candidates'; `ids`, those candidates' tokens (in no order). Undefined where the chain
   * left none (it asked for no logprobs). Copies.
   */
  sampledLogprobs(index: number): { values: number[]; ids: number[] } | undefined {
    const values = this.api.llama_get_sampled_logits_ith(this.handle, index);
    if (!values) return undefined;
    const count = this.api.llama_get_sampled_logits_count_ith(this.handle, index);
    const candidates = count > 1 ? this.api.llama_get_sampled_candidates_count_ith(this.handle, index) : 0;
    if (candidates !== count - 1) throw new Error(`the last decode left ${count} logprobs and ${candidates} candidates for batch token ${index}`);
    return {
      values: koffi.decode(values, 'float', count) as number[],
      ids: candidates > 0 ? (koffi.decode(this.api.llama_get_sampled_candidates_ith(this.handle, index), 'int32_t', candidates) as number[]) : [],
    };
  }

  /**
   * Whether the next decodes return hidden states too. llama.cpp then outputs every token of a
   * batch (it ignores the batch's logits flags), so only batches whose tokens all want logits
   * should be decoded with it on.
   */
  setHiddenStates(on: boolean): void {
    if (on === this.hiddenStatesOn) return;
    this.api.llama_set_embeddings(this.handle, on);
    this.hiddenStatesOn = on;
  }

  /**
   * The last hidden state (after the final norm) at output row `row` of the last decode, which
   * ran with hidden states on: a view into llama.cpp's buffer, valid until the next decode.
   */
  hiddenState(row: number, outputs: number): Float32Array {
    const width = this.model.info.embeddingLength;
    const pointer = this.api.llama_get_embeddings(this.handle) as unknown as bigint | null;
    if (!pointer) throw new Error('no hidden states: the last decode ran without them');
    if (pointer !== this.hiddenPointer || this.hiddenView.length < outputs * width) {
      this.hiddenPointer = pointer;
      this.hiddenView = new Float32Array(koffi.view(pointer, outputs * width * 4));
    }
    return this.hiddenView.subarray(row * width, (row + 1) * width);
  }

  /** Forgets positions [from, to) of a sequence (to = -1: to the end); frees cells no sequence holds. */
  remove(sequence: number, from = -1, to = -1): boolean {
    return this.api.llama_memory_seq_rm(this.memory, sequence, from, to);
  }

  /**
   * Gives `target` positions [from, to) of `source`'s cache: shared cells in the unified pool,
   * no data copied. With a stream per sequence llama.cpp copies only whole streams, so
   * `target`'s stream becomes a copy of `source`'s (before the next decode), trimmed at `to`:
   * `target` must hold nothing but positions [0, from) that `source` holds too.
   */
  copy(source: number, target: number, from = -1, to = -1): void {
    if (this.unifiedKv) {
      this.api.llama_memory_seq_cp(this.memory, source, target, from, to);
      return;
    }
    this.api.llama_memory_seq_cp(this.memory, source, target, -1, -1);
    if (to >= 0) this.api.llama_memory_seq_rm(this.memory, target, to, -1);
  }


  /** Largest position cached for a sequence, or -1 when it has none. */
  maxPosition(sequence: number): number {
    return this.api.llama_memory_seq_pos_max(this.memory, sequence);
  }

  /**
   * Smallest position still cached for a sequence, or -1 when it has none. Above 0 only on
   * sliding-window models, whose SWA cache reclaims cells that fell out of the window (an
   * iSWA cache answers from its SWA half: llama-kv-cache-iswa.cpp seq_pos_min).
   */
  minPosition(sequence: number): number {
    return this.api.llama_memory_seq_pos_min(this.memory, sequence);
  }

  clear(): void {
    this.api.llama_memory_clear(this.memory, true);
  }

  /** Frees the context, after any decode still running on it. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.decoding?.catch(() => undefined);
    this.api.llama_free(this.handle);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose();
  }
}
