// The model's vocabulary as the grammar compiler sees it: each token's output bytes, control
// tokens as special (they never match text, only token nodes that name them) and the
// end-of-generation tokens as stop tokens (allowed only where a grammar can end).
import { TokenizerInfo } from '../../compiler/index.js';
import type { Vocabulary } from '../backend/vocabulary.js';

export function grammarVocabulary(vocabulary: Vocabulary, logitsWidth = vocabulary.size): TokenizerInfo {
  const special: number[] = [];
  for (let id = 0; id < vocabulary.size; id++) if (vocabulary.isControl(id)) special.push(id);
  return TokenizerInfo.fromTokenBytes({
    tokens: Array.from({ length: vocabulary.size }, (_, id) => vocabulary.piece(id).slice()),
    special,
    stop: vocabulary.endOfGeneration,
    logitsWidth,
    vocabType: 'llama.cpp',
  });
}
