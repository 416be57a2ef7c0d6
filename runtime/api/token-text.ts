// A token's text in logprobs, chat's and the legacy lists alike.
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
