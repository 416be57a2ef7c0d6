// `npx tsx bench/recompute-drift.ts [--model PATH] [--sequences 4] [--tokens 40] [--threads 1]`
// How far a backend's logits move when the same tokens are computed in another shape: the same
// greedy requests run once on a roomy engine and once on one whose KV budget forces preemption,
// so each preempted sequence is recomputed (prompt and output so far) in 16-token chunks in
// other cells. Prints, per sequence, the largest |Δ logprob| of the chosen tokens while both
// outputs agree, and the token where they part, if they do: what "exact" can and cannot mean
// across batch shapes on this device (README, "What exact means on each device").
import { cac } from 'cac';
import { Engine } from '../runtime/engine/client/engine.js';
import type { GenerateRequest, TokenLogprob } from '../runtime/engine/protocol.js';
import { tinyModelPath } from '../fixtures/paths.js';
import { partingIndex } from './compare/parting-index.js';

const cli = cac('bench:recompute-drift');
cli.option('--model <path>', 'GGUF file', { default: tinyModelPath });
cli.option('--sequences <n>', 'Requests sent together', { default: 4 });
cli.option('--tokens <n>', 'Tokens generated per request', { default: 40 });
cli.option('--threads <n>', 'Decode threads', { default: 1 });
cli.help();
const { options } = cli.parse();
if (options.help) process.exit(0);
const sequences = Number(options.sequences);
const tokens = Number(options.tokens);

// Prompts of 12 tokens, distinct per request: a phrase of three ids repeated four times.
const prompts = Array.from({ length: sequences }, (_, i) => Array.from({ length: 12 }, (_, k) => 1000 + ((i * 7919 + (k % 3) * 104_729) % 30_000)));
const requests: GenerateRequest[] = prompts.map((prompt) => ({ prompt, maxTokens: tokens, ignoreEos: true, sampling: { temperature: 0, logprobs: true, topLogprobs: 2 } }));
const base = { modelPath: String(options.model), device: 'cpu', mode: 'local', threads: Number(options.threads), sampling: 'host' } as const;
// Room for about two sequences at a time: the others wait, are preempted and come back.
const tightCells = 2 * (12 + tokens) - 8;

async function run(engine: Engine): Promise<TokenLogprob[][]> {
  return Promise.all(
    requests.map(async (request) => {
      const out: TokenLogprob[] = [];
      for await (const event of engine.generate(request)) if (event.type === 'delta' && event.logprobs) out.push(...event.logprobs);
      return out;
    }),
  );
}

const roomy = await Engine.create({ ...base, overrides: { context_window_size: 1024, prefix_cache_max_num_recycling_seqs: 0, max_num_sequence: sequences } });
const tight = await Engine.create({ ...base, overrides: { context_window_size: 512, max_total_seq_length: tightCells, prefill_chunk_size: 16, prefix_cache_max_num_recycling_seqs: 0, max_num_sequence: sequences } });
const [once, recomputed] = [await run(roomy), await run(tight)];
console.log(`model ${base.modelPath}, ${sequences} sequences × ${tokens} tokens, ${base.threads} thread(s), ${(await tight.stats()).preemptions} preemptions in the tight engine (${tightCells} cells)`);
for (let s = 0; s < sequences; s++) {
  const a = once[s]!;
  const b = recomputed[s]!;
  const parted = partingIndex(a.map(({ token }) => token), b.map(({ token }) => token));
  let drift = 0;
  for (let k = 0; k < (parted >= 0 ? parted : a.length); k++) drift = Math.max(drift, Math.abs(a[k]!.logprob - b[k]!.logprob));
  // Where both have a token there, how close the first run's two best candidates were.
  const there = parted >= 0 && parted < b.length ? a[parted] : undefined;
  const gap = there ? ` (the two candidates there were ${Math.abs((there.top[0]?.logprob ?? 0) - (there.top[1]?.logprob ?? 0)).toExponential(1)} apart)` : '';
  console.log(`sequence ${s}: max |Δ logprob| ${drift.toExponential(2)} while equal; ${parted >= 0 ? `parted at token ${parted}${gap}` : 'equal throughout'}`);
}
await roomy.dispose();
await tight.dispose();
