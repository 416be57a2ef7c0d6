// Micro-benchmark of the grammar mask link (runtime/backend/grammar-mask-sampler.ts): the cost a
// step of [mask, greedy] chains adds over [greedy] chains, both sampled in llama.cpp's graph,
// at several sequence counts, and the host path of today (logits rows to JavaScript, masked
// argmax there) beside them, all in the same run. Usage:
//   npx tsx bench/mask-sampler.ts [--model fixtures/.cache/tiny-gpt2.gguf] [--widths 1,16,64] [--threads 1] [--device cpu]
// A step: set every sequence's mask (a new one each step), decode one token per sequence on
// this thread, read each sequence's token. The tiny model's own work is nearly free, so the
// figures are the host and graph costs. Fastest round's mean: other processes only add time.
import { parseArgs } from 'node:util';
import koffi from 'koffi';
import { Batch } from '../runtime/backend/batch.js';
import { LlamaContext } from '../runtime/backend/context.js';
import type { DeviceKind } from '../runtime/backend/device-spec.js';
import { listDevices } from '../runtime/backend/devices.js';
import { createGrammarMaskSampler } from '../runtime/backend/grammar-mask-sampler.js';
import { loadLlamaLibrary } from '../runtime/backend/library.js';
import { LlamaModel } from '../runtime/backend/model.js';
import { maskedArgmax } from '../runtime/sampling/argmax.js';
import { tinyModelPath } from '../fixtures/paths.js';
import { bindBackendSamplerCalls } from '../test/helpers/backend-sampler-calls.js';
import { testRandom } from '../test/helpers/test-random.js';

const { values: args } = parseArgs({
  options: {
    model: { type: 'string', default: tinyModelPath },
    widths: { type: 'string', default: '1,16,64' },
    threads: { type: 'string', default: '1' },
    device: { type: 'string', default: 'cpu' },
    rounds: { type: 'string', default: '5' },
    steps: { type: 'string', default: '8' },
  },
});
const widths = args.widths.split(',').map(Number);
const threads = Number(args.threads);
const rounds = Number(args.rounds);
const stepsPerRound = Number(args.steps);
const warmup = 3;
const kind = args.device as DeviceKind;

const library = loadLlamaLibrary({ kinds: [kind] });
const calls = bindBackendSamplerCalls(library);
const devices = listDevices(library.api).filter((device) => device.kind === kind).slice(0, 1);
const model = await LlamaModel.create(library.api, { path: args.model, devices });
const vocab = model.vocabulary.size;

const random = testRandom(29);
const masks = Array.from({ length: 16 }, () => {
  const bits = new Uint32Array(Math.ceil(vocab / 32));
  for (let token = 0; token < vocab; token++) if (random() < 0.05) bits[token >>> 5]! |= 1 << (token & 31);
  return bits;
});

const MODES = ['device greedy', 'device mask + greedy', 'host masked argmax'] as const;
type Mode = (typeof MODES)[number];

interface Runner {
  step(): void;
  /** ns spent in setMask since the last take. */
  takeSetMaskNs(): bigint;
  close(): void;
}

/** A context of `width` sequences sampled the `mode` way, stepping one token per sequence. */
function runner(mode: Mode, width: number): Runner {
  const totalSteps = warmup + rounds * stepsPerRound;
  const context = LlamaContext.create(model, { contextSize: Math.max(256, width * (totalSteps + 8)), batchSize: Math.max(64, width * 2), sequences: width, threads });
  const links = Array.from({ length: width }, (_, s) => {
    if (mode === 'host masked argmax') return undefined;
    const mask = mode === 'device mask + greedy' ? createGrammarMaskSampler(library.path, vocab) : undefined;
    const chain = mask ? calls.chain(mask.sampler, calls.llama_sampler_init_greedy()) : calls.chain(calls.llama_sampler_init_greedy());
    if (!calls.llama_set_sampler(context.handle, s, chain)) throw new Error('llama_set_sampler refused the chain');
    return { mask, chain };
  });
  const tokens = Array.from({ length: width }, (_, s) => 1000 + s);
  const batch = new Batch(width);
  let position = 0;
  let setMaskNs = 0n;
  return {
    step(): void {
      batch.clear();
      const t0 = process.hrtime.bigint();
      for (let s = 0; s < width; s++) links[s]?.mask?.setMask(masks[(position + s) % masks.length]!);
      setMaskNs += process.hrtime.bigint() - t0;
      for (let s = 0; s < width; s++) batch.add(tokens[s]!, position, s, true);
      context.decodeNow(batch);
      for (let s = 0; s < width; s++) {
        if (mode === 'host masked argmax') {
          const pointer = library.api.llama_get_logits_ith(context.handle, s) as unknown as bigint;
          tokens[s] = maskedArgmax(new Float32Array(koffi.view(pointer, vocab * 4)), masks[(position + s) % masks.length]!);
        } else {
          tokens[s] = calls.llama_get_sampled_token_ith(context.handle, s);
        }
      }
      position++;
    },
    takeSetMaskNs(): bigint {
      const ns = setMaskNs;
      setMaskNs = 0n;
      return ns;
    },
    close(): void {
      batch.dispose();
      for (let s = 0; s < width; s++) {
        const link = links[s];
        if (!link) continue;
        calls.llama_set_sampler(context.handle, s, null);
        calls.llama_sampler_free(link.chain);
      }
      void context.dispose();
    },
  };
}

/**
 * ms per step of each mode (fastest round) and the setMask part of the mask mode's. Rounds of
 * the modes alternate, so a change in the machine's load falls on all of them alike.
 */
function measure(width: number): Record<Mode, number> & { setMask: number } {
  const runners = MODES.map((mode) => runner(mode, width));
  for (const r of runners) for (let i = 0; i < warmup; i++) r.step();
  const best = MODES.map(() => Infinity);
  let setMask = 0;
  for (let round = 0; round < rounds; round++) {
    runners.forEach((r, m) => {
      r.takeSetMaskNs();
      const start = process.hrtime.bigint();
      for (let i = 0; i < stepsPerRound; i++) r.step();
      const ms = Number(process.hrtime.bigint() - start) / 1e6 / stepsPerRound;
      const setMaskMs = Number(r.takeSetMaskNs()) / 1e6 / stepsPerRound;
      if (ms < best[m]!) {
        best[m] = ms;
        if (MODES[m] === 'device mask + greedy') setMask = setMaskMs;
      }
    });
  }
  for (const r of runners) r.close();
  return { 'device greedy': best[0]!, 'device mask + greedy': best[1]!, 'host masked argmax': best[2]!, setMask };
}

const upload = Math.ceil(vocab / 16) * 4;
console.log(`model ${args.model} (vocabulary ${vocab}), device ${kind}, ${threads} threads; masks allow ~5%; mask upload ${upload} bytes a sequence a step`);
console.log('| sequences | device greedy ms/step | device mask + greedy ms/step | mask link cost ms/step (µs a sequence) | of which setMask ms | host masked argmax ms/step |');
console.log('|---|---|---|---|---|---|');
for (const width of widths) {
  const figures = measure(width);
  const cost = figures['device mask + greedy'] - figures['device greedy'];
  console.log(
    `| ${width} | ${figures['device greedy'].toFixed(3)} | ${figures['device mask + greedy'].toFixed(3)} | ${cost.toFixed(3)} (${((cost * 1000) / width).toFixed(1)}) | ${figures.setMask.toFixed(3)} | ${figures['host masked argmax'].toFixed(3)} |`,
  );
}
await model.dispose();
