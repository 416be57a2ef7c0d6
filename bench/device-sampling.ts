// `npx tsx bench/device-sampling.ts [--model PATH] [--reps 3] [--tokens 32] [--widths 1,8,32,64] [--threads N] [--kinds greedy,sampled,logprobs,own-links,masks] [--json]`
// Decode tokens per second with tokens chosen in the model's graph (--sampling device) against
// the host path (--sampling host), on the CPU, in one process and in turn (the order reversed
// every other repetition), so that load from elsewhere on the machine hits both alike. Five
// kinds of request: greedy, sampled (temperature 0.8, top_p 0.95, a seed per sequence), greedy
// with logprobs (top 5), own-links (sampled with top_n_sigma 2, typical_p 0.9, XTC at 0.5
// and DRY at 0.8: the stages lmforge's own links run in the graph), and masks (sampled as
// `sampled`, with vLLM's min_tokens for the whole output and two bad_words: a token mask
// combined on the host and uploaded a step, as a grammar's is).
// Each figure is the median over the repetitions; a ratio is the median of per-repetition
// device / host ratios (> 1: the device path is faster).
import { basename } from 'node:path';
import { Engine } from '../runtime/engine/client/engine.js';
import type { GenerateRequest } from '../runtime/engine/protocol.js';
import { decodeBenchOptions } from './engine/decode-options.js';
import { engineDecode } from './engine/engine-decode.js';
import { median } from '../cli/serve-bench/percentile.js';

const { modelPath, widths, reps, maxTokens, json, threads } = await decodeBenchOptions('bench:device-sampling', { reps: 3, widths: '1,8,32,64' });
const maxWidth = Math.max(...widths);
const create = (sampling: 'device' | 'host') =>
  Engine.create({ modelPath, device: 'cpu', mode: 'local', overrides: { max_num_sequence: maxWidth, prefix_cache_max_num_recycling_seqs: 0 }, threads, sampling });
const engines = { host: await create('host'), device: await create('device') };
const prompt = 'The history of the printing press begins in the fifteenth century, when';
const allKinds: Record<string, { sampling: GenerateRequest['sampling']; seeded?: true; fields?: Partial<GenerateRequest> }> = {
  greedy: { sampling: { temperature: 0 } },
  sampled: { sampling: { temperature: 0.8, topP: 0.95 }, seeded: true },
  // Greedy with each token's logprob and top 5: a log-softmax and a top-k over the vocabulary in the graph.
  logprobs: { sampling: { temperature: 0, logprobs: true, topLogprobs: 5 } },
  // top_n_sigma's mean and deviation over the vocabulary, typical_p's entropy and sort, XTC's
  // input, DRY's penalties listed on the host each step.
  'own-links': { sampling: { temperature: 0.8, topNSigma: 2, typicalP: 0.9, xtcProbability: 0.5, dryMultiplier: 0.8 }, seeded: true },
  // A mask a step: min_tokens' ban (every request runs to max_tokens) and the bad words' ends.
  masks: { sampling: { temperature: 0.8, topP: 0.95 }, seeded: true, fields: { minTokens: maxTokens, badWords: ['the', 'printing press'] } },
};
// --kinds a,b picks some (default: all).
const kindsArg = process.argv.indexOf('--kinds');
const chosen = kindsArg > 0 ? process.argv[kindsArg + 1]!.split(',') : Object.keys(allKinds);
const unknown = chosen.filter((kind) => !(kind in allKinds));
if (unknown.length > 0) {
  console.error(`bench:device-sampling: --kinds takes ${Object.keys(allKinds).join(', ')}; not ${unknown.join(', ')}`);
  process.exit(1);
}
const kinds = Object.fromEntries(chosen.map((kind) => [kind, allKinds[kind]!]));

for (const engine of Object.values(engines)) await engineDecode(engine, prompt, maxWidth, 8);
const rows: Record<string, unknown>[] = [];
for (const [kind, { sampling, seeded, fields }] of Object.entries(kinds)) {
  for (const width of widths) {
    const runs = { host: [] as number[], device: [] as number[], ratio: [] as number[] };
    for (let rep = 0; rep < reps; rep++) {
      const got = { host: 0, device: 0 };
      for (const side of rep % 2 === 0 ? (['host', 'device'] as const) : (['device', 'host'] as const)) {
        const run = await engineDecode(engines[side], prompt, width, maxTokens, sampling, seeded ? 1000 * rep : undefined, fields);
        got[side] = run.tokens / run.seconds;
      }
      runs.host.push(got.host);
      runs.device.push(got.device);
      runs.ratio.push(got.device / got.host);
      if (!json) process.stderr.write(`${kind} width ${width} rep ${rep + 1}/${reps}: host ${got.host.toFixed(1)}, device ${got.device.toFixed(1)} tok/s\n`);
    }
    rows.push({ kind, width, host_tokens_per_s: median(runs.host), device_tokens_per_s: median(runs.device), ratio: median(runs.ratio), host_runs: runs.host, device_runs: runs.device, threads, model: basename(modelPath) });
  }
}
await engines.host.dispose();
await engines.device.dispose();

if (json) {
  for (const row of rows) console.log(JSON.stringify(row));
} else {
  console.log(`\ndecode tokens/s, ${basename(modelPath)}, cpu, ${threads} threads, ${maxTokens - 1} decode steps per sequence, median of ${reps}`);
  console.log(`${'kind'.padEnd(9)}${'width'.padStart(6)}${'host'.padStart(10)}${'device'.padStart(10)}${'device/host'.padStart(13)}`);
  for (const row of rows) {
    const n = (key: string, digits: number) => (row[key] as number).toFixed(digits);
    console.log(`${String(row.kind).padEnd(9)}${String(row.width).padStart(6)}${n('host_tokens_per_s', 1).padStart(10)}${n('device_tokens_per_s', 1).padStart(10)}${n('ratio', 3).padStart(13)}`);
  }
}
