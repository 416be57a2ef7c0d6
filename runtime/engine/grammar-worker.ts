// The grammar compile worker: front end and automata for a request's output format, off the
// HTTP and engine threads, so a slow or hostile grammar delays nobody but its own request.
// Token masks are not built here: the engine computes them lazily per state, for its vocabulary.
// It runs one job at a time (grammar-pool.ts hands out one per worker).
import { parentPort, workerData } from 'node:worker_threads';
import { GrammarCompiler, serializeCompiledGrammar } from '../../compiler/index.js';
import { grammarFromSpec, type GrammarSpec } from './grammar-spec.js';

export interface GrammarJob {
  id: number;
  spec: GrammarSpec;
}

export type GrammarWorkerMessage =
  | { type: 'ready' }
  | { type: 'compiled'; id: number; artifact: Uint8Array }
  | { type: 'failed'; id: number; message: string; pointer: string | undefined; userFacing: boolean };

const port = parentPort;
if (!port) throw new Error('grammar-worker.ts runs only as a worker thread');

// Token texts by id, for structural tags that name tokens by their text.
const tokenTexts: string[] = (workerData as { tokenTexts?: string[] } | undefined)?.tokenTexts ?? [];
const byText = new Map<string, number>();
tokenTexts.forEach((text, id) => {
  if (!byText.has(text)) byText.set(text, id);
});
// No cache of its own: the service caches artifacts by spec, and a worker that kept every grammar
// it compiled would grow with each distinct schema for the server's lifetime.
const compiler = new GrammarCompiler({ cache: false });

function compile(job: GrammarJob): GrammarWorkerMessage {
  try {
    const grammar = grammarFromSpec(job.spec, (text) => byText.get(text), tokenTexts.length || undefined);
    return { type: 'compiled', id: job.id, artifact: serializeCompiledGrammar(compiler.compile(grammar), { withMasks: false }) };
  } catch (error) {
    const e = error as Error & { userFacing?: boolean; location?: { kind: string; pointer?: string } };
    return { type: 'failed', id: job.id, message: e.message, pointer: e.location?.kind === 'pointer' ? e.location.pointer : undefined, userFacing: e.userFacing === true };
  }
}

port.on('message', (job: GrammarJob) => {
  const result = compile(job);
  port.postMessage(result, result.type === 'compiled' ? [result.artifact.buffer as ArrayBuffer] : []);
});

// JSON mode once before saying ready: loading the compiler and getting its code optimised costs
// several hundred ms, which should count against no request's deadline.
compile({ id: 0, spec: { kind: 'json_object' } });
port.postMessage({ type: 'ready' } satisfies GrammarWorkerMessage);
