// Medusa heads through the real llama.cpp backend and ggml: the heads' graph computes what a
// plain TypeScript rendering of the same formula computes, and with heads drafting, every
// output is the one plain decoding gives, token for token and seed for seed (greedy, sampled,
// penalties, stop strings, n choices, a grammar), while drafts are both accepted and
// rejected. Heads that do not fit the model are refused at start-up with one line.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readGGUF } from '../../compiler/gguf/gguf-file.js';
import { listDevices } from '../../runtime/backend/devices.js';
import { ggmlApiFor } from '../../runtime/backend/ggml-api.js';
import { loadLlamaLibrary } from '../../runtime/backend/library.js';
import { MedusaGraph } from '../../runtime/backend/medusa-graph.js';
import { type Engine, EngineStartError } from '../../runtime/engine/client/engine.js';
import type { GenerateRequest } from '../../runtime/engine/protocol.js';
import { medusaTensorNames, readMedusaWeights } from '../../runtime/engine/worker/speculative/proposers/medusa-format.js';
import { tinyLlama3Path, tinyMedusaPath, tinyMedusaUntiedPath, tinyModelPath } from '../../fixtures/paths.js';
import { makeTinyMedusa } from '../../fixtures/tiny-medusa.js';
import { TINY_SHAPE } from '../../fixtures/tiny-model.js';
import { assertFeaturesAsPlain, assertGrammarAsPlain, assertSameAsPlain, draftCounts } from '../helpers/engine-run.js';
import { tinyEngine, UNCACHED_LIMITS } from '../helpers/tiny-engine.js';
import { gpt2WordTokens, repetitivePrompt, testRandom } from '../helpers/test-random.js';

interface Engines {
  plain: Engine;
  /** Untied heads (built to be accepted in two-token loops), 3 drafts whenever a hidden state is there. */
  fixed: Engine;
  /** Tied heads, draft length chosen per sequence. */
  adaptive: Engine;
}

const test = suite<Engines>('speculative decoding with Medusa heads');

// No prefix cache: prompts are computed in the same batches as the plain engine's (see UNCACHED_LIMITS).
const limits = UNCACHED_LIMITS;

test.before(async (context) => {
  context.plain = await tinyEngine({ overrides: limits });
  context.fixed = await tinyEngine({ overrides: { ...limits, spec_draft_length: 3 }, speculativeMode: 'medusa', draftModelPath: tinyMedusaUntiedPath });
  context.adaptive = await tinyEngine({ overrides: limits, speculativeMode: 'medusa', draftModelPath: tinyMedusaPath });
});
test.after(async ({ plain, fixed, adaptive }) => {
  for (const engine of [plain, fixed, adaptive]) await engine.dispose();
});

/** The plain engine's outputs must come from every speculative one too. */
const assertSameOutputs = (e: Engines, request: GenerateRequest, what: string) => assertSameAsPlain(e.plain, { fixed: e.fixed, adaptive: e.adaptive }, request, what);

/** An F32 tensor of a GGUF file. */
async function f32Tensor(path: string, name: string): Promise<Float32Array> {
  const file = await readGGUF(path);
  const info = file.tensors.find((t) => t.name === name)!;
  const bytes = await readFile(path);
  const start = bytes.byteOffset + file.dataOffset + info.offset;
  return new Float32Array(bytes.buffer.slice(start, start + 4 * info.dims.reduce((a, b) => a * b, 1)));
}

/** Head k's logits for hidden state h, written out plainly: O (h + SiLU(W h + b)), ggml's row layout. */
function referenceLogits(h: Float32Array, w: Float32Array, b: Float32Array, o: Float32Array): Float64Array {
  const width = h.length;
  const r = new Float64Array(width);
  for (let j = 0; j < width; j++) {
    let z = b[j]!;
    for (let i = 0; i < width; i++) z += w[j * width + i]! * h[i]!;
    r[j] = h[j]! + z / (1 + Math.exp(-z));
  }
  const logits = new Float64Array(o.length / width);
  for (let v = 0; v < logits.length; v++) {
    let sum = 0;
    for (let i = 0; i < width; i++) sum += o[v * width + i]! * r[i]!;
    logits[v] = sum;
  }
  return logits;
}

