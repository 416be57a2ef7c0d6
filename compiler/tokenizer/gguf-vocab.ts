// A model's vocabulary read from GGUF metadata alone, decoded the way llama.cpp decodes it
// (llama-vocab.cpp: token types to attributes, the text-based end-of-generation and
// control-token detection, then `token_to_piece`, with control tokens written as their text
// as the backend's `Vocabulary.piece(id)` does), so the bytes, special set and stop set equal
// the server's vocabulary (runtime/engine/worker/grammar-vocabulary.ts) without the native library:
// artifacts compiled for a model are then found by the server under the same fingerprint.
import { ggufValue, readGGUF } from '../gguf/gguf-file.js';
import { GrammarError } from '../errors.js';
import { byteFallback, decodeByteLevel, unescapeSpaces } from './byte-unicode.js';
import { endIsText, EOG_TEXTS, RENDERED_TEXTS } from './eog-texts.js';
import type { TokenBytesInput } from './token-bytes-input.js';

// tokenizer.ggml.token_type values
const NORMAL = 1;
const UNKNOWN = 2;
const CONTROL = 3;
const USER_DEFINED = 4;
const BYTE = 6;

// Fill-in-the-middle markers found by text when the metadata names none: they become control
// tokens (decoding to nothing), and pad/repo/sep also end generation.
const FIM_TEXTS: Record<string, { key: string; eog: boolean; texts: string[] }> = {
  pre: { key: 'fim_pre', eog: false, texts: ['<|fim_prefix|>', '<fim-prefix>', '<fim_prefix>', '<｜fim▁begin｜>', '<PRE>', '▁<PRE>', '<|code_prefix|>', '<|prefix|>'] },
  suf: { key: 'fim_suf', eog: false, texts: ['<|fim_suffix|>', '<fim-suffix>', '<fim_suffix>', '<｜fim▁hole｜>', '<SUF>', '▁<SUF>', '<|code_suffix|>', '<|suffix|>'] },
  mid: { key: 'fim_mid', eog: false, texts: ['<|fim_middle|>', '<fim-middle>', '<fim_middle>', '<｜fim▁end｜>', '<MID>', '▁<MID>', '<|code_middle|>', '<|middle|>'] },
  pad: { key: 'fim_pad', eog: true, texts: ['<|fim_pad|>', '<fim-pad>', '<fim_pad>', '<PAD>', '[PAD]'] },
  rep: { key: 'fim_rep', eog: true, texts: ['<|fim_repo|>', '<|repo_name|>', '<fim-repo>', '<REPO>', '<reponame>'] },
  sep: { key: 'fim_sep', eog: true, texts: ['<|file_sep|>'] },
};

export async function readGGUFVocabulary(path: string): Promise<TokenBytesInput> {
  const file = await readGGUF(path);
  const model = ggufValue(file, 'tokenizer.ggml.model');
  const texts = ggufValue(file, 'tokenizer.ggml.tokens') as string[] | undefined;
  if (typeof model !== 'string' || !Array.isArray(texts)) throw new GrammarError(`${path}: no tokenizer in the GGUF metadata`);
  const types = (ggufValue(file, 'tokenizer.ggml.token_type') as number[] | undefined) ?? texts.map(() => NORMAL);
  const pre = ggufValue(file, 'tokenizer.ggml.pre');
  let decodeNormal: (text: string) => Uint8Array;
  if (model === 'llama' || model === 'gemma4' || pre === 'gemma4' || pre === 'sarvam-moe') decodeNormal = unescapeSpaces;
  else if (model === 'gpt2') decodeNormal = decodeByteLevel;
  else throw new GrammarError(`${path}: tokenizer model "${model}" is not supported (llama, gpt2 and gemma4 are)`);

  const n = texts.length;
  const type = Int32Array.from(types);
  const id = (key: string): number => {
    const v = ggufValue(file, `tokenizer.ggml.${key}_token_id`);
    return typeof v === 'number' && v >= 0 && v < n ? v : -1;
  };
  const byText = new Map<string, number>();
  texts.forEach((t, i) => byText.set(t, i));
  const eog = new Set<number>();
  const markControl = (i: number): void => {
    if (type[i] !== CONTROL) type[i] = CONTROL;
  };
  for (const fim of Object.values(FIM_TEXTS)) {
    let tok = id(fim.key);
    if (tok === -1) {
      tok = fim.texts.map((t) => byText.get(t) ?? -1).find((i) => i !== -1) ?? -1;
      if (tok !== -1) markControl(tok);
    }
    if (tok !== -1 && fim.eog) eog.add(tok);
  }
  if (id('eom') === -1 && byText.has('<|eom_id|>')) markControl(byText.get('<|eom_id|>')!);
  for (const [text, i] of byText) {
    if (EOG_TEXTS.has(text)) {
      eog.add(i);
      markControl(i);
    }
  }
  // gpt-oss: these are always rendered.
  for (const text of RENDERED_TEXTS) {
    const i = byText.get(text);
    if (i !== undefined) type[i] = USER_DEFINED;
  }
  const eos = id('eos') !== -1 ? id('eos') : model === 'llama' ? 2 : model === 'gpt2' && n > 11 ? 11 : -1;
  for (const special of [eos, id('eot'), id('eom')]) if (special !== -1) eog.add(special);
  const has = (t: string): boolean => [...eog].some((i) => texts[i] === t);
  if (endIsText(has)) {
    const end = byText.get('<|end|>')!;
    eog.delete(end);
    type[end] = USER_DEFINED;
  }
  if (has('<|tool_response>') && has('</s>')) {
    const s = byText.get('</s>')!;
    eog.delete(s);
    type[s] = NORMAL;
  }

  const tokens = new Array<Uint8Array>(n);
  const empty = new Uint8Array(0);
  const utf8 = new TextEncoder();
  for (let i = 0; i < n; i++) {
    const t = type[i]!;
    const text = texts[i]!;
    if (t === CONTROL) tokens[i] = utf8.encode(text); // the raw text: "<|im_end|>"
    else if (t === UNKNOWN) tokens[i] = empty;
    else if (t === USER_DEFINED) tokens[i] = utf8.encode(text);
    else if (t === NORMAL) tokens[i] = decodeNormal(text);
    else if (t === BYTE) tokens[i] = Uint8Array.of(byteFallback(text) & 0xff);
    else tokens[i] = empty; // unused and undefined tokens print nothing
  }
  const stop = [...eog].sort((a, b) => a - b);
  // Control tokens never match as text (token-level grammar nodes name them); empty tokens
  // are special anyway. End-of-generation tokens are stop tokens.
  const special: number[] = [];
  for (let i = 0; i < n; i++) if (type[i] === CONTROL && !eog.has(i)) special.push(i);
  return { tokens, special, stop, vocabType: 'llama.cpp' };
}
