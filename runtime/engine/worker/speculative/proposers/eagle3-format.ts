// Checks an EAGLE-3 draft file (llama.cpp's `eagle3` GGUF, as its convert_hf_to_gguf.py
// writes it with --target-model-dir) against the model before anything is loaded: llama.cpp
// itself asserts (ending the process) on a draft whose shapes do not fit its target, so every
// mismatch is refused here first, with one line. Reads the header only, plus the `d2t` map.
import { open } from 'node:fs/promises';
import { GGML_TYPE_I64, ggufValue, readGGUF, type GGUFFile } from '../../../../../compiler/gguf/gguf-file.js';
import { UserFacingError } from '../../../../../compiler/lmforge-error.js';

export class Eagle3FormatError extends UserFacingError {
  override name = 'Eagle3FormatError';
}

export interface Eagle3Target {
  layers: number;
  embeddingLength: number;
  vocabSize: number;
}

export interface Eagle3Facts {
  /** Target layer ids whose inputs the draft fuses; n_layer stands for the last layer's output. */
  targetLayers: number[];
  /** The draft's own width (eagle3.embedding_length). */
  width: number;
}

export async function checkEagle3File(path: string, target: Eagle3Target): Promise<Eagle3Facts> {
  const where = `--additional-models ${path}`;
  let file: GGUFFile;
  try {
    file = await readGGUF(path);
  } catch (error) {
    throw new Eagle3FormatError(`${where}: ${(error as Error).message}`);
  }
  const architecture = ggufValue(file, 'general.architecture');
  if (architecture !== 'eagle3') {
    throw new Eagle3FormatError(`${where} is not an EAGLE-3 draft (general.architecture is ${JSON.stringify(architecture)}, not "eagle3"); convert one with llama.cpp's convert_hf_to_gguf.py --target-model-dir`);
  }
  const layers = ggufValue(file, 'eagle3.target_layers');
  if (!Array.isArray(layers) || layers.length !== 3 || !layers.every((id) => typeof id === 'number' && Number.isInteger(id))) {
    throw new Eagle3FormatError(`${where}: eagle3.target_layers must list 3 layer ids, not ${JSON.stringify(layers)}`);
  }
  const beyond = (layers as number[]).find((id) => id < 0 || id > target.layers);
  if (beyond !== undefined) {
    throw new Eagle3FormatError(`${where}: it reads target layer ${beyond}, but the model has ${target.layers} layers (ids 0-${target.layers}): it was made for another model`);
  }
  const hidden = ggufValue(file, 'eagle3.target_hidden_size');
  if (hidden !== target.embeddingLength) {
    throw new Eagle3FormatError(`${where}: it reads target hidden states of width ${String(hidden)}, the model's are ${target.embeddingLength}: it was made for another model`);
  }
  const width = ggufValue(file, 'eagle3.embedding_length');
  if (typeof width !== 'number') throw new Eagle3FormatError(`${where}: eagle3.embedding_length is missing`);
  const tensor = (name: string) => file.tensors.find((t) => t.name === name);
  const fc = tensor('fc.weight');
  if (!fc || fc.dims[0] !== 3 * target.embeddingLength || fc.dims[1] !== width) {
    throw new Eagle3FormatError(`${where}: fc.weight must be [${3 * target.embeddingLength}, ${width}], not ${fc ? `[${fc.dims.join(', ')}]` : 'missing'}`);
  }
  const embeddings = tensor('token_embd.weight');
  if (embeddings && embeddings.dims[1] !== target.vocabSize) {
    throw new Eagle3FormatError(`${where}: its token embeddings cover ${embeddings.dims[1]} tokens, the model has ${target.vocabSize}: it was made for another vocabulary`);
  }
  if (!embeddings && width !== target.embeddingLength) {
    throw new Eagle3FormatError(`${where}: it has no token embeddings of its own and its width ${width} is not the model's ${target.embeddingLength}, so it cannot read the model's`);
  }
  const output = tensor('output.weight');
  const d2t = tensor('d2t');
  const draftVocab = d2t ? d2t.dims[0]! : target.vocabSize;
  if (output && output.dims[1] !== draftVocab) {
    throw new Eagle3FormatError(`${where}: its output matrix predicts ${output.dims[1]} tokens, but ${d2t ? `its d2t map has ${draftVocab}` : `the model has ${target.vocabSize} and it has no d2t map`}: vocabulary mismatch`);
  }
  if (!output && width !== target.embeddingLength) {
    throw new Eagle3FormatError(`${where}: it has no output matrix of its own and its width ${width} is not the model's ${target.embeddingLength}, so it cannot use the model's`);
  }
  if (d2t) {
    if (d2t.type !== GGML_TYPE_I64) throw new Eagle3FormatError(`${where}: its d2t map must hold 64-bit integers (ggml type ${GGML_TYPE_I64}), not type ${d2t.type}`);
    if (!output && draftVocab !== target.vocabSize) {
      throw new Eagle3FormatError(`${where}: its d2t map has ${draftVocab} entries but it uses the model's output matrix of ${target.vocabSize} tokens: vocabulary mismatch`);
    }
    const map = await readI64(path, file.dataOffset + d2t.offset, draftVocab);
    const outside = map.findIndex((id) => id < 0n || id >= BigInt(target.vocabSize));
    if (outside >= 0) throw new Eagle3FormatError(`${where}: its d2t map sends draft token ${outside} to ${map[outside]}, outside the model's ${target.vocabSize} tokens: vocabulary mismatch`);
  }
  return { targetLayers: layers as number[], width };
}

async function readI64(path: string, offset: number, count: number): Promise<BigInt64Array> {
  const handle = await open(path, 'r');
  try {
    const bytes = Buffer.alloc(count * 8);
    await handle.read(bytes, 0, bytes.length, offset);
    return new BigInt64Array(bytes.buffer, bytes.byteOffset, count);
  } finally {
    await handle.close();
  }
}