test('the ggml graph picks the tokens the heads\' formula, computed plainly, picks', async () => {
  const library = loadLlamaLibrary({ kinds: ['cpu'] });
  const cpu = listDevices(library.api).find((device) => device.kind === 'cpu')!;
  const width = TINY_SHAPE.embedding;
  const random = testRandom(11);
  const columns = 5;
  const hidden = Float32Array.from({ length: columns * width }, () => (random() - 0.5) * 4);
  for (const path of [tinyMedusaPath, tinyMedusaUntiedPath]) {
    const weights = await readMedusaWeights(path, { path: tinyModelPath, embeddingLength: width, vocabSize: 50257 });
    const graph = MedusaGraph.create(ggmlApiFor(library.path), library.api, cpu, weights);
    try {
      const ids = await graph.argmax(hidden, columns, graph.headCount, 1);
      const shared = await f32Tensor(tinyModelPath, 'output.weight');
      for (let k = 0; k < graph.headCount; k++) {
        const names = medusaTensorNames(k);
        const [w, b] = [await f32Tensor(path, names.fc), await f32Tensor(path, names.bias)];
        const o = weights.tied ? shared : await f32Tensor(path, names.output);
        for (let c = 0; c < columns; c++) {
          const logits = referenceLogits(hidden.subarray(c * width, (c + 1) * width), w, b, o);
          const chosen = ids[k * columns + c]!;
          const best = logits.reduce((bi, x, i) => (x > logits[bi]! ? i : bi), 0);
          // Float32 sums in another order may swap a near tie, and only that.
          assert.ok(chosen === best || logits[best]! - logits[chosen]! < 1e-3, `${path} head ${k} column ${c}: ggml chose ${chosen} (${logits[chosen]}), the formula ${best} (${logits[best]})`);
        }
      }
    } finally {
      await graph.dispose();
    }
  }
});

test('greedy outputs are the plain ones, token for token, while drafts are accepted and rejected', async (engines) => {
  const before = await draftCounts(engines.fixed);
  const adaptiveBefore = await draftCounts(engines.adaptive);
  for (let seed = 1; seed <= 12; seed++) {
    const prompt = seed % 3 === 0 ? gpt2WordTokens(seed, 12) : repetitivePrompt(seed, 2 + (seed % 4), 5);
    await assertSameOutputs(engines, { prompt, maxTokens: 48, sampling: { temperature: 0 } }, `prompt ${seed}`);
  }
  const after = await draftCounts(engines.fixed);
  const [proposed, accepted] = [after.proposed - before.proposed, after.accepted - before.accepted];
  assert.ok(accepted > 10, `drafts were accepted (${accepted} of ${proposed})`);
  assert.ok(proposed - accepted > 10, `drafts were rejected (${proposed - accepted} of ${proposed})`);
  const adaptiveAfter = await draftCounts(engines.adaptive);
  assert.ok(adaptiveAfter.proposed > adaptiveBefore.proposed, 'the tied heads drafted too');
});

test('seeded sampling gives the same tokens with Medusa drafts, seed for seed', async (engines) => {
  for (let seed = 0; seed < 16; seed++) {
    const prompt = repetitivePrompt(100 + seed, 2 + (seed % 3), 5);
    await assertSameOutputs(engines, { prompt, maxTokens: 32, seed, sampling: { temperature: seed % 4 === 0 ? 1.2 : 0.3, topP: 0.95 } }, `seed ${seed}`);
  }
});

test('penalties, stop strings, logprobs and n choices are the plain ones', (engines) =>
  assertFeaturesAsPlain((request, what) => assertSameOutputs(engines, request, what), { frequencyPenalty: 0.3 }),
);

test('under a grammar, Medusa drafts are cut to what it accepts and the output is the plain one', (engines) =>
  assertGrammarAsPlain(engines.plain, (request, what) => assertSameOutputs(engines, request, what)),
);

test('heads that do not fit the model are refused at start-up, saying why', async () => {
  const start = (heads: string, modelPath = tinyModelPath): Promise<string> =>
    tinyEngine({ modelPath, overrides: { context_window_size: 256 }, speculativeMode: 'medusa', draftModelPath: heads }).then(
      async (engine) => {
        await engine.dispose();
        throw new Error('the engine started');
      },
      (error: Error) => {
        assert.instance(error, EngineStartError);
        return error.message;
      },
    );
  const dir = await mkdtemp(join(tmpdir(), 'lmforge-medusa-'));
  try {
    // The Llama 3 tiny model has the same width, another vocabulary.
    assert.match(await start(tinyMedusaPath, tinyLlama3Path), /tiny-gpt2-medusa\.gguf: the heads predict 50257 tokens, the model has \d+: they were made for another model$/);
    assert.match(await start(tinyModelPath), /tiny-gpt2\.gguf is not Medusa heads \(general\.architecture is "llama", not "medusa"\)/);
    const narrow = join(dir, 'narrow.gguf');
    await makeTinyMedusa({ out: narrow, heads: 1, tied: true, width: 32 });
    assert.match(await start(narrow), /narrow\.gguf: the heads read hidden states of width 32, the model's are 64: they were made for another model$/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
