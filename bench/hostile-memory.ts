// `npm run bench:hostile [-- --model PATH] [--requests N] [--settle SECONDS] [--grammar-timeout SECONDS]`
// Resident memory of `lmforge serve` through a battery of hostile requests beside 6 running
// streams: huge string enums, giant regex repetitions, many distinct schemas, bad and huge
// bodies, cancelled streams. Prints RSS before the battery, its peak during it, and after the
// server has been idle `--settle` seconds, with the cache gauges of /metrics at each point.
// The bar (issue 32): memory after settles within 10% of memory before.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cac } from 'cac';
import { pullModel } from '../runtime/models/pull-model.js';

const cli = cac('bench:hostile');
cli.option('--model <path>', 'GGUF file (default: the default model, pulled if needed)');
cli.option('--requests <n>', 'Hostile requests to send', { default: 200 });
cli.option('--settle <seconds>', 'Idle time before the last reading', { default: 30 });
cli.option('--grammar-timeout <seconds>', "The server's --grammar-timeout", { default: 3 });
cli.help();
const { options } = cli.parse();
if (options.help) process.exit(0);
const modelPath = typeof options.model === 'string' ? options.model : await pullModel();
const total = Number(options.requests);
const MiB = 2 ** 20;

const bin = fileURLToPath(new URL('../bin/lmforge.mjs', import.meta.url));
const port = 18_900 + Math.floor(Math.random() * 500);
const child = spawn(process.execPath, [bin, 'serve', modelPath, '--port', String(port), '--grammar-timeout', String(options.grammarTimeout)], { stdio: ['ignore', 'pipe', 'pipe'] });
process.on('exit', () => child.kill('SIGKILL')); // also when the bench itself fails
let out = '';
child.stdout.on('data', (chunk) => (out += chunk));
child.stderr.on('data', (chunk) => (out += chunk));
for (let i = 0; i < 1200 && !/serving: /.test(out) && child.exitCode === null; i++) await sleep(100);
if (child.exitCode !== null) throw new Error(`the server did not start: ${out.trim()}`);
const base = `http://127.0.0.1:${port}`;
const model = ((await (await fetch(`${base}/v1/models`)).json()) as { data: { id: string }[] }).data[0]!.id;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function rss(): number {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)![1]) * 1024;
}

async function cacheGauges(): Promise<string> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const lines = text.split('\n').filter((line) => line.startsWith('lmforge_cache_bytes{'));
  return lines.map((line) => line.replace(/^lmforge_cache_bytes\{cache="([^"]+)"\} (\S+)$/, (_, name: string, value: string) => `${name}=${(Number(value) / MiB).toFixed(1)}`)).join(' ') || '(no cache gauges)';
}

const messages = [{ role: 'user', content: 'Write a long story about a lighthouse keeper.' }];
/** Longest a request of the battery may take before it counts as `timeout`. */
const REQUEST_TIMEOUT_MS = 120_000;
async function chat(body: object | string): Promise<number> {
  const response = await fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify({ model, messages, ...body }),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  await response.arrayBuffer();
  return response.status;
}

/** A stream cancelled after its first chunk. */
async function cancelledStream(): Promise<number> {
  const abort = new AbortController();
  const response = await fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages, stream: true, max_tokens: 200 }),
    signal: abort.signal,
  });
  await response.body!.getReader().read();
  abort.abort();
  return response.status;
}

const enumSchema = (n: number, salt: number) => ({
  type: 'object',
  properties: { v: { type: 'string', enum: Array.from({ length: n }, (_, i) => `${salt}-value-${i}-${(i * 7919).toString(36)}`) } },
  required: ['v'],
});
const distinctSchema = (i: number) => ({
  type: 'object',
  properties: Object.fromEntries(Array.from({ length: 4 + (i % 5) }, (_, k) => [`f${i}_${k}`, k % 2 ? { type: 'integer', minimum: i } : { type: 'string', maxLength: 8 + k }])),
  required: [`f${i}_0`],
});
const schemaFormat = (schema: object) => ({ response_format: { type: 'json_schema', json_schema: { name: 's', schema } } });

