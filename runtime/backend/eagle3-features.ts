// EAGLE-3's two native halves, beside a target context and the draft's own: the target keeps
// the inputs of three of its layers for every token it decodes (llama_set_embeddings_layer_inp;
// layer id n_layer means its last pre-norm state, llama_set_embeddings_nextn), and the draft's
// encoder graph (`fc`, run by llama_encode) fuses each token's three into one vector g. The
// draft's decoder then runs as any llama.cpp decode, on a batch carrying a token and a vector
// per position (batch.ts), and leaves its own pre-norm state per output row, read here too.
import koffi from 'koffi';
import type { BatchStruct, LlamaExtensions, NativePointer } from './llama-api.js';
import type { LlamaContext } from './context.js';

export class Eagle3Features {
  /** Native input of the encoder: one ubatch of rows of 3 × target width floats. */
  private readonly input: unknown;
  private readonly inputView: Float32Array;
  private readonly encodeBatch: BatchStruct;
  /** g rows of the last encode() (draft width each). */
  fused: Float32Array;

  private constructor(
    private readonly ext: LlamaExtensions,
    private readonly target: LlamaContext,
    private readonly draft: LlamaContext,
    /** The target layers read, in the order the draft was trained on. */
    readonly layers: readonly number[],
    /** Rows one step can produce (the target's batch size). */
    readonly capacity: number,
  ) {
    const width = layers.length * target.model.info.embeddingLength;
    const rows = Math.min(capacity, draft.model.api.llama_n_ubatch(draft.handle));
    this.input = koffi.alloc('float', rows * width);
    this.inputView = new Float32Array(koffi.view(this.input, rows * width * 4));
    this.fused = new Float32Array(capacity * draft.model.info.embeddingLength);
    this.encodeBatch = { n_tokens: 0, token: null as unknown as NativePointer, embd: this.input as NativePointer, pos: null as unknown as NativePointer, n_seq_id: null as unknown as NativePointer, seq_id: null as unknown as NativePointer, logits: null as unknown as NativePointer };
  }

  /** Turns on the target's layer outputs the draft reads (its target_layers) and the draft's pre-norm state. */
  static create(ext: LlamaExtensions, target: LlamaContext, draft: LlamaContext): Eagle3Features {
    const count = ext.llama_model_target_layer_ids_n(draft.model.handle);
    const pointer = ext.llama_model_target_layer_ids(draft.model.handle);
    if (count === 0 || !pointer) throw new Error('the EAGLE-3 draft names no target layers');
    const layers = Array.from(new Int32Array(koffi.view(pointer, count * 4)));
    const targetLayers = target.model.info.layers;
    for (const layer of layers) {
      if (layer < targetLayers) ext.llama_set_embeddings_layer_inp(target.handle, layer, true);
      else ext.llama_set_embeddings_nextn(target.handle, true, false); // every token, not only those with logits
    }
    ext.llama_set_embeddings_nextn(draft.handle, true, true);
    return new Eagle3Features(ext, target, draft, layers, target.batchSize);
  }

  /** Width of a fused vector (the draft's n_embd). */
  get width(): number {
    return this.draft.model.info.embeddingLength;
  }

  /** Floats of one token's target features (3 × the target's width). */
  get featureWidth(): number {
    return this.layers.length * this.target.model.info.embeddingLength;
  }

  /**
   * Copies the target's layer inputs at batch rows `rows` of its last decode into `out`, one
   * feature row after another from row `at` on. They are gone once the target decodes again.
   */
  gather(rows: ArrayLike<number>, out: Float32Array, at: number): void {
    const targetWidth = this.target.model.info.embeddingLength;
    const rowWidth = this.featureWidth;
    let last = 0;
    for (let i = 0; i < rows.length; i++) last = Math.max(last, rows[i]!);
    this.layers.forEach((layer, k) => {
      const source = this.layerView(layer, (last + 1) * targetWidth);
      for (let i = 0; i < rows.length; i++) {
        const row = rows[i]!;
        out.set(source.subarray(row * targetWidth, (row + 1) * targetWidth), (at + i) * rowWidth + k * targetWidth);
      }
    });
  }

  /** Fuses `count` feature rows (as gather() leaves them) into g vectors, left in `fused`. */
  encode(features: Float32Array, count: number): void {
    const rowWidth = this.featureWidth;
    const width = this.width;
    if (this.fused.length < count * width) this.fused = new Float32Array(count * width);
    // The encoder graph takes at most one ubatch (llama_encode does not split it).
    const chunk = this.inputView.length / rowWidth;
    for (let from = 0; from < count; from += chunk) {
      const n = Math.min(chunk, count - from);
      this.inputView.set(features.subarray(from * rowWidth, (from + n) * rowWidth));
      this.encodeBatch.n_tokens = n;
      const status = this.draft.model.api.llama_encode(this.draft.handle, this.encodeBatch);
      if (status !== 0) throw new Error(`llama_encode (EAGLE-3 feature fusion) failed with status ${status}`);
      const out = this.ext.llama_get_embeddings_nextn(this.draft.handle) as unknown as bigint | null;
      if (!out) throw new Error('the EAGLE-3 encoder returned no fused features');
      this.fused.set(new Float32Array(koffi.view(out, n * width * 4)), from * width);
    }
  }

  /**
   * The draft decoder's pre-norm state at output row `row` of its last decode (rows count the
   * tokens that asked for logits, as LlamaContext.logits does): a view, valid until the next decode.
   */
  draftState(row: number): Float32Array {
    const pointer = this.ext.llama_get_embeddings_nextn(this.draft.handle) as unknown as bigint | null;
    if (!pointer) throw new Error(`the EAGLE-3 draft returned no state for row ${row}`);
    return new Float32Array(koffi.view(pointer, (row + 1) * this.width * 4)).subarray(row * this.width);
  }

  dispose(): void {
    koffi.free(this.input);
  }

  private layerView(layer: number, floats: number): Float32Array {
    const pointer = (layer < this.target.model.info.layers
      ? this.ext.llama_get_embeddings_layer_inp(this.target.handle, layer)
      : this.ext.llama_get_embeddings_nextn(this.target.handle)) as unknown as bigint | null;
    if (!pointer) throw new Error(`the target kept no input for layer ${layer}`);
    return new Float32Array(koffi.view(pointer, floats * 4));
  }
}
