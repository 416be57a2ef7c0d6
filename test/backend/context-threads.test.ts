// The thread count a context decodes with: fixed when given, chosen before each decode by the
// governor otherwise. Real llama.cpp (the tiny model); the load is injected, so no test waits.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Batch } from '../../runtime/backend/batch.js';
import { LlamaContext } from '../../runtime/backend/context.js';
import { listDevices } from '../../runtime/backend/devices.js';
import { loadLlamaLibrary } from '../../runtime/backend/library.js';
import { LlamaModel } from '../../runtime/backend/model.js';
import { ThreadGovernor } from '../../runtime/backend/thread-governor.js';
import { tinyModelPath } from '../../fixtures/paths.js';

const test = suite('context threads');
const { api } = loadLlamaLibrary({ kinds: ['cpu'] });
const cpu = listDevices(api).filter((device) => device.kind === 'cpu').slice(0, 1);
const model = await LlamaModel.create(api, { path: tinyModelPath, devices: cpu });
const shape = { contextSize: 256, batchSize: 64, sequences: 2 };

async function decodeOne(context: LlamaContext, position: number): Promise<void> {
  const batch = new Batch(8);
  batch.add(1, position, 0, true);
  await context.decode(batch);
  batch.dispose();
}

test('a given thread count is what llama.cpp decodes with, load or not', async () => {
  const context = LlamaContext.create(model, { ...shape, threads: 3 });
  assert.is(context.threadGovernor, undefined);
  await decodeOne(context, 0);
  assert.equal([api.llama_n_threads(context.handle), api.llama_n_threads_batch(context.handle), context.threads], [3, 3, 3]);
  await context.dispose();
});

test('with a governor, the count follows the load of other processes from one decode to the next', async () => {
  let clock = 0;
  let othersCores = 0;
  const governor = new ThreadGovernor({ maxThreads: 4, intervalMs: 10, climbAfterLooks: 1, now: () => clock, sample: () => ({ cpus: 4, othersCores }), reset: () => {} });
  const context = LlamaContext.create(model, { ...shape, threadGovernor: governor });
  await decodeOne(context, 0);
  assert.is(api.llama_n_threads(context.handle), 4, 'starts at the most allowed');
  othersCores = 2.6; // other processes keep between two and three CPUs busy
  clock = 15;
  await decodeOne(context, 1);
  assert.equal([api.llama_n_threads(context.handle), api.llama_n_threads_batch(context.handle), context.threads], [1, 1, 1]);
  othersCores = 0.1;
  clock = 30;
  await decodeOne(context, 2);
  assert.is(api.llama_n_threads(context.handle), 4);
  await context.dispose();
});

test('adaptiveThreads builds a governor from the kernel counters, bounded by the given count', async () => {
  const context = LlamaContext.create(model, { ...shape, threads: 2, adaptiveThreads: true });
  // This suite runs on Linux, where /proc is there to read.
  assert.ok(context.threadGovernor);
  assert.is(context.threadGovernor.maxThreads, 2);
  await decodeOne(context, 0);
  const threads = api.llama_n_threads(context.handle);
  assert.ok(threads >= 1 && threads <= 2);
  await context.dispose();
});

test.after(() => model.dispose());

test.run();
