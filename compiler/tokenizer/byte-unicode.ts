// The GPT-2 byte <-> unicode mapping of byte-level BPE vocabularies (GPT-2, Llama 3, Qwen):
// printable bytes stand for themselves, the other 68 bytes are shifted to U+0100 and up, so
// every byte string can be written as a token "text".

const byteOf = new Map<number, number>(); // code point -> byte
const charOf: string[] = []; // byte -> its character

{
  let n = 0;
  for (let b = 0; b < 256; b++) {
    const printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
    const point = printable ? b : 256 + n++;
    byteOf.set(point, b);
    charOf.push(String.fromCodePoint(point));
  }
}

/** The character a byte-level vocabulary writes a byte as. */
export function byteLevelChar(byte: number): string {
  return charOf[byte]!;
}

const utf8 = new TextEncoder();

/**
 * The bytes a byte-level token text stands for. A code point outside the mapping is kept the
 * way llama.cpp's `llama_decode_text` keeps it (`[UNK_BYTE_0x..<text>]`), so both agree.
 */
export function decodeByteLevel(text: string): Uint8Array {
  const out: number[] = [];
  for (const ch of text) {
    const b = byteOf.get(ch.codePointAt(0)!);
    if (b !== undefined) {
      out.push(b);
    } else {
      const hex = Array.from(utf8.encode(ch), (x) => x.toString(16).padStart(2, '0')).join('');
      out.push(...utf8.encode(`[UNK_BYTE_0x${hex}${text}]`));
    }
  }
  return Uint8Array.from(out);
}

/** `<0xNN>` byte-fallback token texts (SentencePiece and Gemma), else -1. */
export function byteFallback(text: string): number {
  const m = /^<0x([0-9A-Fa-f]{2})>$/.exec(text);
  return m ? parseInt(m[1]!, 16) : -1;
}

/** SentencePiece writes a space as U+2581. */
export function unescapeSpaces(text: string): Uint8Array {
  return utf8.encode(text.replaceAll('\u2581', ' '));
}
