// A worker thread that computes token masks for some states of compiled grammars and sends
// them back as artifacts (see mask-workers.ts). It stays alive between jobs (a warm JIT and
// the last vocabulary kept are most of its speed).
import { parentPort } from 'node:worker_threads';
import { deserializeCompiledGrammar, serializeCompiledGrammar } from '../artifact.js';
import { TokenizerInfo } from '../tokenizer/tokenizer-info.js';
import { threadChannel } from '../workers/message-channel.js';

export interface MaskJob {
  id: number;
  artifact: Uint8Array;
  /** The vocabulary's cache form, or null when it is the one of the previous job. */
  vocabulary: Uint8Array | null;
  fingerprint: string;
  states: Int32Array;
}

export type MaskResult = { id: number; artifact: Uint8Array } | { id: number; error: string };

if (!parentPort) throw new Error('mask-worker.ts runs only as a worker thread');
const pool = threadChannel<MaskJob, MaskResult>(parentPort);
let vocabulary: TokenizerInfo | null = null;

pool.on((job) => {
  let result: MaskResult;
  try {
    if (job.vocabulary) vocabulary = TokenizerInfo.fromCacheBytes(job.vocabulary);
    if (!vocabulary || vocabulary.fingerprint !== job.fingerprint) throw new Error('the mask worker has another vocabulary');
    const compiled = deserializeCompiledGrammar(job.artifact, vocabulary);
    for (const state of job.states) compiled.masks!.get(state);
    result = { id: job.id, artifact: serializeCompiledGrammar(compiled) };
  } catch (error) {
    result = { id: job.id, error: error instanceof Error ? error.message : String(error) };
  }
  pool.post(result, 'artifact' in result ? [result.artifact.buffer as ArrayBuffer] : []);
});
