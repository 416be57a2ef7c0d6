// `npx tsx bench/engine-boundary.ts [--model PATH] [--rounds 3] [--threads 2] [--tokens 128] [--json]`
// What the engine's process boundary costs: the same engine loop in a child process (IPC,
// 'advanced' serialization: the default) and in a worker thread (what the server used before),
// started alternately in one run, each measured through Engine.generate as the server calls it.
// Single stream: tokens per second from the first token to the last of one greedy request of
// --tokens tokens. Throughput: 16 requests of half as many tokens at once, all tokens over the
// wall time.
import { cac } from 'cac';
import { Engine } from '../runtime/engine/client/engine.js';
import type { EngineIsolation, GenerateRequest } from '../runtime/engine/protocol.js';
import { pullModel } from '../runtime/models/pull-model.js';
import { median } from '../cli/serve-bench/percentile.js';

const cli = cac('engine-boundary');
cli.option('--model <path>', 'GGUF file (default: the default model, pulled if needed)');
cli.option('--rounds <n>', 'Rounds; each starts both engines once, in alternating order', { default: 3 });
cli.option('--threads <n>', 'Decode threads', { default: 2 });
cli.option('--tokens <n>', 'Tokens of the single stream (each of the 16 gets half)', { default: 128 });
cli.option('--json', 'One JSON object');
cli.help();
const { options } = cli.parse();
if (options.help) process.exit(0);
const rounds = Number(options.rounds);
const threads = Number(options.threads);
const tokens = Number(options.tokens);
const modelPath = typeof options.model === 'string' ? options.model : await pullModel();

/** Distinct prompts, so the prefix cache serves none of them. */
const request = (index: number, maxTokens: number): GenerateRequest => ({
  prompt: `Request ${index} of round ${Date.now()}: write a long story about a lighthouse keeper named ${index}.`,
  maxTokens,
  ignoreEos: true,
  cachePrompt: false,
  sampling: { temperature: 0 },
});

/** Token arrival times (ms) of one request. */
async function tokenTimes(engine: Engine, body: GenerateRequest): Promise<number[]> {
  const times: number[] = [];
  for await (const event of engine.generate(body)) {
    if (event.type === 'delta') for (const _ of event.tokens) times.push(performance.now());
  }
  return times;
}

async function measure(isolation: EngineIsolation, round: number): Promise<{ singleTps: number; throughputTps: number }> {
  const engine = await Engine.create({ modelPath, device: 'cpu', mode: 'local', overrides: { max_num_sequence: 16, context_window_size: 512, max_total_seq_length: 16 * 512 }, threads, isolation });
  try {
    await tokenTimes(engine, request(-1, 8)); // warm-up
    const single = await tokenTimes(engine, request(round * 100, tokens));
    const singleTps = (single.length - 1) / ((single.at(-1)! - single[0]!) / 1000);
    const started = performance.now();
    const all = await Promise.all(Array.from({ length: 16 }, (_, i) => tokenTimes(engine, request(round * 100 + 1 + i, tokens / 2))));
    const throughputTps = all.reduce((sum, times) => sum + times.length, 0) / ((performance.now() - started) / 1000);
    return { singleTps, throughputTps };
  } finally {
    await engine.dispose();
  }
}

const results: Record<EngineIsolation, { singleTps: number; throughputTps: number }[]> = { process: [], thread: [] };
for (let round = 0; round < rounds; round++) {
  const order: EngineIsolation[] = round % 2 === 0 ? ['thread', 'process'] : ['process', 'thread'];
  for (const isolation of order) {
    const result = await measure(isolation, round);
    results[isolation].push(result);
    if (!options.json) console.log(`round ${round + 1} ${isolation.padEnd(7)} single ${result.singleTps.toFixed(1)} tok/s, 16 at once ${result.throughputTps.toFixed(1)} tok/s`);
  }
}
const summary = (isolation: EngineIsolation) => ({
  singleTps: median(results[isolation].map((r) => r.singleTps)),
  throughputTps: median(results[isolation].map((r) => r.throughputTps)),
});
const thread = summary('thread');
const child = summary('process');
const report = { model: modelPath, threads, rounds, tokens, thread, process: child, ratio: { single: child.singleTps / thread.singleTps, throughput: child.throughputTps / thread.throughputTps } };
if (options.json) console.log(JSON.stringify(report));
else console.log(`median: single ${(100 * (report.ratio.single - 1)).toFixed(1)}% , 16 at once ${(100 * (report.ratio.throughput - 1)).toFixed(1)}% (process against thread)`);
