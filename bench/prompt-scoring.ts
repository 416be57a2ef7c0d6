// `npm run bench:prompt-scoring [-- --model PATH] [--tokens 64,256,1024] [--reps 5] [--threads N]`
// What scoring a prompt costs (legacy completions' echo with logprobs, what evaluation harnesses
// send): the same token prompt computed plain (max_tokens 1, cache_prompt false, so computed
// whole) and scored (echo, logprobs 1, max_tokens 0), alternately, on one server. Scoring asks a
// logit row at every prompt position, at most scoredRowsPerStep a step, and reads each row's
// log-softmax on the engine's thread; the ratio says what that adds. Medians of --reps.
import { availableParallelism } from 'node:os';
import { cac } from 'cac';
import { pullModel } from '../runtime/models/pull-model.js';
import { createServer } from '../runtime/server/create-server.js';

const cli = cac('bench:prompt-scoring');
cli.option('--model <path>', 'GGUF file or model name (default: the default model)');
cli.option('--tokens <list>', 'Prompt lengths in tokens', { default: '64,256,1024' });
cli.option('--reps <n>', 'Requests of each kind per length', { default: 5 });
cli.option('--threads <n>', 'Threads llama.cpp decodes with', { default: availableParallelism() });
cli.help();
const { options } = cli.parse();
if (options.help) process.exit(0);

const lengths = String(options.tokens).split(',').map(Number);
const reps = Number(options.reps);
const model = typeof options.model === 'string' ? options.model : await pullModel();
const server = await createServer({ model, port: 0, threads: Number(options.threads), overrides: { context_window_size: Math.max(...lengths) + 16 }, ui: false });
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function timed(body: object): Promise<number> {
  const start = performance.now();
  const response = await fetch(`${server.url}/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: server.servedModelName, ...body }) });
  if (response.status !== 200) throw new Error(`${response.status}: ${await response.text()}`);
  await response.json();
  return performance.now() - start;
}

try {
  const vocab = server.engine.info.vocabSize;
  console.log(`model ${server.servedModelName}, vocabulary ${vocab}, ${server.engine.info.config.scoredRowsPerStep} rows scored a step, ${options.threads} threads`);
  console.log('tokens | plain ms | scored ms | scored / plain');
  for (const length of lengths) {
    const prompt = Array.from({ length }, (_, i) => 1000 + ((i * 7919) % 20000));
    const plain: number[] = [];
    const scored: number[] = [];
    await timed({ prompt, max_tokens: 1 }); // warm-up
    for (let rep = 0; rep < reps; rep++) {
      plain.push(await timed({ prompt, max_tokens: 1, temperature: 0, cache_prompt: false }));
      scored.push(await timed({ prompt, max_tokens: 0, echo: true, logprobs: 1 }));
    }
    console.log(`${length} | ${median(plain).toFixed(0)} | ${median(scored).toFixed(0)} | ${(median(scored) / median(plain)).toFixed(2)}`);
  }
} finally {
  await server.close();
}
