// The whole answer (stream: false): a completion's chunks folded into one response. The stream
// (chunk-stream.ts) sends the same chunks, so the two cannot differ.
import type { RequestMeter } from '../telemetry/request-meter.js';
import { isUsageChunk, type ChunkFrame, type CompletionChunk } from './completion-chunk.js';
import { InterruptedGeneration } from './interrupted-generation.js';
import type { Usage } from './usage.js';

/** An endpoint's fold: chunks in, its response object out. */
export interface ChunkFold<Chunk> {
  add(chunk: Chunk): void;
  /** The response so far; a choice with no finish reason yet is given `error`. */
  response(usage: Usage): object;
}

/**
 * The response, or undefined when the client left before the end. An engine failure after
 * output began keeps that output, its unfinished choices ending with finish_reason `error`.
 */
export async function wholeResponse<Chunk extends CompletionChunk>(chunks: AsyncIterable<Chunk>, fold: ChunkFold<Chunk>, meter: RequestMeter): Promise<object | undefined> {
  let usage: Usage | undefined;
  try {
    for await (const chunk of chunks) {
      if (isUsageChunk(chunk)) usage = chunk.usage;
      else fold.add(chunk);
    }
  } catch (error) {
    if (!(error instanceof InterruptedGeneration)) throw error;
    // Its choices ended in error whether or not the answer keeps their output (else a 503).
    meter.choicesEnded(error.outcomes);
    if (!error.keepsPartialOutput) throw error;
    return fold.response(error.usage);
  }
  return usage && fold.response(usage);
}

/** The response both endpoints answer: the frame, each choice by index with its fields and its finish reason (`error` if it had none), the usage. */
export function responseOf<Choice extends { finish: string | undefined }>(frame: ChunkFrame, object: string, choices: readonly Choice[], fields: (choice: Choice) => object, usage: Usage): object {
  return { ...frame, object, choices: choices.map((choice, index) => ({ index, ...fields(choice), finish_reason: choice.finish ?? 'error' })), usage };
}
