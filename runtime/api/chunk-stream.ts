// The streamed answer (stream: true): a completion's chunks as server-sent events, as they come.
// The whole answer (whole-response.ts) folds the same chunks, so the two cannot differ.
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { RequestMeter } from '../telemetry/request-meter.js';
import { isUsageChunk, type CompletionChunk } from './completion-chunk.js';
import { InterruptedGeneration } from './interrupted-generation.js';
import { endEventStream, openEventStream, sendEvent } from './sse.js';

/**
 * The stream opens with the first chunk, so anything that fails before it is still an HTTP
 * error. An error after it is thrown on, to be answered as the stream's last event; the usage
 * chunk goes out only when the client asked for it (stream_options.include_usage), and then
 * every other chunk says `"usage": null`, as OpenAI's do (or the usage so far, with vLLM's
 * continuous_usage_stats).
 */
export async function streamChunks(res: ServerResponse, chunks: AsyncIterable<CompletionChunk>, options: { includeUsage: boolean; obfuscate: boolean; meter: RequestMeter }): Promise<void> {
  let opened = false;
  try {
    for await (const chunk of chunks) {
      const usage = isUsageChunk(chunk);
      if (usage && !options.includeUsage) continue;
      if (!opened) openEventStream(res);
      opened = true;
      // A chunk carries the usage so far only with continuous_usage_stats.
      const sent = options.includeUsage && !usage ? { ...chunk, usage: chunk.usage ?? null } : chunk;
      sendEvent(res, options.obfuscate && !usage ? { ...sent, obfuscation: padding() } : sent);
    }
  } catch (error) {
    // Its choices ended in error, as a last event or, before the stream opened, as an HTTP error.
    if (error instanceof InterruptedGeneration) options.meter.choicesEnded(error.outcomes);
    throw error;
  }
  // No chunk at all: the client left before the engine started, and nothing is to be answered.
  if (!opened && res.destroyed) return;
  if (!opened) openEventStream(res);
  endEventStream(res);
}

/**
 * OpenAI's stream obfuscation: a chunk's size tells an observer of encrypted traffic how long
 * its text is (a side channel on the tokens); random characters of random length, 1 to 48,
 * hide it.
 */
function padding(): string {
  const bytes = randomBytes(37);
  return bytes.subarray(1).toString('base64url').slice(0, 1 + (bytes[0]! % 48));
}
