// The vocabulary in the GGUF metadata: a tokenizer model llama.cpp knows, special token ids
// inside the vocabulary, and every byte writable (SentencePiece's <0xNN> tokens, or the 256
// byte characters of a byte-level BPE vocabulary), so that any text can be tokenized and
// any output byte generated.
import { ggufValue, type GGUFFile } from '../../../compiler/gguf/gguf-file.js';
import { byteFallback, byteLevelChar } from '../../../compiler/tokenizer/byte-unicode.js';
import { fail, ok, warn, type CheckLine } from './check-line.js';

/** Tokenizer models of the pinned llama.cpp (llama-vocab.cpp); those grammars read are marked. */
const TOKENIZER_MODELS = new Map<string, boolean>([
  ['llama', true], ['gpt2', true], ['gemma4', true], ['bert', false], ['t5', false], ['rwkv', false],
  ['plamo2', false], ['hybriddna', false], ['whitespace', false], ['no_vocab', false], ['none', false],
]);

const BYTE_TYPE = 6;
const SPECIAL_KEYS = ['bos', 'eos', 'eot', 'eom', 'unknown', 'padding', 'seperator'] as const;

export interface VocabularyFacts {
  tokens: readonly string[];
  /** Named special token ids found in the metadata (in range or not). */
  ids: Partial<Record<(typeof SPECIAL_KEYS)[number], number>>;
}

export function checkVocabulary(file: GGUFFile): { lines: CheckLine[]; facts?: VocabularyFacts } {
  const model = ggufValue(file, 'tokenizer.ggml.model');
  const tokens = ggufValue(file, 'tokenizer.ggml.tokens');
  if (typeof model !== 'string' || !Array.isArray(tokens) || tokens.length === 0) {
    return { lines: [fail('vocabulary', 'the GGUF has no tokenizer (tokenizer.ggml.model and tokenizer.ggml.tokens)', 'convert the model again with its tokenizer files beside it')] };
  }
  const texts = tokens as string[];
  const lines: CheckLine[] = [];
  const grammars = TOKENIZER_MODELS.get(model);
  if (grammars === undefined) {
    return { lines: [fail('vocabulary', `tokenizer model "${model}" is not one the pinned llama.cpp knows`, 'convert the model again with a current convert_hf_to_gguf.py')] };
  }
  const n = texts.length;
  const ids: VocabularyFacts['ids'] = {};
  for (const key of SPECIAL_KEYS) {
    const id = ggufValue(file, `tokenizer.ggml.${key}_token_id`);
    if (typeof id !== 'number') continue;
    ids[key] = id;
    if (!Number.isInteger(id) || id < 0 || id >= n) {
      lines.push(fail('vocabulary', `tokenizer.ggml.${key}_token_id is ${id}, outside the vocabulary of ${n} tokens`, `set it to the id of the model's ${key.toUpperCase()} token (gguf_set_metadata.py), or convert the model again`));
    }
  }
  if (ids.eos === undefined && ids.eot === undefined) {
    lines.push(warn('vocabulary', 'the GGUF names no EOS or EOT token: only the texts llama.cpp recognises (<|im_end|>, <end_of_turn>, ...) end generation', 'set tokenizer.ggml.eos_token_id'));
  }
  const types = ggufValue(file, 'tokenizer.ggml.token_type');
  if (Array.isArray(types) && types.length !== n) {
    lines.push(fail('vocabulary', `tokenizer.ggml.token_type has ${types.length} entries for ${n} tokens`, 'convert the model again'));
  }
  lines.push(byteCoverage(model, texts, Array.isArray(types) ? (types as number[]) : undefined));
  if (!grammars) lines.push(warn('vocabulary', `tokenizer model "${model}": structured outputs (response_format, tools) need a llama, gpt2 or gemma4 tokenizer`));
  if (lines.every((line) => line.status !== 'fail')) {
    const named = SPECIAL_KEYS.filter((key) => ids[key] !== undefined).map((key) => `${key.toUpperCase()} ${JSON.stringify(texts[ids[key]!])}`);
    lines.unshift(ok('vocabulary', `${n} tokens, tokenizer ${model}${named.length > 0 ? `; ${named.join(', ')}` : ''}`));
  }
  return { lines, facts: { tokens: texts, ids } };
}

/** Every byte has a token: a full set of <0xNN> byte tokens, or every byte character of byte-level BPE. */
function byteCoverage(model: string, texts: readonly string[], types: readonly number[] | undefined): CheckLine {
  if (model === 'gpt2') {
    const present = new Set(texts);
    // 0xC0, 0xC1 and 0xF5-0xFF never occur in UTF-8 text: vocabularies may leave them out.
    const missing = Array.from({ length: 256 }, (_, b) => b).filter((b) => !present.has(byteLevelChar(b)) && !NOT_IN_UTF8(b));
    return missing.length === 0
      ? ok('vocabulary', 'byte-level BPE: every byte of UTF-8 text has a token')
      : warn('vocabulary', `byte-level BPE without a token for ${missing.length} bytes (${missing.slice(0, 8).map(hex).join(', ')}${missing.length > 8 ? ', ...' : ''}): text holding them cannot be tokenized or generated exactly`);
  }
  const bytes = new Set<number>();
  texts.forEach((text, id) => {
    if (types === undefined || types[id] === BYTE_TYPE) {
      const b = byteFallback(text);
      if (b >= 0) bytes.add(b);
    }
  });
  if (bytes.size === 256) return ok('vocabulary', 'byte fallback: all 256 <0xNN> tokens');
  if (bytes.size === 0) return ok('vocabulary', 'no byte-fallback tokens (the tokenizer writes unknown text as its UNK token)');
  const missing = Array.from({ length: 256 }, (_, b) => b).filter((b) => !bytes.has(b));
  return warn('vocabulary', `byte fallback incomplete: no <0xNN> token for ${missing.length} bytes (${missing.slice(0, 8).map(hex).join(', ')}${missing.length > 8 ? ', ...' : ''})`, 'convert the model again from its tokenizer');
}

const NOT_IN_UTF8 = (b: number): boolean => b === 0xc0 || b === 0xc1 || b >= 0xf5;
const hex = (b: number): string => `0x${b.toString(16).padStart(2, '0').toUpperCase()}`;
