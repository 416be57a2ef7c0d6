// What every streamed completion chunk (chat or text) has: the frame that names the completion,
// its choices, and, on the last one only, the usage.
import type { CompletionContext } from './completion-context.js';
import type { Usage } from './usage.js';

/** The fields every chunk and the whole response repeat. */
export interface ChunkFrame {
  id: string;
  created: number;
  model: string;
  system_fingerprint: string;
}

export interface CompletionChunk {
  choices: readonly { index: number }[];
  /** Only on the last chunk, which has no choices. */
  usage?: Usage;
}

export function chunkFrame(id: string, context: CompletionContext): ChunkFrame {
  return { id, created: Math.floor(Date.now() / 1000), model: context.modelId, system_fingerprint: context.fingerprint };
}

/** The last chunk of a completion that ran to its end, which every consumer needs for usage. */
export function isUsageChunk(chunk: CompletionChunk): chunk is CompletionChunk & { usage: Usage } {
  return chunk.usage !== undefined && chunk.choices.length === 0;
}
