// `npm run bench:compile-startup -- [MODEL] [--runs N]`: a raw GGUF against the folder
// `lmforge compile` makes of it, in the same run, alternating: time from spawning `lmforge
// serve` to /health answering 200, and time to the first token of the first json_schema
// request and of the first request with tools. Each request is the first of a cold process
// with an empty grammar cache (a fresh LMFORGE_HOME), so nothing is cached between runs. "First
// token" is the first streamed chunk with output: for tools, the call with its name (the
// model writes `<tool_call>{"name": ...` before it, some ten tokens).
// MODEL defaults to the default model (SmolLM2); the folder is compiled into a temp dir.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cac } from 'cac';
import { runCompileModel } from '../cli/compile.js';
import { defaultModelFile } from '../runtime/models/pull-model.js';
import { percentile } from '../cli/serve-bench/percentile.js';

const bin = fileURLToPath(new URL('../bin/lmforge.mjs', import.meta.url));
const cli = cac('bench:compile-startup');
cli.option('--runs <n>', 'Cold starts per variant and request kind', { default: 3 });
const { args, options } = cli.parse();
const model = args[0] ?? defaultModelFile();
const runs = Number(options.runs);

const schema = { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer' } }, required: ['name', 'age'] };
const tools = [{ type: 'function', function: { name: 'get_weather', description: 'Weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }];
const REQUESTS = {
  json_schema: { messages: [{ role: 'user', content: 'A person as JSON' }], response_format: { type: 'json_schema', json_schema: { name: 'person', schema } } },
  tools: { messages: [{ role: 'user', content: 'What is the weather in Paris?' }], tools, tool_choice: 'required' },
} as const;
type Kind = keyof typeof REQUESTS;

interface Sample { healthMs: number; firstTokenMs: number }

async function coldRun(target: string, kind: Kind, port: number): Promise<Sample> {
  const home = await mkdtemp(join(tmpdir(), 'lmforge-bench-home-'));
  const started = performance.now();
  const child = spawn(process.execPath, [bin, 'serve', target, '--port', String(port), '--no-ui'], { stdio: 'ignore', env: { ...process.env, LMFORGE_HOME: home } });
  try {
    const url = `http://127.0.0.1:${port}`;
    for (;;) {
      const ok = await fetch(`${url}/health`).then((r) => r.status === 200, () => false);
      if (ok) break;
      if (child.exitCode !== null) throw new Error(`serve ${target} exited with ${child.exitCode}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const healthMs = performance.now() - started;
    const models = (await (await fetch(`${url}/v1/models`)).json()) as { data: { id: string }[] };
    const sent = performance.now();
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: models.data[0]!.id, max_tokens: 48, stream: true, seed: 1, ...REQUESTS[kind] }),
    });
    if (response.status !== 200) throw new Error(`${kind}: HTTP ${response.status} ${await response.text()}`);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    let firstTokenMs = NaN;
    // The first chunk that carries output (content or a tool call), not the role-only one.
    while (Number.isNaN(firstTokenMs)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`${kind}: the stream ended before any output`);
      text += decoder.decode(value, { stream: true });
      if (/"(content|arguments|name)":"[^"]/.test(text) || /"tool_calls":\[/.test(text)) firstTokenMs = performance.now() - sent;
    }
    await reader.cancel();
    return { healthMs, firstTokenMs };
  } finally {
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    await rm(home, { recursive: true, force: true });
  }
}

const workdir = await mkdtemp(join(tmpdir(), 'lmforge-bench-compile-'));
const folder = join(workdir, 'compiled');
const compileStart = performance.now();
const status = await runCompileModel(model, { out: folder }, { log: () => {}, error: (line) => console.error(line) });
if (status !== 0) throw new Error(`lmforge compile ${model} failed`);
console.log(`compile: ${((performance.now() - compileStart) / 1000).toFixed(1)} s (${model} -> ${folder})`);

const variants = { raw: model, compiled: folder };
const samples: Record<string, Sample[]> = {};
let port = 18700 + (process.pid % 500);
for (let run = 0; run < runs; run++) {
  for (const kind of Object.keys(REQUESTS) as Kind[]) {
    // Alternate which variant goes first, so drift in machine load falls on both.
    const order = run % 2 === 0 ? (['raw', 'compiled'] as const) : (['compiled', 'raw'] as const);
    for (const variant of order) {
      const sample = await coldRun(variants[variant], kind, port++);
      (samples[`${variant} ${kind}`] ??= []).push(sample);
    }
  }
}
const median = (values: number[]) => percentile(values, 50);
console.log(`\n${runs} cold starts each; medians in ms (min-max)`);
console.log('variant   request       /health ready          first token');
for (const [key, list] of Object.entries(samples)) {
  const h = list.map((s) => s.healthMs);
  const t = list.map((s) => s.firstTokenMs);
  const [variant, kind] = key.split(' ');
  console.log(`${variant!.padEnd(9)} ${kind!.padEnd(12)} ${median(h).toFixed(0).padStart(6)} (${Math.min(...h).toFixed(0)}-${Math.max(...h).toFixed(0)})    ${median(t).toFixed(0).padStart(6)} (${Math.min(...t).toFixed(0)}-${Math.max(...t).toFixed(0)})`);
}
for (const kind of Object.keys(REQUESTS)) {
  const raw = median(samples[`raw ${kind}`]!.map((s) => s.firstTokenMs));
  const compiled = median(samples[`compiled ${kind}`]!.map((s) => s.firstTokenMs));
  console.log(`${kind}: first token, compiled/raw = ${(compiled / raw).toFixed(2)}`);
}
await rm(workdir, { recursive: true, force: true });
