// A model's vocabulary, read once into typed arrays: every token's raw bytes, its attributes,
// the end-of-generation set, and tokenization. Detokenizing a token is then a slice, not an FFI call.
import { TOKEN_ATTR, type LlamaApi, type VocabHandle } from './llama-api.js';
import { isMediaMarkerText } from './media-markers.js';

export class Vocabulary {
  readonly size: number;
  readonly bos: number;
  readonly eos: number;
  readonly addBos: boolean;
  /** Bytes each token contributes to generated text (control tokens: their text, e.g. "<|im_end|>"). */
  private readonly pieceBytes: Uint8Array;
  private readonly pieceStart: Uint32Array;
  readonly attributes: Int32Array;
  /** End-of-generation tokens (EOS, EOT, <|im_end|>, ...), sorted. */
  readonly endOfGeneration: Int32Array;
  /** The most bytes of text one token stands for: a text of more than this × N bytes has more than N tokens. */
  readonly longestPieceBytes: number;
  private readonly isEog: Uint8Array;
  /** User-defined tokens that mark an image, audio or video (media-markers.ts). */
  private readonly mediaMarkers = new Set<number>();

  private constructor(private readonly api: LlamaApi, private readonly handle: VocabHandle) {
    this.size = api.llama_vocab_n_tokens(handle);
    this.bos = api.llama_vocab_bos(handle);
    this.eos = api.llama_vocab_eos(handle);
    this.addBos = api.llama_vocab_get_add_bos(handle);
    this.attributes = new Int32Array(this.size);
    this.isEog = new Uint8Array(this.size);
    this.pieceStart = new Uint32Array(this.size + 1);
    const chunks: Uint8Array[] = [];
    const buffer = Buffer.alloc(256);
    let total = 0;
    const eog: number[] = [];
    for (let token = 0; token < this.size; token++) {
      this.attributes[token] = api.llama_vocab_get_attr(handle, token);
      if (api.llama_vocab_is_eog(handle, token)) {
        this.isEog[token] = 1;
        eog.push(token);
      }
      // Control tokens are written out as their text ("<|im_start|>"), as llama-server does: tool
      // formats built on special tokens can only be parsed from the output if they appear in it.
      const control = (this.attributes[token]! & TOKEN_ATTR.control) !== 0;
      const piece = this.readPiece(token, buffer, control);
      chunks.push(piece);
      this.pieceStart[token] = total;
      total += piece.length;
    }
    this.pieceStart[this.size] = total;
    this.longestPieceBytes = chunks.reduce((longest, piece) => Math.max(longest, piece.length), 1);
    this.pieceBytes = new Uint8Array(total);
    for (let token = 0; token < this.size; token++) this.pieceBytes.set(chunks[token]!, this.pieceStart[token]!);
    for (let token = 0; token < this.size; token++) {
      if (this.attributes[token]! & TOKEN_ATTR.userDefined && isMediaMarkerText(this.text(token))) this.mediaMarkers.add(token);
    }
    this.endOfGeneration = Int32Array.from(eog);
  }

  static read(api: LlamaApi, handle: VocabHandle): Vocabulary {
    return new Vocabulary(api, handle);
  }

  private readPiece(token: number, buffer: Buffer, special: boolean): Uint8Array {
    let n = this.api.llama_token_to_piece(this.handle, token, buffer, buffer.length, 0, special);
    if (n < 0) {
      const larger = Buffer.alloc(-n);
      n = this.api.llama_token_to_piece(this.handle, token, larger, larger.length, 0, special);
      return Uint8Array.prototype.slice.call(larger, 0, n);
    }
    return Uint8Array.prototype.slice.call(buffer, 0, n);
  }

  /** The bytes `token` adds to generated text: a view, valid as long as this vocabulary. */
  piece(token: number): Uint8Array {
    return this.pieceBytes.subarray(this.pieceStart[token]!, this.pieceStart[token + 1]!);
  }

  /** The token's text as it appears in a prompt (control tokens included), for templates and grammars. */
  text(token: number): string {
    return Buffer.from(this.piece(token)).toString('utf8');
  }

  isEndOfGeneration(token: number): boolean {
    return this.isEog[token] === 1;
  }

  isControl(token: number): boolean {
    return (this.attributes[token]! & TOKEN_ATTR.control) !== 0;
  }

  /** Whether the token is a user-defined image, audio or video marker (Gemma 3's <start_of_image>): markup, though typed as text. */
  isMediaMarker(token: number): boolean {
    return this.mediaMarkers.has(token);
  }

  /**
   * Tokenizes text. `addSpecial` adds BOS/EOS as the model wants; `parseSpecial` turns
   * control-token text such as "<|im_start|>" into those tokens (right for rendered templates).
   */
  tokenize(text: string, options: { addSpecial?: boolean; parseSpecial?: boolean } = {}): Int32Array {
    const bytes = Buffer.from(text, 'utf8');
    let out = new Int32Array(bytes.length + 8);
    let n = this.api.llama_tokenize(this.handle, bytes, bytes.length, out, out.length, options.addSpecial ?? false, options.parseSpecial ?? true);
    if (n < 0) {
      out = new Int32Array(-n);
      n = this.api.llama_tokenize(this.handle, bytes, bytes.length, out, out.length, options.addSpecial ?? false, options.parseSpecial ?? true);
    }
    if (n < 0) throw new Error(`tokenization failed for a text of ${bytes.length} bytes`);
    return out.slice(0, n);
  }

  /** Whole-sequence detokenization, for tests and logs (streaming uses pieces and a UTF-8 stream decoder). */
  detokenize(tokens: ArrayLike<number>): string {
    const parts: Uint8Array[] = [];
    for (let i = 0; i < tokens.length; i++) parts.push(this.piece(tokens[i]!));
    return Buffer.concat(parts).toString('utf8');
  }
}
