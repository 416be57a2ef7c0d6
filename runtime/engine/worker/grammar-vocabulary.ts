// The model's vocabulary as the grammar compiler sees it: each token's output bytes, control
// tokens as special (they never match text, only token nodes that name them) unless they are a
// tool-call family's text (protocol-tokens.ts), and the end-of-generation tokens as stop tokens
// (allowed only where a grammar can end). From the GGUF alone (compile-grammar --model), the
// same vocabulary, so that artifacts compiled for a model are found under its fingerprint.
import { TokenizerInfo } from '../../../compiler/index.js';
import { readGGUFVocabulary } from '../../../compiler/tokenizer/gguf-vocab.js';
import { isProtocolTokenText } from '../../chat-format/protocol-texts.js';
import type { Vocabulary } from '../../backend/vocabulary.js';
import { protocolTokens } from '../../chat-format/protocol-tokens.js';

export function grammarVocabulary(vocabulary: Vocabulary, logitsWidth = vocabulary.size): TokenizerInfo {
  const special: number[] = [];
  const protocol = protocolTokens(vocabulary);
  for (let id = 0; id < vocabulary.size; id++) if (vocabulary.isControl(id) && !protocol.has(id)) special.push(id);
  return TokenizerInfo.fromTokenBytes({
    tokens: Array.from({ length: vocabulary.size }, (_, id) => vocabulary.piece(id).slice()),
    special,
    stop: vocabulary.endOfGeneration,
    logitsWidth,
    vocabType: 'llama.cpp',
  });
}

export async function grammarVocabularyFromGGUF(path: string, logitsWidth?: number): Promise<TokenizerInfo> {
  const input = await readGGUFVocabulary(path);
  const text = new TextDecoder();
  // The GGUF reader's special tokens are llama.cpp's control tokens (end of generation aside).
  const special = [...(input.special ?? [])].filter((id) => !isProtocolTokenText(text.decode(input.tokens[id])));
  return TokenizerInfo.fromTokenBytes({ ...input, special, ...(logitsWidth !== undefined ? { logitsWidth } : {}) });
}
