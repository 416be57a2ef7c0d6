// The C floor's loop (bench/engine/decode-floor.c) in Node, in a process of its own: BareDecoder's
// loop (bench/engine/bare-decode.ts, llama_decode through lmforge's own context and batch, nothing
// sampled) with no engine around it. bench:host --node-floor runs it beside the C loop, so that
// the engine's distance from the floor splits in two: what calling llama.cpp from Node costs (this
// loop against the C one: koffi's call, V8's process) and what the engine adds (the engine
// against this loop).
//   tsx bench/host/node-floor.ts --model PATH --device cpu|cuda --cells N --batch N --sequences N --threads N --prompt TEXT
// Prints one JSON line when ready, then answers each stdin line "WIDTH STEPS [MOST]" as the C floor
// does: {tokens, seconds, cpuSeconds} over `steps` decodes of one token per sequence.
import { createInterface } from 'node:readline';
import { cac } from 'cac';
import { BareDecoder } from '../engine/bare-decode.js';

const cli = cac('node-floor');
for (const name of ['model', 'device', 'cells', 'batch', 'sequences', 'threads', 'prompt']) cli.option(`--${name} <value>`, name);
const { options } = cli.parse();
const sequences = Number(options.sequences);
// The context the C floor makes: the engine's shape, one output row per sequence.
const shape = { contextSize: Number(options.cells), batchSize: Number(options.batch), sequences, outputs: sequences, threads: Number(options.threads) };
const decoder = await BareDecoder.create(String(options.model), shape, String(options.device ?? 'cpu'));
const prompt = decoder.tokenize(String(options.prompt));
console.log(JSON.stringify({ ready: true }));

for await (const line of createInterface({ input: process.stdin })) {
  const [width, steps, most = 0] = line.split(' ').map(Number) as [number, number, number?];
  console.log(JSON.stringify(await decoder.decode(prompt, width, steps, most)));
}
await decoder.dispose();
