// Logprobs as the legacy completions API writes them: four parallel lists, one entry per token.
// `top_logprobs` maps token text to logprob and always holds the sampled token (so it may have
// one more entry than asked for, as OpenAI's does); `text_offset` is where each token starts in
// the choice's text.
import type { TokenLogprob } from '../../engine/protocol.js';

export interface LegacyLogprobs {
  tokens: string[];
  token_logprobs: number[];
  top_logprobs: Record<string, number>[];
  text_offset: number[];
}

const wholeUtf8 = new TextDecoder('utf-8', { fatal: true });

/** A token's text; bytes that are not whole UTF-8 on their own are written `bytes:\xe2\x80` as OpenAI does. */
export function legacyTokenText(bytes: number[]): string {
  try {
    return wholeUtf8.decode(Uint8Array.from(bytes));
  } catch {
    return `bytes:${bytes.map((byte) => `\\x${byte.toString(16).padStart(2, '0')}`).join('')}`;
  }
}

export const emptyLegacyLogprobs = (): LegacyLogprobs => ({ tokens: [], token_logprobs: [], top_logprobs: [], text_offset: [] });

/**
 * The entries of tokens that added `text` to a choice whose text was `offset` characters long.
 * The tokens of one delta split its text by their bytes (a token whose bytes end inside a
 * character starts where that character does).
 */
export function legacyLogprobsOf(entries: readonly TokenLogprob[], offset: number, text: string): LegacyLogprobs {
  const out = emptyLegacyLogprobs();
  let bytesBefore: number[] = [];
  for (const entry of entries) {
    const charsBefore = Math.min(charactersIn(bytesBefore), text.length);
    out.tokens.push(legacyTokenText(entry.bytes));
    out.token_logprobs.push(entry.logprob);
    out.text_offset.push(offset + charsBefore);
    const top: Record<string, number> = {};
    for (const candidate of entry.top) top[legacyTokenText(candidate.bytes)] ??= candidate.logprob;
    top[legacyTokenText(entry.bytes)] ??= entry.logprob;
    out.top_logprobs.push(top);
    bytesBefore = bytesBefore.concat(entry.bytes);
  }
  return out;
}

/** Characters (UTF-16 units, as JavaScript counts them) of the whole characters in `bytes`. */
function charactersIn(bytes: number[]): number {
  let end = bytes.length;
  // Leave out a character the bytes only begin.
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back]!;
    if ((byte & 0xc0) === 0x80) continue;
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    if (length > back) end = bytes.length - back;
    break;
  }
  return Buffer.from(bytes.slice(0, end)).toString('utf8').length;
}

/** Appends `more` to `into` (a choice's lists grow chunk by chunk). */
export function appendLegacyLogprobs(into: LegacyLogprobs, more: LegacyLogprobs): void {
  into.tokens.push(...more.tokens);
  into.token_logprobs.push(...more.token_logprobs);
  into.top_logprobs.push(...more.top_logprobs);
  into.text_offset.push(...more.text_offset);
}
