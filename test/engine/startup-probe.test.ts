// The start-up probe on real llama.cpp (the tiny model, CPU): it decodes its shapes and leaves
// no KV cells behind; a decode that fails is one line naming the shape, device, library and fix;
// and a per-sequence KV layout gets a prompt chunk that fits one sequence's share of cells.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LlamaContext } from '../../runtime/backend/context.js';
import { describeDevice, listDevices } from '../../runtime/backend/devices.js';
import { loadLlamaLibrary } from '../../runtime/backend/library.js';
import { LlamaModel } from '../../runtime/backend/model.js';
import { probeShapes, ProbeError, runStartupProbe } from '../../runtime/engine/worker/startup-probe.js';
import { tinyModelPath } from '../../fixtures/paths.js';

const test = suite('start-up probe');
const library = loadLlamaLibrary({ kinds: ['cpu'] });
const cpu = listDevices(library.api).filter((device) => device.kind === 'cpu').slice(0, 1);
const model = await LlamaModel.create(library.api, { path: tinyModelPath, devices: cpu });
const target = { devices: cpu.map(describeDevice), library: library.path, modelLib: false };

test('decodes one token, a prompt chunk (one graph of tokens at most) and a full batch, then clears the cells', async () => {
  const context = LlamaContext.create(model, { contextSize: 2048, batchSize: 1024 + 4, sequences: 4, threads: 1 });
  try {
    const shapes = probeShapes(context, 4, 1024);
    assert.equal(
      shapes.map((shape) => [shape.tokens, shape.sequences]),
      [[1, 1], [512, 1], [1, 4]],
    );
    await runStartupProbe(context, shapes, target, 0);
    for (let sequence = 0; sequence < 4; sequence++) assert.is(context.maxPosition(sequence), -1, `sequence ${sequence} holds no cells`);
  } finally {
    await context.dispose();
  }
});

test('a per-sequence KV layout: the chunk fits one sequence', async () => {
  const context = LlamaContext.create(model, { contextSize: 1024, batchSize: 1024, sequences: 8, unifiedKv: false, threads: 1 });
  try {
    const shapes = probeShapes(context, 8, 1024);
    // llama.cpp rounds each sequence's share up (to 256 cells here); the chunk is that share.
    const share = context.contextSize / context.sequences;
    assert.ok(share < 512);
    assert.is(shapes[1]!.tokens, share);
    await runStartupProbe(context, shapes, target, 0);
  } finally {
    await context.dispose();
  }
});

test('a decode that fails is one line: the shape, the device, the library, the cause and the fix', async () => {
  const context = LlamaContext.create(model, { contextSize: 256, batchSize: 64, sequences: 2, threads: 1 });
  try {
    // A token id past the vocabulary: llama.cpp refuses the batch (status -1), as a broken backend would fail it.
    await runStartupProbe(context, probeShapes(context, 2, 64), target, model.vocabulary.size + 5);
    assert.unreachable('the probe should fail');
  } catch (error) {
    assert.instance(error, ProbeError);
    const message = (error as Error).message;
    assert.not.match(message, /\n/);
    assert.is(message, `start-up probe failed on ${target.devices[0]} with ${library.path}: decoding one token failed: llama_decode failed with status -1; give a llama.cpp build made for this CPU with --model-lib`);
  } finally {
    await context.dispose();
  }
});

test.after(() => model.dispose());
test.run();
