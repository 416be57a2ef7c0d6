// Context length and a memory estimate per engine mode on this machine's CPU, with the same
// arithmetic `serve` uses once llama.cpp has loaded the model (engine-config.ts), from the
// GGUF header alone: KV bytes per token, weights, and what local, interactive and server
// would choose. A GPU build sizes from the GPU's memory instead; `serve` says so at start-up.
import { ggufModelInfo, type GGUFFile } from '../../../compiler/gguf/gguf-file.js';
import { readHostMemory } from '../../backend/host-memory.js';
import { computeEngineConfig, ENGINE_MODES, type EngineConfig, type EngineMode } from '../../engine/engine-config.js';
import { gib } from '../../engine/memory-budget.js';
import { fail, ok, warn, type CheckLine } from './check-line.js';

/** llama.cpp's LLAMA_MAX_SEQ (llama-cparams.h): sequences one context may hold. */
const LLAMA_MAX_SEQ = 256;

export interface MemoryFacts {
  contextLength: number;
  kvBytesPerToken: number;
  weightBytes: number;
  modes: Partial<Record<EngineMode, Pick<EngineConfig, 'maxNumSequence' | 'maxTotalSeqLength' | 'contextWindowSize' | 'prefillChunkSize'>>>;
}

export function checkContextAndMemory(file: GGUFFile, env: NodeJS.ProcessEnv = process.env): { lines: CheckLine[]; facts?: MemoryFacts } {
  const info = ggufModelInfo(file);
  const contextLength = info.contextLength;
  if (contextLength === undefined || !Number.isInteger(contextLength) || contextLength < 1) {
    return { lines: [fail('context', `the GGUF has no ${info.architecture ?? '<architecture>'}.context_length`, 'convert the model again (its config.json names max_position_embeddings)')] };
  }
  const lines: CheckLine[] = [ok('context', `${contextLength} tokens${info.slidingWindow ? `, sliding window ${info.slidingWindow}` : ''}`)];
  const { blockCount, headCountKv, keyLength, valueLength, embeddingLength } = info;
  if (!blockCount || !headCountKv || !keyLength || !valueLength || !embeddingLength) {
    lines.push(warn('memory', 'the GGUF does not give the layer and head sizes needed for an estimate; serve sizes the KV cache once the model has loaded'));
    return { lines };
  }
  const kvBytesPerToken = blockCount * headCountKv * (keyLength + valueLength) * 2;
  const weightBytes = file.fileSize - file.dataOffset;
  const host = readHostMemory({ env });
  const modes: MemoryFacts['modes'] = {};
  const parts: string[] = [];
  for (const mode of ENGINE_MODES) {
    try {
      const config = computeEngineConfig(mode, {}, {
        contextLength, slidingWindow: info.slidingWindow ?? 0, kvBytesPerToken, modelBytes: weightBytes,
        vocabSize: info.vocabSize ?? 0, embeddingLength, memory: { onDevice: false, ...host }, maxParallelSequences: LLAMA_MAX_SEQ,
      });
      modes[mode] = { maxNumSequence: config.maxNumSequence, maxTotalSeqLength: config.maxTotalSeqLength, contextWindowSize: config.contextWindowSize, prefillChunkSize: config.prefillChunkSize };
      parts.push(`${mode}: ${config.maxNumSequence} seq × ${config.contextWindowSize} ctx, ${config.maxTotalSeqLength} KV cells (${gib(config.maxTotalSeqLength * kvBytesPerToken)})`);
    } catch (error) {
      parts.push(`${mode}: does not fit (${(error as Error).message})`);
    }
  }
  const summary = `CPU, ${gib(host.totalBytes)} ${host.source}, ${gib(host.availableBytes)} available; weights ${gib(weightBytes)}, KV ${gib(kvBytesPerToken)}/token; ${parts.join('; ')}`;
  if (Object.keys(modes).length === 0) {
    lines.push(fail('memory', summary, 'use a smaller quantisation, or free memory'));
  } else {
    lines.push(ok('memory', summary));
  }
  return { lines, facts: { contextLength, kvBytesPerToken, weightBytes, modes } };
}
