// The EAGLE-3 start-up checks on synthetic files (header only, no model load): each mismatch a
// converted draft can have against its target is refused with one line naming it; and the
// library binding names a missing llama-ext.h symbol.
import { readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import koffi from 'koffi';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { GGML_TYPE_I64, writeGGUF, type GGUFTensorInput, type GGUFValue } from '../../compiler/gguf/gguf-file.js';
import { bindLlamaExtensions } from '../../runtime/backend/llama-api.js';
import { loadLlamaLibrary } from '../../runtime/backend/library.js';
import { checkEagle3File, Eagle3FormatError } from '../../runtime/engine/worker/speculative/proposers/eagle3-format.js';

const test = suite('EAGLE-3 file checks');
let dir = '';
test.before(async () => { dir = await mkdtemp(join(tmpdir(), 'lmforge-eagle3-format-')); });
test.after(async () => { await rm(dir, { recursive: true, force: true }); });

/** The target: 4 layers of width 8, a vocabulary of 10. */
const target = { layers: 4, embeddingLength: 8, vocabSize: 10 };

interface Draft {
  architecture?: string;
  layers?: number[];
  hidden?: number;
  width?: number;
  fc?: number[];
  embeddings?: number;
  output?: number;
  d2t?: { type: number; data: Float32Array | BigInt64Array };
}

/** Writes a draft header with tensors of the given shapes; returns its path. */
async function draft(name: string, options: Draft = {}): Promise<string> {
  const width = options.width ?? 8;
  const metadata: [string, GGUFValue][] = [
    ['general.architecture', { type: 'string', value: options.architecture ?? 'eagle3' }],
    ['eagle3.target_layers', { type: 'array', itemType: 'int32', value: options.layers ?? [0, 2, 3] }],
    ['eagle3.target_hidden_size', { type: 'uint32', value: options.hidden ?? 8 }],
    ['eagle3.embedding_length', { type: 'uint32', value: width }],
  ];
  const f32 = (tensorName: string, dims: number[]): GGUFTensorInput => ({ name: tensorName, dims, data: new Float32Array(dims.reduce((a, b) => a * b, 1)) });
  const tensors = [f32('fc.weight', options.fc ?? [24, width])];
  if (options.embeddings !== undefined) tensors.push(f32('token_embd.weight', [width, options.embeddings]));
  if (options.output !== undefined) tensors.push(f32('output.weight', [width, options.output]));
  if (options.d2t) tensors.push({ name: 'd2t', dims: [options.d2t.data.length], type: options.d2t.type, data: options.d2t.data });
  const path = join(dir, `${name}.gguf`);
  await writeGGUF(path, { metadata, tensors });
  return path;
}

async function refusal(path: string): Promise<string> {
  try {
    await checkEagle3File(path, target);
  } catch (error) {
    assert.instance(error, Eagle3FormatError);
    return (error as Error).message;
  }
  throw new Error(`${path} was accepted`);
}

test('a draft that fits is accepted: with the target\'s embeddings and output, or its own with a d2t map', async () => {
  assert.equal(await checkEagle3File(await draft('plain'), target), { targetLayers: [0, 2, 3], width: 8 });
  // Layer id n_layer stands for the target's last pre-norm state.
  assert.equal((await checkEagle3File(await draft('last', { layers: [1, 2, 4] }), target)).targetLayers, [1, 2, 4]);
  const mapped = await draft('mapped', { width: 16, fc: [24, 16], embeddings: 10, output: 4, d2t: { type: GGML_TYPE_I64, data: BigInt64Array.of(9n, 0n, 3n, 4n) } });
  assert.equal(await checkEagle3File(mapped, target), { targetLayers: [0, 2, 3], width: 16 });
});

test('each mismatch is refused with one line naming it', async () => {
  assert.match(await refusal(await draft('llama', { architecture: 'llama' })), /is not an EAGLE-3 draft \(general\.architecture is "llama", not "eagle3"\)/);
  assert.match(await refusal(await draft('two', { layers: [0, 1] })), /eagle3\.target_layers must list 3 layer ids, not \[0,1\]/);
  assert.match(await refusal(await draft('deep', { layers: [0, 2, 5] })), /it reads target layer 5, but the model has 4 layers \(ids 0-4\): it was made for another model$/);
  assert.match(await refusal(await draft('negative', { layers: [-1, 2, 3] })), /it reads target layer -1/);
  assert.match(await refusal(await draft('wide', { hidden: 16 })), /it reads target hidden states of width 16, the model's are 8/);
  assert.match(await refusal(await draft('fc', { fc: [16, 8] })), /fc\.weight must be \[24, 8\], not \[16, 8\]/);
  assert.match(await refusal(await draft('embeddings', { embeddings: 12 })), /its token embeddings cover 12 tokens, the model has 10: it was made for another vocabulary$/);
  assert.match(await refusal(await draft('narrow', { width: 16, fc: [24, 16] })), /it has no token embeddings of its own and its width 16 is not the model's 8/);
  assert.match(await refusal(await draft('output', { output: 12 })), /its output matrix predicts 12 tokens, but the model has 10 and it has no d2t map: vocabulary mismatch$/);
  assert.match(await refusal(await draft('map-length', { output: 4, d2t: { type: GGML_TYPE_I64, data: BigInt64Array.of(1n, 2n, 3n) } })), /its output matrix predicts 4 tokens, but its d2t map has 3: vocabulary mismatch$/);
  assert.match(await refusal(await draft('map-type', { output: 2, d2t: { type: 0, data: Float32Array.of(1, 2) } })), /its d2t map must hold 64-bit integers/);
  assert.match(await refusal(await draft('map-range', { output: 3, d2t: { type: GGML_TYPE_I64, data: BigInt64Array.of(1n, 10n, 2n) } })), /its d2t map sends draft token 1 to 10, outside the model's 10 tokens: vocabulary mismatch$/);
  assert.match(await refusal(await draft('map-target-output', { d2t: { type: GGML_TYPE_I64, data: BigInt64Array.of(1n, 2n) } })), /its d2t map has 2 entries but it uses the model's output matrix of 10 tokens: vocabulary mismatch$/);
});

test('a library without llama-ext.h\'s functions fails naming the first one missing', () => {
  // libggml-base, beside libllama, exports none of them.
  const library = loadLlamaLibrary({ kinds: ['cpu'] });
  const folder = dirname(library.path);
  const ggml = koffi.load(join(folder, readdirSync(folder).find((name) => /^(lib)?ggml-base\.(so|dylib|dll)$/.test(name))!));
  assert.throws(() => bindLlamaExtensions(ggml), /this libllama has no llama_model_target_layer_ids \(C\+\+ symbol _Z28llama_model_target_layer_idsPK11llama_model\)/);
  // The loaded library has them all.
  assert.type(library.extensions().llama_get_embeddings_layer_inp, 'function');
});

test.run();
