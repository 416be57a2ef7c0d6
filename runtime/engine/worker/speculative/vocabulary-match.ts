// A draft model must share the target's vocabulary: its tokens are verified by id. This names
// the first difference, for the one line start-up prints when they differ.
import type { Vocabulary } from '../../../backend/vocabulary.js';

/** Where the draft's vocabulary differs from the target's; undefined when they are the same. */
export function vocabularyDifference(target: Vocabulary, draft: Vocabulary): string | undefined {
  if (target.size !== draft.size) return `it has ${draft.size} tokens, the model ${target.size}`;
  for (let id = 0; id < target.size; id++) {
    const a = target.text(id);
    const b = draft.text(id);
    if (a !== b) return `token ${id} is ${JSON.stringify(b)} in it, ${JSON.stringify(a)} in the model`;
  }
  return undefined;
}
