// Answers a completion with its chunks: streamed (stream: true) or folded into one JSON response.
import type { ServerResponse } from 'node:http';
import type { RequestMeter } from '../telemetry/request-meter.js';
import { streamChunks } from './chunk-stream.js';
import { jsonText } from './ordered-json.js';
import type { CompletionChunk } from './completion-chunk.js';
import { wholeResponse, type ChunkFold } from './whole-response.js';

export interface SendOptions<Chunk> {
  stream: boolean;
  /** stream_options.include_usage: the stream's last chunk carries the usage. */
  includeUsage: boolean;
  /** stream_options.include_obfuscation: every other chunk is padded to a random length. */
  obfuscate: boolean;
  /** How the whole response is built from the chunks. */
  fold: ChunkFold<Chunk>;
  meter: RequestMeter;
}

export async function sendCompletion<Chunk extends CompletionChunk>(res: ServerResponse, chunks: AsyncIterable<Chunk>, options: SendOptions<Chunk>): Promise<void> {
  if (options.stream) return streamChunks(res, chunks, options);
  const response = await wholeResponse(chunks, options.fold, options.meter);
  if (!response) return;
  const body = jsonText(response);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** Aborted when the client goes away: its generation is cancelled and its KV cells freed. */
export function abortWhenClosed(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}
