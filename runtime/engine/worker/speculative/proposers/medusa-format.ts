// The GGUF layout of Medusa heads (README.md in this folder describes it for writers): K
// heads, each a residual SiLU block on the target's last hidden state followed by an output
// projection, the head's own or the target's (tied). This reads a heads file's header and,
// for a tied projection, the target's, and says where each tensor's data is; it checks the
// heads against the target first, so a mismatch stops start-up with one line.
import { readGGUF, ggufValue, type GGUFFile, type GGUFTensorInfo } from '../../../../../compiler/gguf/gguf-file.js';
import type { MedusaWeights, TensorSource } from '../../../../backend/medusa-graph.js';
import { UserFacingError } from '../../../../../compiler/lmforge-error.js';

export const MEDUSA_ARCHITECTURE = 'medusa';
export const MEDUSA_KEYS = {
  headCount: 'medusa.head_count',
  embeddingLength: 'medusa.embedding_length',
  vocabSize: 'medusa.vocab_size',
  tiedOutput: 'medusa.tied_output',
  /** The target's general.name when the heads were made (informational). */
  targetName: 'medusa.target_name',
} as const;

/** Tensor names of head k (0-based: head k predicts the token k + 2 positions after the hidden state's). */
export const medusaTensorNames = (k: number) => ({ fc: `medusa.${k}.fc.weight`, bias: `medusa.${k}.fc.bias`, output: `medusa.${k}.output.weight` });

export class MedusaFormatError extends UserFacingError {
  override name = 'MedusaFormatError';
}

export interface TargetFacts {
  path: string;
  embeddingLength: number;
  vocabSize: number;
}

/** Reads and checks the heads file; the weights' sources for medusa-graph.ts. */
export async function readMedusaWeights(headsPath: string, target: TargetFacts): Promise<MedusaWeights & { tied: boolean }> {
  const where = `--additional-models ${headsPath}`;
  let file: GGUFFile;
  try {
    file = await readGGUF(headsPath);
  } catch (error) {
    throw new MedusaFormatError(`${where}: ${(error as Error).message}`);
  }
  const architecture = ggufValue(file, 'general.architecture');
  if (architecture !== MEDUSA_ARCHITECTURE) {
    throw new MedusaFormatError(`${where} is not Medusa heads (general.architecture is ${JSON.stringify(architecture)}, not "medusa"); make heads with lmforge train-heads`);
  }
  const number = (key: string): number => {
    const value = ggufValue(file, key);
    if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) throw new MedusaFormatError(`${where}: ${key} must be a positive integer, not ${String(value)}`);
    return value;
  };
  const heads = number(MEDUSA_KEYS.headCount);
  const embedding = number(MEDUSA_KEYS.embeddingLength);
  const vocabulary = number(MEDUSA_KEYS.vocabSize);
  const tied = ggufValue(file, MEDUSA_KEYS.tiedOutput) === true;
  if (embedding !== target.embeddingLength) {
    throw new MedusaFormatError(`${where}: the heads read hidden states of width ${embedding}, the model's are ${target.embeddingLength}: they were made for another model`);
  }
  if (vocabulary !== target.vocabSize) {
    throw new MedusaFormatError(`${where}: the heads predict ${vocabulary} tokens, the model has ${target.vocabSize}: they were made for another model`);
  }
  const tensor = (name: string, dims: number[]): TensorSource => {
    const info = file.tensors.find((t) => t.name === name);
    if (!info) throw new MedusaFormatError(`${where}: tensor ${name} is missing`);
    return sourceOf(file, info, dims, where);
  };
  const sources = Array.from({ length: heads }, (_, k) => {
    const names = medusaTensorNames(k);
    return {
      fc: tensor(names.fc, [embedding, embedding]),
      bias: tensor(names.bias, [embedding]),
      ...(tied ? {} : { output: tensor(names.output, [embedding, vocabulary]) }),
    };
  });
  return { embedding, vocabulary, heads: sources, tied, ...(tied ? { sharedOutput: await targetOutput(target) } : {}) };
}

/** The target's output matrix: output.weight, or the token embeddings where it ties them to the output. */
async function targetOutput(target: TargetFacts): Promise<TensorSource> {
  const file = await readGGUF(target.path);
  const info = file.tensors.find((t) => t.name === 'output.weight') ?? file.tensors.find((t) => t.name === 'token_embd.weight');
  if (!info) throw new MedusaFormatError(`the heads use the model's output projection, and ${target.path} has neither output.weight nor token_embd.weight`);
  return sourceOf(file, info, [target.embeddingLength, target.vocabSize], target.path);
}

function sourceOf(file: GGUFFile, info: GGUFTensorInfo, dims: number[], where: string): TensorSource {
  const shape = (d: number[]) => d.join('×');
  if (info.dims.length !== dims.length || info.dims.some((d, i) => d !== dims[i])) {
    throw new MedusaFormatError(`${where}: tensor ${info.name} is ${shape(info.dims)}, expected ${shape(dims)}`);
  }
  return { path: file.path, offset: file.dataOffset + info.offset, type: info.type, dims: info.dims };
}
