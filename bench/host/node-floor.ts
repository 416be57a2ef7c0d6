// The C floor's loop (bench/engine/decode-floor.c) in Node: llama_decode in a plain loop through
// lmforge's own context and batch (runtime/backend), in a process of its own, with no engine
// around it and nothing sampled. bench:host --node-floor runs it beside the C loop, so that the
// engine's distance from the floor splits in two: what calling llama.cpp from Node costs (this
// loop against the C one: koffi's call, V8's process) and what the engine adds (the engine
// against this loop).
//   tsx bench/host/node-floor.ts --model PATH --device cpu|cuda --cells N --batch N --sequences N --threads N --prompt TEXT
// Prints one JSON line when ready, then answers each stdin line "WIDTH STEPS" as the C floor
// does: {tokens, seconds, cpuSeconds} over `steps` decodes of one token per sequence.
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { cac } from 'cac';
import { Batch } from '../../runtime/backend/batch.js';
import { LlamaContext } from '../../runtime/backend/context.js';
import { parseDeviceSpec } from '../../runtime/backend/device-spec.js';
import { libraryKindsFor, listDevices, selectDevices } from '../../runtime/backend/devices.js';
import { loadLlamaLibrary } from '../../runtime/backend/library.js';
import { LlamaModel } from '../../runtime/backend/model.js';

const cli = cac('node-floor');
for (const name of ['model', 'device', 'cells', 'batch', 'sequences', 'threads', 'prompt']) cli.option(`--${name} <value>`, name);
const { options } = cli.parse();
const spec = parseDeviceSpec(String(options.device ?? 'cpu'));
const library = loadLlamaLibrary({ kinds: libraryKindsFor(spec) });
const model = await LlamaModel.create(library.api, { path: String(options.model), devices: selectDevices(listDevices(library.api), spec, 1) });
const sequences = Number(options.sequences);
// The context the C floor makes: the engine's shape, one output row per sequence.
const context = LlamaContext.create(model, { contextSize: Number(options.cells), batchSize: Number(options.batch), sequences, outputs: sequences, threads: Number(options.threads) });
const batch = new Batch(context.batchSize);
// As the C floor tokenizes: no BOS, special tokens parsed.
const prompt = model.vocabulary.tokenize(String(options.prompt), { addSpecial: false, parseSpecial: true });
console.log(JSON.stringify({ ready: true }));

function cpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

for await (const line of createInterface({ input: process.stdin })) {
  const [width, steps] = line.split(' ').map(Number) as [number, number];
  context.remove(-1);
  // The prompts, as many per batch as fit (untimed).
  batch.clear();
  for (let s = 0; s < width; s++) {
    if (batch.length + prompt.length > batch.capacity) {
      context.decodeNow(batch);
      batch.clear();
    }
    prompt.forEach((token, i) => batch.add(token, i, s, i === prompt.length - 1));
  }
  context.decodeNow(batch);
  // Any fixed token will do, as in the C loop: nothing is sampled.
  const token = prompt[prompt.length - 1]!;
  const start = performance.now();
  const cpuStart = cpuSeconds();
  for (let step = 0; step < steps; step++) {
    batch.clear();
    for (let s = 0; s < width; s++) batch.add(token, prompt.length + step, s, true);
    context.decodeNow(batch);
    // Fetch the logits as the engine does (one llama_get_logits a step), reading none.
    context.logits(width - 1, width);
  }
  console.log(JSON.stringify({ tokens: width * steps, seconds: (performance.now() - start) / 1000, cpuSeconds: cpuSeconds() - cpuStart }));
}
await context.dispose();
model.dispose();
