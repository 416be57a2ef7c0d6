// Before the engine says it is ready, it decodes each shape of batch it will run on the chosen
// device: one token, a prompt chunk (as many tokens as llama.cpp computes in one graph: longer
// prompts run in parts that size) and a full batch (a token for every sequence). A backend
// that cannot run there (a CUDA build without code for the card) fails here, at start-up, as
// one clear line, instead of at the first request. The KV cells it wrote are cleared after.
import { UserFacingError } from '../../../compiler/lmforge-error.js';
import { Batch } from '../../backend/batch.js';
import { MICRO_BATCH_TOKENS, type LlamaContext } from '../../backend/context.js';
import { probeFailureLine, type ProbeTarget } from '../probe-failure.js';

export class ProbeError extends UserFacingError {
  override name = 'ProbeError';
}

export interface ProbeShape {
  name: string;
  /** Tokens per sequence, sequences. */
  tokens: number;
  sequences: number;
}

/** The shapes a context of this size runs (running sequences: `streams`). */
export function probeShapes(context: LlamaContext, streams: number, chunkTokens: number): ProbeShape[] {
  // A sequence of a per-sequence KV layout has only its share of the cells.
  const cellsPerSequence = context.unifiedKv ? context.contextSize : Math.floor(context.contextSize / context.sequences);
  const chunk = Math.min(MICRO_BATCH_TOKENS, chunkTokens, context.batchSize, cellsPerSequence);
  return [
    { name: 'one token', tokens: 1, sequences: 1 },
    { name: `a prompt chunk of ${chunk} tokens`, tokens: chunk, sequences: 1 },
    { name: `a full batch of ${streams} sequences`, tokens: 1, sequences: Math.min(streams, context.sequences, context.batchSize) },
  ];
}

/** Decodes every shape; throws ProbeError naming the shape, the device and the library. */
export async function runStartupProbe(context: LlamaContext, shapes: ProbeShape[], target: ProbeTarget, token: number): Promise<void> {
  const batch = new Batch(Math.max(...shapes.map((shape) => shape.tokens * shape.sequences)));
  try {
    for (const shape of shapes) {
      batch.clear();
      for (let sequence = 0; sequence < shape.sequences; sequence++) {
        for (let position = 0; position < shape.tokens; position++) batch.add(token, position, sequence, position === shape.tokens - 1);
      }
      try {
        await context.decode(batch);
      } catch (error) {
        throw new ProbeError(probeFailureLine(target, `decoding ${shape.name} failed: ${(error as Error).message}`));
      } finally {
        context.clear();
      }
    }
  } finally {
    batch.dispose();
  }
}
