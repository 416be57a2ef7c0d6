// A reusable llama_batch whose arrays live in native memory we own and are filled through
// typed-array views: building a step's batch is plain array writes, with no FFI call per token.
import koffi from 'koffi';
import type { BatchStruct, NativePointer } from './llama-api.js';

export class Batch {
  readonly capacity: number;
  readonly tokens: Int32Array;
  readonly positions: Int32Array;
  /** One sequence id per token (lmforge never puts a token in several sequences at once). */
  readonly sequences: Int32Array;
  /** 1 where llama.cpp must return logits for that token. */
  readonly wantLogits: Int8Array;
  /** Number of tokens written so far in this step. */
  length = 0;
  /** Number of tokens with logits requested so far: the next output row. */
  outputs = 0;
  /**
   * Per-token input vectors beside the tokens (EAGLE-3's decoder reads both), `width` floats
   * per token; empty unless the batch was made with a width.
   */
  readonly embeddings: Float32Array;
  private readonly memory: { pointer: unknown }[] = [];
  private readonly struct: BatchStruct;

  constructor(capacity: number, embeddingWidth = 0) {
    this.capacity = capacity;
    const tokenPtr = this.alloc('int32_t', capacity);
    const posPtr = this.alloc('int32_t', capacity);
    const nSeqPtr = this.alloc('int32_t', capacity);
    const seqRowsPtr = this.alloc('int32_t', capacity);
    const seqPtrsPtr = this.alloc('void *', capacity);
    const logitsPtr = this.alloc('int8_t', capacity);
    this.tokens = new Int32Array(koffi.view(tokenPtr, capacity * 4));
    this.positions = new Int32Array(koffi.view(posPtr, capacity * 4));
    this.sequences = new Int32Array(koffi.view(seqRowsPtr, capacity * 4));
    this.wantLogits = new Int8Array(koffi.view(logitsPtr, capacity));
    const embdPtr = embeddingWidth > 0 ? this.alloc('float', capacity * embeddingWidth) : null;
    this.embeddings = embdPtr ? new Float32Array(koffi.view(embdPtr, capacity * embeddingWidth * 4)) : new Float32Array(0);
    new Int32Array(koffi.view(nSeqPtr, capacity * 4)).fill(1);
    // seq_id[i] points at sequences[i]: each token's list of sequence ids has length one.
    const rows = new BigUint64Array(koffi.view(seqPtrsPtr, capacity * 8));
    const base = BigInt(koffi.address(seqRowsPtr));
    for (let i = 0; i < capacity; i++) rows[i] = base + BigInt(i * 4);
    this.struct = {
      n_tokens: 0,
      token: tokenPtr as NativePointer,
      embd: embdPtr as NativePointer | null,
      pos: posPtr as NativePointer,
      n_seq_id: nSeqPtr as NativePointer,
      seq_id: seqPtrsPtr as NativePointer,
      logits: logitsPtr as NativePointer,
    };
  }

  private alloc(type: string, count: number): unknown {
    const pointer = koffi.alloc(type, count);
    this.memory.push({ pointer });
    return pointer;
  }

  clear(): void {
    this.length = 0;
    this.outputs = 0;
  }

  /** Appends one token; returns its output row when logits were asked for, else -1. */
  add(token: number, position: number, sequence: number, logits: boolean): number {
    const i = this.length;
    if (i >= this.capacity) throw new RangeError(`batch capacity ${this.capacity} exceeded`);
    this.tokens[i] = token;
    this.positions[i] = position;
    this.sequences[i] = sequence;
    this.wantLogits[i] = logits ? 1 : 0;
    this.length = i + 1;
    return logits ? this.outputs++ : -1;
  }

  /** The struct to pass by value to llama_decode, sized to what was added. */
  toStruct(): BatchStruct {
    this.struct.n_tokens = this.length;
    return this.struct;
  }

  dispose(): void {
    for (const block of this.memory.splice(0)) koffi.free(block.pointer);
  }
}
