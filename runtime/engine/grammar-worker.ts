// The grammar compile worker: front end and automata for a request's output format, off the
// HTTP and engine threads, so a slow or hostile grammar delays nobody but its own request.
// Token masks are not built here: the engine computes them lazily per state, for its vocabulary.
import { parentPort, workerData } from 'node:worker_threads';
import { GrammarCompiler, serializeCompiledGrammar } from '../../compiler/index.js';
import { grammarFromSpec, type GrammarSpec } from './grammar-spec.js';

export interface GrammarJob {
  id: number;
  spec: GrammarSpec;
}

export type GrammarResult =
  | { id: number; ok: true; artifact: Uint8Array }
  | { id: number; ok: false; message: string; pointer: string | undefined; userFacing: boolean };

const port = parentPort;
if (!port) throw new Error('grammar-worker.ts runs only as a worker thread');

// Token texts by id, for structural tags that name tokens by their text.
const tokenTexts: string[] = (workerData as { tokenTexts?: string[] } | undefined)?.tokenTexts ?? [];
const byText = new Map<string, number>();
tokenTexts.forEach((text, id) => {
  if (!byText.has(text)) byText.set(text, id);
});
const compiler = new GrammarCompiler();

port.on('message', (job: GrammarJob) => {
  let result: GrammarResult;
  try {
    const grammar = grammarFromSpec(job.spec, (text) => byText.get(text), tokenTexts.length || undefined);
    result = { id: job.id, ok: true, artifact: serializeCompiledGrammar(compiler.compile(grammar), { withMasks: false }) };
  } catch (error) {
    const e = error as Error & { userFacing?: boolean; location?: { kind: string; pointer?: string } };
    result = { id: job.id, ok: false, message: e.message, pointer: e.location?.kind === 'pointer' ? e.location.pointer : undefined, userFacing: e.userFacing === true };
  }
  port.postMessage(result, result.ok ? [result.artifact.buffer as ArrayBuffer] : []);
});
