// A loaded model: weights on the chosen devices, its metadata and its vocabulary.
// Loading runs on a koffi worker thread, so the JavaScript thread keeps serving meanwhile.
import { SPLIT_MODE, type LlamaApi, type ModelHandle } from './llama-api.js';
import type { Device } from './devices.js';
import { Vocabulary } from './vocabulary.js';
import { UserFacingError } from '../../compiler/lmforge-error.js';

export interface ModelLoadOptions {
  path: string;
  /** Devices to place the model on; several means tensor parallelism across them. */
  devices: Device[];
  /** Load the vocabulary only (no weights): enough for tokenization and grammar work. */
  vocabOnly?: boolean;
}

export class ModelLoadError extends UserFacingError {
  override name = 'ModelLoadError';
}

export interface ModelInfo {
  architecture: string;
  description: string;
  /** Training context window, in tokens. */
  contextLength: number;
  /** Sliding-window size, or 0 when every layer sees the whole context. */
  slidingWindow: number;
  /** Whether some layers keep a recurrent state (Mamba, RWKV, hybrids) instead of per-position KV cells. */
  recurrent: boolean;
  layers: number;
  embeddingLength: number;
  heads: number;
  kvHeads: number;
  /** Size of one attention head's key and value vectors (GGUF key_length/value_length, else n_embd / n_head). */
  keyLength: number;
  valueLength: number;
  sizeBytes: number;
  parameters: number;
  chatTemplate: string | undefined;
  /** `tokenizer.chat_template.tool_use`: a second template some models carry, for requests with tools. */
  toolUseChatTemplate: string | undefined;
  metadata: ReadonlyMap<string, string>;
}

export class LlamaModel {
  private disposed = false;

  private constructor(
    readonly api: LlamaApi,
    readonly handle: ModelHandle,
    readonly info: ModelInfo,
    readonly vocabulary: Vocabulary,
    readonly devices: Device[],
  ) {}

  static async create(api: LlamaApi, options: ModelLoadOptions): Promise<LlamaModel> {
    const params = api.llama_model_default_params();
    const onGpu = options.devices.some((device) => device.kind !== 'cpu');
    params.devices = BigUint64Array.from([...options.devices.map((device) => BigInt(device.handle as unknown as bigint)), 0n]);
    params.n_gpu_layers = onGpu ? -1 : 0;
    params.vocab_only = options.vocabOnly ?? false;
    if (options.devices.length > 1) {
      params.split_mode = SPLIT_MODE.tensor;
      params.tensor_split = new Float32Array(api.llama_max_devices()).fill(0).map((_, i) => (i < options.devices.length ? 1 : 0));
    } else {
      params.split_mode = SPLIT_MODE.none;
    }
    const handle = await new Promise<ModelHandle | null>((resolve, reject) => {
      api.llama_model_load_from_file.async(options.path, params, (error, result) => (error ? reject(error) : resolve(result)));
    });
    if (!handle) {
      throw new ModelLoadError(`llama.cpp could not load ${options.path} (not a GGUF model, an unsupported architecture, or not enough memory); run with LMFORGE_LLAMA_LOG=1 for its log`);
    }
    return new LlamaModel(api, handle, readInfo(api, handle, options.vocabOnly ?? false), Vocabulary.read(api, api.llama_model_get_vocab(handle)), options.devices);
  }

  /**
   * Tokens a sliding-window layer attends to (llama_model_n_swa), or 0 when every layer sees the
   * whole context. Where it is not 0, a sequence's oldest KV cells may be gone, so a cached
   * prefix is only reusable under engine/worker/sliding-window.ts's rule.
   */
  get slidingWindow(): number {
    return this.info.slidingWindow;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.api.llama_model_free(this.handle);
  }

  [Symbol.dispose](): void {
    this.dispose();
  }
}

function readInfo(api: LlamaApi, handle: ModelHandle, vocabOnly: boolean): ModelInfo {
  const buffer = Buffer.alloc(1 << 16);
  const readString = (n: number) => (n < 0 ? '' : buffer.toString('utf8', 0, Math.min(n, buffer.length - 1)));
  const metadata = new Map<string, string>();
  const count = api.llama_model_meta_count(handle);
  for (let i = 0; i < count; i++) {
    const key = readString(api.llama_model_meta_key_by_index(handle, i, buffer, buffer.length));
    const value = readString(api.llama_model_meta_val_str_by_index(handle, i, buffer, buffer.length));
    metadata.set(key, value);
  }
  const architecture = metadata.get('general.architecture') ?? 'unknown';
  const embeddingLength = vocabOnly ? 0 : api.llama_model_n_embd(handle);
  const heads = vocabOnly ? 0 : api.llama_model_n_head(handle);
  // Gemma and others set the head size apart from n_embd / n_head (Gemma 3 270M: 256, not 160).
  const headLength = (key: string) => Number(metadata.get(`${architecture}.attention.${key}`)) || embeddingLength / Math.max(1, heads);
  return {
    architecture,
    description: readString(api.llama_model_desc(handle, buffer, buffer.length)),
    // A vocabulary-only model has no layers: llama.cpp aborts when asked for per-layer values.
    contextLength: vocabOnly ? 0 : api.llama_model_n_ctx_train(handle),
    slidingWindow: vocabOnly ? 0 : api.llama_model_n_swa(handle),
    recurrent: !vocabOnly && (api.llama_model_is_recurrent(handle) || api.llama_model_is_hybrid(handle)),
    layers: vocabOnly ? 0 : api.llama_model_n_layer(handle),
    embeddingLength,
    heads,
    kvHeads: vocabOnly ? 0 : api.llama_model_n_head_kv(handle),
    keyLength: headLength('key_length'),
    valueLength: headLength('value_length'),
    sizeBytes: Number(api.llama_model_size(handle)),
    parameters: Number(api.llama_model_n_params(handle)),
    chatTemplate: api.llama_model_chat_template(handle, null) ?? undefined,
    toolUseChatTemplate: api.llama_model_chat_template(handle, 'tool_use') ?? undefined,
    metadata,
  };
}

/** Bytes of KV cache one token takes in every layer (K and V, f16), for memory sizing. */
export function kvBytesPerToken(info: ModelInfo): number {
  return info.layers * info.kvHeads * (info.keyLength + info.valueLength) * 2;
}
