// Logprobs as the legacy completions API writes them: four parallel lists, one entry per token.
// `top_logprobs` maps token text to logprob, most likely first (an OrderedObject: a plain
// object would list integer-like tokens first), and always holds the token itself (so it may
// have one more entry than asked for, as OpenAI's does); `text_offset` is where each token starts in
// the choice's text, in code points (Python's characters, as OpenAI's and vLLM's offsets count).
// An echoed prompt's first token has null for its logprob and its top list, as OpenAI's has.
import type { PromptTokenLogprob, TokenLogprob } from '../../engine/protocol.js';
import { OrderedObject } from '../ordered-json.js';
import { nameByText, type TokenNaming } from '../token-text.js';

export interface LegacyLogprobs {
  tokens: string[];
  token_logprobs: (number | null)[];
  top_logprobs: (OrderedObject | null)[];
  text_offset: number[];
}

export const emptyLegacyLogprobs = (): LegacyLogprobs => ({ tokens: [], token_logprobs: [], top_logprobs: [], text_offset: [] });

/** The legacy lists of tokens whose places in the choice's text are known; `name` names each token (by its text, or its id). */
export function legacyLogprobsOf(placed: readonly { entry: TokenLogprob; offset: number }[], name: TokenNaming = nameByText): LegacyLogprobs {
  const out = emptyLegacyLogprobs();
  for (const { entry, offset } of placed) {
    out.tokens.push(name(entry));
    out.token_logprobs.push(entry.logprob);
    out.text_offset.push(offset);
    out.top_logprobs.push(topOf(entry, name));
  }
  return out;
}

/**
 * The legacy lists of an echoed prompt's scored tokens, `top` alternatives each (the tokens may
 * carry more, for prompt_logprobs beside them). Each token is placed where its characters show in
 * the echoed text, or, where they do not (a BOS token the text does not hold), at the place the
 * text has reached.
 */
export function promptLegacyLogprobs(tokens: readonly PromptTokenLogprob[], echo: string, top: number, name: TokenNaming = nameByText): LegacyLogprobs {
  const text = [...echo];
  const characters = new TokenCharacters();
  const out = emptyLegacyLogprobs();
  let cursor = 0;
  for (const token of tokens) {
    const chars = characters.next(token.bytes);
    out.tokens.push(name(token));
    out.token_logprobs.push(token.logprob);
    out.text_offset.push(cursor);
    out.top_logprobs.push(token.logprob === null ? null : topOf({ ...token, logprob: token.logprob, top: token.top.slice(0, top) }, name));
    if (chars.length > 0 && chars.every((c, i) => text[cursor + i] === c)) cursor += chars.length;
  }
  return out;
}

/** A token's top list with the token itself; of two tokens named alike (the same text), the likelier one stays. */
function topOf(entry: TokenLogprob, name: TokenNaming): OrderedObject {
  const top = new Map<string, number>();
  for (const token of [...entry.top, entry]) {
    const text = name(token);
    if (!top.has(text)) top.set(text, token.logprob);
  }
  return new OrderedObject([...top]);
}

/** Characters as Python (OpenAI's and vLLM's clients) counts them: code points, not UTF-16 units. */
export const codePointsIn = (text: string): number => {
  let n = 0;
  for (const _ of text) n++;
  return n;
};

/** The characters (code points) each token's bytes complete: a token that ends inside a character leaves it to the next. */
export class TokenCharacters {
  private tail: number[] = [];

  next(bytes: readonly number[]): string[] {
    const all = this.tail.concat(bytes);
    const end = wholeCharactersEnd(all);
    this.tail = all.slice(end);
    return [...Buffer.from(all.slice(0, end)).toString('utf8')];
  }
}

/** How many of `bytes` make whole UTF-8 characters: all but a character they only begin. */
function wholeCharactersEnd(bytes: readonly number[]): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back]!;
    if ((byte & 0xc0) === 0x80) continue;
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return length > back ? bytes.length - back : bytes.length;
  }
  return bytes.length;
}

/** Appends `more` to `into` (a choice's lists grow chunk by chunk). */
export function appendLegacyLogprobs(into: LegacyLogprobs, more: LegacyLogprobs): void {
  into.tokens.push(...more.tokens);
  into.token_logprobs.push(...more.token_logprobs);
  into.top_logprobs.push(...more.top_logprobs);
  into.text_offset.push(...more.text_offset);
}
