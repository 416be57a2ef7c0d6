// Vocabularies read from files (Node only; lmforge/grammar/node): a GGUF's own metadata, or a
// Hugging Face tokenizer.json with the tokenizer_config.json beside it.
//
//   const info = await tokenizerInfoFromGGUF('model.gguf');
//   const info = tokenizerInfoFromTokenizerJSONFile('tokenizer.json');
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readGGUFVocabulary } from './gguf-vocab.js';
import { TokenizerInfo } from './tokenizer-info.js';

/** Decodes the tokens from the GGUF's own metadata, as llama.cpp does. */
export async function tokenizerInfoFromGGUF(path: string, options: { logitsWidth?: number } = {}): Promise<TokenizerInfo> {
  return TokenizerInfo.fromTokenBytes({ ...(await readGGUFVocabulary(path)), ...options });
}

/** A tokenizer.json file; the EOS token named by a tokenizer_config.json beside it also stops. */
export function tokenizerInfoFromTokenizerJSONFile(path: string, options: { logitsWidth?: number } = {}): TokenizerInfo {
  const json = JSON.parse(readFileSync(path, 'utf8')) as object;
  const config = join(dirname(path), 'tokenizer_config.json');
  let eosText: string | undefined;
  if (existsSync(config)) {
    const eos = (JSON.parse(readFileSync(config, 'utf8')) as { eos_token?: string | { content?: string } }).eos_token;
    eosText = typeof eos === 'string' ? eos : eos?.content;
  }
  return TokenizerInfo.fromTokenizerJSON(json, { ...options, ...(eosText !== undefined ? { eosText } : {}) });
}
