// The training data of lmforge train-heads, on the tiny model: each recorded hidden state is
// the one its answer token was sampled from, so for a greedy answer the model's own output
// matrix times the state picks exactly that token; rows and answers line up one for one. And
// the prompt set is varied and the same for the same seed.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readGGUF } from '../../compiler/gguf/gguf-file.js';
import { tinyModelPath } from '../../fixtures/paths.js';
import { TINY_SHAPE } from '../../fixtures/tiny-model.js';
import { collectSelfDistillation } from '../../cli/training/self-distill.js';
import { trainingPrompts } from '../../cli/training/training-prompts.js';

const test = suite('Medusa training data');

test('the prompt set is varied and repeatable', () => {
  const prompts = trainingPrompts(200, 3);
  assert.is(new Set(prompts).size, 200);
  assert.equal(trainingPrompts(200, 3), prompts);
  assert.not.equal(trainingPrompts(20, 4), prompts.slice(0, 20));
});

test('each hidden state is the one its answer token was sampled from', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'lmforge-distill-'));
  try {
    const prompts = trainingPrompts(6, 1);
    const result = await collectSelfDistillation({ modelPath: tinyModelPath, prompts, maxTokens: 12, concurrency: 2, threads: 1, outDir: dir });
    const meta = JSON.parse(await readFile(join(dir, 'samples.json'), 'utf8')) as { embedding: number; vocabSize: number; samples: { rows: number; answer: number[] }[] };
    const width = TINY_SHAPE.embedding;
    assert.is(meta.embedding, width);
    assert.is(meta.samples.length, result.samples);
    const bytes = await readFile(join(dir, 'hidden.f32'));
    const hidden = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
    assert.is(hidden.length, result.positions * width);
    // Every state but the final one's: the last answer token is sampled from row answer.length - 1.
    for (const sample of meta.samples) assert.is(sample.rows, sample.answer.length);
    const model = await readGGUF(tinyModelPath);
    const info = model.tensors.find((t) => t.name === 'output.weight')!;
    const all = await readFile(tinyModelPath);
    const start = all.byteOffset + model.dataOffset + info.offset;
    const output = new Float32Array(all.buffer.slice(start, start + 4 * width * meta.vocabSize));
    let row = 0;
    let checked = 0;
    meta.samples.forEach((sample, i) => {
      // Even prompts are answered greedily (self-distill.ts): argmax of O h is the answer token.
      for (let j = 0; j < sample.rows; j++, row++) {
        if (i % 2 !== 0) continue;
        const h = hidden.subarray(row * width, (row + 1) * width);
        let best = 0;
        let bestLogit = -Infinity;
        for (let v = 0; v < meta.vocabSize; v++) {
          let logit = 0;
          for (let d = 0; d < width; d++) logit += output[v * width + d]! * h[d]!;
          if (logit > bestLogit) [best, bestLogit] = [v, logit];
        }
        assert.is(best, sample.answer[j], `sample ${i} position ${j}`);
        checked++;
      }
    });
    assert.ok(checked >= 20, `${checked} greedy positions checked`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
