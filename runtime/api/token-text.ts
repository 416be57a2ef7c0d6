// A token's text in logprobs, chat's and the legacy lists alike, or its id where the request asks.
const wholeUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The token's bytes as text; bytes that are not whole UTF-8 on their own (a piece of a
 * character) are written `bytes:\xe2\x80`, as OpenAI writes them, where U+FFFD would lose them.
 */
export function tokenText(bytes: readonly number[]): string {
  try {
    return wholeUtf8.decode(Uint8Array.from(bytes));
  } catch {
    return `bytes:${bytes.map((byte) => `\\x${byte.toString(16).padStart(2, '0')}`).join('')}`;
  }
}

/** How logprobs name a token: by its text (OpenAI's), or by its id (vLLM's return_tokens_as_token_ids). */
export type TokenNaming = (token: { token: number; bytes: readonly number[] }) => string;

export const nameByText: TokenNaming = (token) => tokenText(token.bytes);

/** vLLM's `token_id:42`: the exact token, where several share a text or a text is part of a character. */
export const nameById: TokenNaming = (token) => `token_id:${token.token}`;
