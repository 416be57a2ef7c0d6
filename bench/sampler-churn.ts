// `npx tsx bench/sampler-churn.ts [--model PATH] [--width 16] [--requests 64] [--threads N] [--reps 3] [--json]`
// Sampling on the device while requests come and go: `width` clients each send requests back to
// back (8 to 32 tokens, staggered, so that some finish and others start every few steps) until
// `requests` are done, through the real engine with its prefix cache on, --sampling device and
// --sampling host in one process, in turn. Giving llama.cpp a sampler chain or taking one away
// makes it re-plan its graph (device-sampling.ts): the device engine's re-plans per request
// show how often that still happens, and device / host tokens per second what it costs beside
// everything else the device path does. Greedy and sampled (temperature 0.8, top_p 0.95, a
// seed per request). Figures are medians over the repetitions.
import { availableParallelism } from 'node:os';
import { basename } from 'node:path';
import { cac } from 'cac';
import { Engine } from '../runtime/engine/client/engine.js';
import type { GenerateRequest } from '../runtime/engine/protocol.js';
import { pullModel } from '../runtime/models/pull-model.js';
import { median } from '../cli/serve-bench/percentile.js';

const cli = cac('bench:sampler-churn');
cli.option('--model <path>', 'GGUF file (default: the default model, pulled if needed)');
cli.option('--width <n>', 'Concurrent clients (and max_num_sequence)', { default: 16 });
cli.option('--requests <n>', 'Requests in one run, across the clients', { default: 64 });
cli.option('--threads <n>', 'Decode threads', { default: availableParallelism() });
cli.option('--reps <n>', 'Repetitions (the order of the two paths alternates)', { default: 3 });
cli.option('--json', 'One JSON object per kind instead of the table');
cli.help();
const { options } = cli.parse();
if (options.help) process.exit(0);
const width = Number(options.width);
const requests = Number(options.requests);
const threads = Number(options.threads);
const reps = Number(options.reps);
if (![width, requests, threads, reps].every((n) => Number.isInteger(n) && n >= 1)) {
  console.error('bench:sampler-churn: --width, --requests, --threads and --reps must be whole numbers ≥ 1');
  process.exit(1);
}
const modelPath = typeof options.model === 'string' ? options.model : await pullModel();

const create = (sampling: 'device' | 'host') => Engine.create({ modelPath, device: 'cpu', mode: 'local', overrides: { max_num_sequence: width }, threads, sampling });
const engines = { host: await create('host'), device: await create('device') };
const prompt = 'The history of the printing press begins in the fifteenth century, when';
const kinds: Record<string, GenerateRequest['sampling']> = { greedy: { temperature: 0 }, sampled: { temperature: 0.8, topP: 0.95 } };

/** Runs `requests` requests through `width` clients; tokens per second and the device engine's re-plans. */
async function churn(engine: Engine, sampling: GenerateRequest['sampling'], seedBase: number): Promise<{ tokensPerSecond: number; replans: number | undefined }> {
  const replansBefore = (await engine.stats()).samplerReplans;
  let next = 0;
  let tokens = 0;
  const client = async (c: number) => {
    for (let k = 0; ; k++) {
      const index = next++;
      if (index >= requests) return;
      const maxTokens = 8 + ((c * 7 + k * 5) % 4) * 8;
      for await (const event of engine.generate({ prompt, maxTokens, ignoreEos: true, sampling, seed: seedBase + index })) {
        if (event.type === 'delta') tokens += event.tokens.length;
      }
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: width }, (_, c) => client(c)));
  const seconds = (performance.now() - start) / 1000;
  const replansAfter = (await engine.stats()).samplerReplans;
  return { tokensPerSecond: tokens / seconds, replans: replansAfter === undefined || replansBefore === undefined ? undefined : replansAfter - replansBefore };
}

for (const engine of Object.values(engines)) await churn(engine, { temperature: 0 }, 0);
const rows: Record<string, unknown>[] = [];
for (const [kind, sampling] of Object.entries(kinds)) {
  const runs = { host: [] as number[], device: [] as number[], ratio: [] as number[], replans: [] as number[] };
  for (let rep = 0; rep < reps; rep++) {
    const got = { host: 0, device: 0 };
    for (const side of rep % 2 === 0 ? (['host', 'device'] as const) : (['device', 'host'] as const)) {
      const run = await churn(engines[side], sampling, 1000 * (rep + 1));
      got[side] = run.tokensPerSecond;
      if (side === 'device' && run.replans !== undefined) runs.replans.push(run.replans / requests);
    }
    runs.host.push(got.host);
    runs.device.push(got.device);
    runs.ratio.push(got.device / got.host);
    if (!options.json) process.stderr.write(`${kind} rep ${rep + 1}/${reps}: host ${got.host.toFixed(1)}, device ${got.device.toFixed(1)} tok/s\n`);
  }
  rows.push({
    kind,
    width,
    requests,
    host_tokens_per_s: median(runs.host),
    device_tokens_per_s: median(runs.device),
    ratio: median(runs.ratio),
    // An engine older than the count reports none.
    replans_per_request: runs.replans.length > 0 ? median(runs.replans) : null,
    threads,
    model: basename(modelPath),
  });
}
await engines.host.dispose();
await engines.device.dispose();

if (options.json) {
  for (const row of rows) console.log(JSON.stringify(row));
} else {
  console.log(`\nrequests coming and going: ${requests} requests of 8-32 tokens through ${width} clients, ${basename(modelPath)}, cpu, ${threads} threads, median of ${reps}`);
  console.log(`${'kind'.padEnd(9)}${'host tok/s'.padStart(12)}${'device tok/s'.padStart(14)}${'device/host'.padStart(13)}${'re-plans/request'.padStart(18)}`);
  for (const row of rows) {
    const n = (key: string, digits: number) => (row[key] === null ? '-' : (row[key] as number).toFixed(digits));
    console.log(`${String(row.kind).padEnd(9)}${n('host_tokens_per_s', 1).padStart(12)}${n('device_tokens_per_s', 1).padStart(14)}${n('ratio', 3).padStart(13)}${n('replans_per_request', 2).padStart(18)}`);
  }
}
