// Finds stop strings in text that arrives a token at a time, so that a stop never reaches the
// client even when it is spread over many tokens.
// Usage: per piece of detokenized text, `const { emit, stopped } = matcher.push(piece)`; send
// `emit`, finish with reason "stop" when `stopped`; if generation ends for another reason, send
// `matcher.flush()` too.
//
// Invariant: emitted text never ends with the beginning of a stop string (that suffix is held
// back), so a stop can only begin inside the held-back text or the new piece, and only those
// need searching; and the held-back text holds no whole stop string that counts, so only a stop
// that ends in the new piece is one.
//
// A piece pushed with `mayStop` false (vLLM's min_tokens: no stop until that many tokens) ends
// nothing: a stop string it completes is text. Its end is still held back where a stop may
// begin, so that a stop string begun there and completed by a later piece ends the output before
// it, as any other.
//
// A stop string in `kept` (vLLM's include_stop_str_in_output) is sent itself too, and only what
// follows it in the same piece is cut.
//
// Several stops: the one that completes first in the text wins (the earliest end; at equal ends
// the one starting earliest, i.e. the longest), and the output is cut where it starts. That is
// what a character-by-character stream would do, so the result never depends on how the text
// was split into tokens. E.g. stops ["abcd", "bc"] on "xabcd" give "xa": generation ends as
// soon as "bc" appears rather than waiting to see whether "abcd" will complete.

export interface StopPush {
  /** Text that is safe to send now. */
  emit: string;
  /** A stop string completed: `emit` is the text before it (and it, when kept), and nothing more will come. */
  stopped: boolean;
}

export class StopStringMatcher {
  readonly #stops: string[];
  #held = '';
  #stopped = false;

  constructor(
    stops: readonly string[],
    /** Of the stops, those sent themselves when they complete (vLLM's include_stop_str_in_output). */
    private readonly kept: ReadonlySet<string> = new Set(),
  ) {
    // An empty stop would match everywhere; OpenAI rejects it, here it is simply ignored.
    this.#stops = stops.filter((s) => s.length > 0);
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  push(text: string, mayStop = true): StopPush {
    if (this.#stopped) return { emit: '', stopped: true };
    if (this.#stops.length === 0) return { emit: text, stopped: false };
    const held = this.#held.length;
    const buffer = this.#held + text;

    let cut = -1;
    let cutEnd = Infinity;
    let winner = '';
    for (const stop of mayStop ? this.#stops : []) {
      // Only a stop that ends in the new piece (the held text's own ended nothing when pushed).
      const at = buffer.indexOf(stop, Math.max(0, held - stop.length + 1));
      if (at < 0) continue;
      const end = at + stop.length;
      if (end < cutEnd || (end === cutEnd && at < cut)) {
        cut = at;
        cutEnd = end;
        winner = stop;
      }
    }
    if (cut >= 0) {
      this.#stopped = true;
      this.#held = '';
      return { emit: buffer.slice(0, this.kept.has(winner) ? cutEnd : cut), stopped: true };
    }

    const keep = this.#partialStopLength(buffer);
    this.#held = buffer.slice(buffer.length - keep);
    return { emit: buffer.slice(0, buffer.length - keep), stopped: false };
  }

  /** The held-back text, at the end of a generation that did not stop on a stop string. */
  flush(): string {
    const rest = this.#held;
    this.#held = '';
    return rest;
  }

  /** Length of the longest suffix of `buffer` that is a proper prefix of some stop string. */
  #partialStopLength(buffer: string): number {
    let longest = 0;
    for (const stop of this.#stops) {
      for (let len = Math.min(stop.length - 1, buffer.length); len > longest; len--) {
        if (endsWithPrefix(buffer, stop, len)) {
          longest = len;
          break;
        }
      }
    }
    return longest;
  }
}

/** buffer.endsWith(stop.slice(0, len)) without building the slice (this runs every token). */
function endsWithPrefix(buffer: string, stop: string, len: number): boolean {
  const start = buffer.length - len;
  for (let k = 0; k < len; k++) {
    if (buffer.charCodeAt(start + k) !== stop.charCodeAt(k)) return false;
  }
  return true;
}
