// A vocabulary as the tokenizer readers (tokenizer.json, GGUF) hand it to TokenizerInfo.

export interface TokenBytesInput {
  /** Bytes of every token, by id. */
  tokens: Uint8Array[];
  /** Never matched by bytes (empty tokens are always special). */
  special?: Iterable<number>;
  /** End-of-generation tokens. */
  stop?: Iterable<number>;
  /** Width of the model's logits, when larger than the vocabulary. */
  logitsWidth?: number;
  /** Free-form label of where the bytes came from (part of the fingerprint). */
  vocabType?: string;
}
