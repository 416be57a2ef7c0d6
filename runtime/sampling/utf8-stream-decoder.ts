// Incremental detokenization: byte-level BPE tokens can end in the middle of a UTF-8 character,
// so token bytes are decoded as a stream and only complete characters are released.
// Usage: `text += decoder.push(tokenBytes)` per token, then `decoder.end()` when the output ends.
//
// WHATWG TextDecoder in streaming mode holds back an incomplete trailing sequence and replaces
// bytes that can never become valid at once, which is exactly the contract wanted; the tests
// pin that behaviour for every split of 2-, 3- and 4-byte characters.

export class Utf8StreamDecoder {
  readonly #decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

  /** Decodes the next bytes; returns only complete characters (possibly ''). */
  push(bytes: Uint8Array): string {
    return this.#decoder.decode(bytes, { stream: true });
  }

  /**
   * Ends the stream. An incomplete trailing sequence (output cut inside a character, by
   * max_tokens say) is dropped: it was never a character, and a U+FFFD in its place would be
   * text the model did not write. Ready for reuse after.
   */
  end(): void {
    this.#decoder.decode();
  }
}
