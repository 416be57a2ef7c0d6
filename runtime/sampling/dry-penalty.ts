// DRY ("don't repeat yourself", as llama.cpp and koboldcpp define it): a token that would extend
// a repeat of what came before is penalised by multiplier · base^(length - allowed length).
//
// Over the window h (the last tokens of prompt and output), a repeat ending at an earlier
// position p is the longest common suffix of h[..p] and the whole window; the token that followed
// it there, h[p + 1], is the one that would continue it now. Each token takes the longest repeat
// it would continue, and is penalised when that reaches the allowed length. A repeat never
// extends back across a sequence breaker: the tokens after the last breaker token bound every
// match, and a breaker token itself is never penalised.
//
// All suffix matches come from one Z-function over the reversed window: O(window) per step.

/** The penalty's exponent is capped so that base^exponent stays below float32's largest value, as in llama.cpp. */
const FLOAT32_MAX_LOG = 88.7228391;

export interface DrySettings {
  multiplier: number;
  base: number;
  allowedLength: number;
}

export class DryPenalty {
  #z = new Int32Array(0);
  readonly #longest = new Map<number, number>();
  readonly #maxExponent: number;

  /** `breakers[token]` is 1 for a token whose text contains a sequence breaker. */
  constructor(
    private readonly settings: DrySettings,
    private readonly breakers: Uint8Array,
  ) {
    this.#maxExponent = settings.base > 1.000001 ? Math.trunc(FLOAT32_MAX_LOG / Math.log(settings.base)) : 0;
  }

  /**
   * Each token the window `history[start, end)` penalises, once, with the amount to subtract
   * from its logit (the host path subtracts them; sampling in the graph uploads them).
   */
  penalties(history: ArrayLike<number>, start: number, end: number, emit: (token: number, amount: number) => void): void {
    const { allowedLength, multiplier, base } = this.settings;
    const length = end - start;
    if (length <= allowedLength) return;
    // Tokens after the most recent breaker: no repeat may be longer.
    let limit = length;
    for (let i = 0; i < length; i++) {
      if (this.breakers[history[end - 1 - i]!]) {
        limit = i;
        break;
      }
    }
    if (limit < allowedLength) return;

    // z[k]: longest common prefix of the reversed window s (s[j] = history[end - 1 - j]) and s[k..],
    // i.e. the longest common suffix of the window and the window ending k tokens earlier.
    if (this.#z.length < length) this.#z = new Int32Array(Math.max(length, 2 * this.#z.length));
    const z = this.#z;
    const at = (j: number) => history[end - 1 - j]!;
    let left = 0;
    let right = 0;
    for (let k = 1; k < length; k++) {
      let match = k < right ? Math.min(right - k, z[k - left]!) : 0;
      while (k + match < length && at(match) === at(k + match)) match++;
      z[k] = match;
      if (k + match > right) {
        left = k;
        right = k + match;
      }
    }

    const longest = this.#longest;
    longest.clear();
    for (let k = 1; k < length; k++) {
      const repeat = Math.min(z[k]!, limit);
      if (repeat < allowedLength) continue;
      const next = at(k - 1); // the token that followed the earlier occurrence
      if (repeat > (longest.get(next) ?? -1)) longest.set(next, repeat);
    }
    for (const [token, repeat] of longest) {
      if (this.breakers[token]) continue;
      let exponent = repeat - allowedLength;
      if (this.#maxExponent > 0 && exponent > this.#maxExponent) exponent = this.#maxExponent;
      emit(token, multiplier * base ** exponent);
    }
  }
}

/** Marks the tokens whose text (UTF-8 bytes) contains any of `breakers`. */
export function breakerTokens(size: number, piece: (token: number) => Uint8Array, breakers: readonly string[]): Uint8Array {
  const marks = new Uint8Array(size);
  const needles = breakers.map((breaker) => Buffer.from(breaker, 'utf8'));
  if (needles.length === 0) return marks;
  for (let token = 0; token < size; token++) {
    const bytes = Buffer.from(piece(token));
    if (needles.some((needle) => bytes.includes(needle))) marks[token] = 1;
  }
  return marks;
}