/** The hostile kinds, in turn. */
const kinds: ((i: number) => Promise<number>)[] = [
  (i) => chat({ max_tokens: 8, ...schemaFormat(enumSchema(20_000 + i, i)) }),
  (i) => chat({ max_tokens: 3, ...schemaFormat(enumSchema(1_000, i)) }),
  (i) => chat({ max_tokens: 3, response_format: { type: 'regex', pattern: `b{${20_000 + i}}` } }),
  (i) => chat({ max_tokens: 8, ...schemaFormat(distinctSchema(i)) }),
  (i) => chat({ max_tokens: 8, ...schemaFormat(distinctSchema(i + 100_000)) }),
  () => chat(`{"model": "${model}", "messages": [{"role": "user", "content": "unterminated`),
  () => chat(JSON.stringify({ model, messages: [{ role: 'user', content: 'x'.repeat(8 * MiB) }] })),
  () => chat(`{"model":"${model}","messages":${'['.repeat(100_000)}`),
  () => cancelledStream(),
  (i) => chat({ max_tokens: 4, logit_bias: Object.fromEntries(Array.from({ length: 300 }, (_, k) => [String(k + i), 1])) }),
];

// Warm up: one of each cheap path, so what "before" measures is the serving process itself.
await chat({ max_tokens: 4 });
await chat({ max_tokens: 4, response_format: { type: 'json_object' } });
await sleep(2000);
const before = rss();
const beforeCaches = await cacheGauges();

let streaming = true;
const streams = Array.from({ length: 6 }, async () => {
  let count = 0;
  while (streaming) {
    await chat({ max_tokens: 256, stream: true }).catch(() => undefined);
    count++;
  }
  return count;
});

let peak = before;
const sampler = setInterval(() => (peak = Math.max(peak, rss())), 100);
const statuses = new Map<string, number>();
/** Slowest answer of each kind, in seconds. */
const slowest = kinds.map(() => 0);
let next = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: 8 }, async () => {
    while (next < total) {
      const i = next++;
      const sent = performance.now();
      const status = await kinds[i % kinds.length]!(i).catch((error: Error) => (error.name === 'TimeoutError' ? 'timeout' : `fetch error: ${error.name}`));
      slowest[i % kinds.length] = Math.max(slowest[i % kinds.length]!, (performance.now() - sent) / 1000);
      if ((i + 1) % 25 === 0) console.error(`  ${i + 1} sent, ${((performance.now() - started) / 1000).toFixed(0)} s, resident ${(rss() / MiB).toFixed(0)} MiB`);
      const key = String(status);
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
    }
  }),
);
const batterySeconds = (performance.now() - started) / 1000;
streaming = false;
const streamed = (await Promise.all(streams)).reduce((a, b) => a + b, 0);
const peakCaches = await cacheGauges();
clearInterval(sampler);
peak = Math.max(peak, rss());
await sleep(Number(options.settle) * 1000);
const after = rss();
const afterCaches = await cacheGauges();
child.kill('SIGTERM');

console.log(`bench:hostile ${basename(modelPath)}: ${total} hostile requests (${[...statuses].map(([k, v]) => `${k}: ${v}`).join(', ')}) in ${batterySeconds.toFixed(0)} s beside 6 streams (${streamed} streams done)`);
console.log(`slowest answer by kind (s): ${slowest.map((s) => s.toFixed(1)).join(' ')}`);
console.log(`resident MiB  before ${(before / MiB).toFixed(0)}  peak ${(peak / MiB).toFixed(0)}  after ${options.settle} s idle ${(after / MiB).toFixed(0)}  (after/before ${(after / before).toFixed(3)})`);
console.log(`cache MiB before: ${beforeCaches}`);
console.log(`cache MiB at the end of the battery: ${peakCaches}`);
console.log(`cache MiB after: ${afterCaches}`);
