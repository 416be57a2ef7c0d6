// A vocabulary from a Hugging Face `tokenizer.json` (byte-level BPE like Llama 3 and Qwen, or
// SentencePiece-style BPE with byte fallback like Gemma): each token's decoded bytes, special
// added tokens (kept with their text, as the GGUF path and the server keep control tokens, but
// never matched as text), and the end-of-generation tokens (the config's EOS plus the usual
// end-of-turn texts, as llama.cpp picks them), with llama.cpp's rules by text (eog-texts.ts):
// gpt-oss's Harmony markers are text, as the server's vocabulary has them. Reading the files is
// tokenizer-files.ts's part.
import { GrammarError } from '../errors.js';
import { byteFallback, decodeByteLevel, unescapeSpaces } from './byte-unicode.js';
import { endIsText, EOG_TEXTS, RENDERED_TEXTS } from './eog-texts.js';
import type { TokenBytesInput } from './token-bytes-input.js';

interface TokenizerJson {
  model?: { type?: string; vocab?: Record<string, number> | [string, number][] };
  added_tokens?: { id: number; content: string; special?: boolean }[];
  decoder?: { type?: string; decoders?: { type?: string }[] } | null;
}

/** `eosText`: the EOS token's text from tokenizer_config.json, when there is one. */
export function tokenBytesFromTokenizerJson(parsed: object, eosText?: string): TokenBytesInput {
  const json = parsed as TokenizerJson;
  const vocab = json.model?.vocab;
  if (!vocab) throw new GrammarError('tokenizer.json has no model.vocab');
  const entries: [string, number][] = Array.isArray(vocab) ? vocab.map(([t], i) => [t, i]) : Object.entries(vocab);
  const decoders = json.decoder?.type === 'Sequence' ? (json.decoder.decoders ?? []).map((d) => d.type) : [json.decoder?.type];
  const byteLevel = decoders.includes('ByteLevel');
  const fallback = decoders.includes('ByteFallback');
  if (!byteLevel && !decoders.includes('Replace')) {
    throw new GrammarError(`tokenizer.json decoder ${JSON.stringify(decoders)} is not supported (ByteLevel or Replace+ByteFallback are)`);
  }
  const added = json.added_tokens ?? [];
  let n = 0;
  for (const [, id] of entries) n = Math.max(n, id + 1);
  for (const a of added) n = Math.max(n, a.id + 1);
  const tokens = new Array<Uint8Array>(n).fill(new Uint8Array(0));
  for (const [text, id] of entries) {
    const b = fallback ? byteFallback(text) : -1;
    tokens[id] = b !== -1 ? Uint8Array.of(b) : byteLevel ? decodeByteLevel(text) : unescapeSpaces(text);
  }
  const utf8 = new TextEncoder();
  const stop = new Set<number>();
  const special = new Set<number>();
  for (const a of added) {
    tokens[a.id] = utf8.encode(a.content);
    if (a.special) {
      if (EOG_TEXTS.has(a.content) || a.content === eosText) stop.add(a.id);
      else special.add(a.id);
    }
  }
  // llama.cpp's rules by text: gpt-oss's Harmony markers are written as text (its tokenizer
  // marks them special, but a model's messages are made of them), <|end|> among them.
  const byText = new Map(added.map((a) => [a.content, a.id]));
  for (const text of RENDERED_TEXTS) special.delete(byText.get(text) ?? -1);
  if (endIsText((text) => stop.has(byText.get(text) ?? -1))) {
    stop.delete(byText.get('<|end|>')!);
    special.delete(byText.get('<|end|>')!);
  }
  for (let i = 0; i < n; i++) if (tokens[i]!.length === 0 && !stop.has(i)) special.add(i);
  return { tokens, special: [...special], stop: [...stop], vocabType: byteLevel ? 'byte_level' : 'byte_fallback' };
}
