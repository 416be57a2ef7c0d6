// The grammar compile worker: front end and automata for a request's output format, off the
// HTTP and engine threads, so a slow or hostile grammar delays nobody but its own request.
// Given the model's vocabulary it also computes the format's first token mask, which goes in
// the artifact: for a large format (a long enum) that mask costs as much as the compile, and
// here it counts against the format's deadline instead of stalling every sequence the engine
// decodes. Later masks are computed lazily by the engine, per state.
// It runs one job at a time (grammar-pool.ts hands out one per worker).
import { getHeapStatistics } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import { GrammarCompiler, GrammarError, GrammarMatcher, TokenizerInfo, serializeCompiledGrammar } from '../../compiler/index.js';
import { LmforgeError } from '../../compiler/lmforge-error.js';
import { threadChannel } from '../../compiler/workers/message-channel.js';
import { grammarFromSpec, type GrammarSpec, specVocabularyOf } from './grammar-spec.js';

export interface GrammarJob {
  id: number;
  spec: GrammarSpec;
}

export type GrammarWorkerMessage =
  | { type: 'ready' }
  | { type: 'compiled'; id: number; artifact: Uint8Array; heapBytes: number }
  | { type: 'failed'; id: number; message: string; pointer: string | undefined; userFacing: boolean; heapBytes: number };

if (!parentPort) throw new Error('grammar-worker.ts runs only as a worker thread');
const pool = threadChannel<GrammarJob, GrammarWorkerMessage>(parentPort);

const data = workerData as { tokenTexts?: string[]; vocabulary?: Uint8Array } | undefined;
// No cache of its own: the service caches artifacts by spec, and a worker that kept every grammar
// it compiled would grow with each distinct schema for the server's lifetime.
const vocabulary = data?.vocabulary ? TokenizerInfo.fromCacheBytes(data.vocabulary) : undefined;
const compiler = vocabulary ? new GrammarCompiler(vocabulary, { cache: false }) : new GrammarCompiler({ cache: false });
// Token texts by id, for structural tags that name tokens by their text.
const specVocabulary = data?.tokenTexts?.length ? specVocabularyOf(data.tokenTexts, vocabulary?.stopTokens) : undefined;

/** What this worker's heap holds now (used or not): a big compile leaves it grown, and the pool may retire the worker for it. */
function heapBytes(): number {
  const heap = getHeapStatistics();
  return heap.total_heap_size + heap.external_memory;
}

function compile(job: GrammarJob): GrammarWorkerMessage {
  try {
    const grammar = grammarFromSpec(job.spec, specVocabulary);
    const compiled = compiler.compile(grammar);
    if (vocabulary) new GrammarMatcher(compiled).fillNextTokenBitmask(new Uint32Array(vocabulary.normalMask.length));
    const artifact = serializeCompiledGrammar(compiled, { withMasks: vocabulary !== undefined });
    return { type: 'compiled', id: job.id, artifact, heapBytes: heapBytes() };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const pointer = error instanceof GrammarError && error.location.kind === 'pointer' ? error.location.pointer : undefined;
    return { type: 'failed', id: job.id, message, pointer, userFacing: error instanceof LmforgeError && error.userFacing, heapBytes: heapBytes() };
  }
}

pool.on((job) => {
  const result = compile(job);
  pool.post(result, result.type === 'compiled' ? [result.artifact.buffer as ArrayBuffer] : []);
});

// JSON mode once before saying ready: loading the compiler and getting its code optimised costs
// several hundred ms, which should count against no request's deadline.
compile({ id: 0, spec: { kind: 'json_object' } });
pool.post({ type: 'ready' });
