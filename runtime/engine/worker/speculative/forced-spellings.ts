// How the model spelt text a grammar forced. Under a mask, a model that does not expect a key
// spells it in fragments of its own ("m" "ete" "o" "ro" "l" "og" … for
// "meteorological_station_identifier", where the tokenizer would write "met" "eor" "ological"),
// so drafting the tokenizer's split is rejected at the first token. The model writes the same
// fragments again when the same schema forces the same text in the next request, so the tokens
// that spelt each forced text are remembered by that text and drafted the next time.
// Measured on SmolLM2-135M with bench:speculative's schema: the tokenizer's split was accepted
// for 13% of forced tokens, and two different prompts spelt each key alike.

/** The longest spelling remembered, in tokens. */
export const SPELLING_LENGTH = 16;

export class ForcedSpellings {
  /** Forced text → the tokens that last spelt it; Map order is recency. */
  private readonly spellings = new Map<string, number[]>();

  constructor(private readonly capacity = 4096) {}

  get size(): number {
    return this.spellings.size;
  }

  /** The tokens that last spelt `text`, if any. */
  recall(text: string): readonly number[] | undefined {
    const tokens = this.spellings.get(text);
    if (tokens === undefined) return undefined;
    this.spellings.delete(text);
    this.spellings.set(text, tokens);
    return tokens;
  }

  /** Keeps a longer spelling that `tokens` (written so far) agrees with. */
  remember(text: string, tokens: readonly number[]): void {
    if (tokens.length === 0) return;
    const known = this.spellings.get(text);
    if (known !== undefined && known.length > tokens.length && tokens.every((token, i) => token === known[i])) return;
    this.spellings.delete(text);
    this.spellings.set(text, tokens.slice(0, SPELLING_LENGTH));
    if (this.spellings.size > this.capacity) this.spellings.delete(this.spellings.keys().next().value!);
  }
}

/** Forced texts a sequence has met and where, until the sequence has spelt each. */
export class SpellingWatch {
  private readonly pending: { at: number; text: Uint8Array }[] = [];

  /** `text` is forced from token index `at` of the sequence. */
  watch(at: number, text: string): void {
    if (this.pending.length >= SPELLING_LENGTH) this.pending.shift();
    this.pending.push({ at, text: encoder.encode(text) });
  }

  /**
   * Records in `spellings` the tokens the sequence has written so far to spell each watched
   * text (up to the token that reaches its end, which may run on past it), and likewise each
   * rest of the text its first tokens left: the texts forced at the next positions, which a
   * later request reaches when it accepts a draft and skips them. What follows a forced text
   * is the model's free choice, not remembered.
   */
  update(tokens: readonly number[], spellings: ForcedSpellings, piece: (token: number) => Uint8Array): void {
    let kept = 0;
    for (const entry of this.pending) {
      const written = tokens.slice(entry.at, entry.at + SPELLING_LENGTH);
      const starts: number[] = [];
      let consumed = 0;
      while (starts.length < written.length && consumed < entry.text.length) {
        const bytes = piece(written[starts.length]!);
        if (!startsWithAt(entry.text, consumed, bytes)) break;
        starts.push(consumed);
        consumed += bytes.length;
      }
      const spelt = written.slice(0, starts.length);
      starts.forEach((start, k) => spellings.remember(decoder.decode(entry.text.subarray(start)), spelt.slice(k)));
      const done = consumed >= entry.text.length || starts.length < written.length || written.length === SPELLING_LENGTH;
      if (!done) this.pending[kept++] = entry;
    }
    this.pending.length = kept;
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Whether `text` holds `bytes` from offset `at` (or holds a prefix of `bytes` up to its end). */
function startsWithAt(text: Uint8Array, at: number, bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, text.length - at);
  for (let i = 0; i < n; i++) if (text[at + i] !== bytes[i]) return false;
  return true;
}
