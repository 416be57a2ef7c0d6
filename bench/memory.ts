// `npm run bench:memory [-- --json] [--model PATH]`
// Resident memory of `lmforge serve` against what runtime/engine/memory-budget.ts predicts,
// for a few configurations: each starts a server, sends 4 concurrent requests of 64 tokens,
// then reads VmRSS (now) and VmHWM (peak) from /proc/PID/status and stops it. The prediction
// is an upper bound used to size the KV cache, so measured/predicted should stay below 1.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cac } from 'cac';
import { listDevices } from '../runtime/backend/devices.js';
import { loadLlamaLibrary } from '../runtime/backend/library.js';
import { kvBytesPerToken, LlamaModel } from '../runtime/backend/model.js';
import { computeEngineConfig, parseOverrides, type EngineMode, type ModelFacts } from '../runtime/engine/engine-config.js';
import { logitRows, requiredBytes, ubatchFor } from '../runtime/engine/memory-budget.js';
import { pullModel } from '../runtime/models/pull-model.js';

const cli = cac('bench:memory');
cli.option('--model <path>', 'GGUF file (default: the default model, pulled if needed)');
cli.option('--json', 'One JSON object per configuration instead of the table');
cli.help();
const { options } = cli.parse();
if (options.help) process.exit(0);
const modelPath = typeof options.model === 'string' ? options.model : await pullModel();
const json = options.json === true;

interface Case {
  mode: EngineMode;
  overrides?: string;
  /** LMFORGE_MEMORY_LIMIT_BYTES for the server. */
  limit?: number;
}
const GiB = 2 ** 30;
const cases: Case[] = [
  { mode: 'local' },
  { mode: 'interactive' },
  { mode: 'server', limit: 1 * GiB },
  { mode: 'server', limit: 2 * GiB },
  { mode: 'server', limit: 4 * GiB },
  { mode: 'server', overrides: 'max_num_sequence=16;max_total_seq_length=32768' },
  { mode: 'server', overrides: 'max_num_sequence=128;max_total_seq_length=131072' },
];

// The model's figures, as the engine worker reads them.
const { api } = loadLlamaLibrary({ kinds: ['cpu'] });
const model = await LlamaModel.create(api, { path: modelPath, devices: listDevices(api).filter((d) => d.kind === 'cpu').slice(0, 1) });
const facts: Omit<ModelFacts, 'memory'> = {
  contextLength: model.info.contextLength,
  slidingWindow: model.info.slidingWindow,
  kvBytesPerToken: kvBytesPerToken(model.info),
  modelBytes: model.info.sizeBytes,
  vocabSize: model.vocabulary.size,
  embeddingLength: model.info.embeddingLength,
  maxParallelSequences: api.llama_max_parallel_sequences(),
};
model.dispose();

const bin = fileURLToPath(new URL('../bin/lmforge.mjs', import.meta.url));
const MiB = 2 ** 20;
const rows = [];
let port = 18_400 + Math.floor(Math.random() * 500);
for (const c of cases) {
  port++;
  const args = ['serve', modelPath, '--mode', c.mode, '--port', String(port), ...(c.overrides ? ['--overrides', c.overrides] : [])];
  const env = { ...process.env, ...(c.limit ? { LMFORGE_MEMORY_LIMIT_BYTES: String(c.limit) } : {}) };
  const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  child.stderr.on('data', (chunk) => (err += chunk));
  for (let i = 0; i < 1200 && !/serving: /.test(out) && child.exitCode === null; i++) await new Promise((resolve) => setTimeout(resolve, 100));
  if (child.exitCode !== null) {
    console.error(`bench:memory: ${c.mode} ${c.overrides ?? ''} did not start: ${err.trim()}`);
    continue;
  }
  const request = () =>
    fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'Tell a long story about a lighthouse keeper.' }], max_tokens: 64, ignore_eos: true }),
    }).then((response) => response.text());
  await Promise.all([request(), request(), request(), request()]);
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
  child.kill('SIGKILL');
  const engine = /engine: +(.*)/.exec(out)?.[1] ?? '';
  const number = (key: string) => Number(new RegExp(`${key}=(\\d+)`).exec(engine)?.[1]);
  const cells = number('max_total_seq_length');
  const sequences = number('max_num_sequence');
  const prefill = number('prefill_chunk_size');
  const recycling = number('prefix_cache_max_num_recycling_seqs');
  const logitRowCount = logitRows(sequences, sequences + recycling);
  const predicted = requiredBytes(cells, facts, { onDevice: false, totalBytes: 0, availableBytes: 0, source: '' }, logitRowCount, ubatchFor(prefill + sequences));
  // What the config rule chose from the same figures, as a cross-check of the parse.
  if (c.limit) {
    const memory = { onDevice: false, totalBytes: c.limit, availableBytes: c.limit, source: 'LMFORGE_MEMORY_LIMIT_BYTES' };
    const config = computeEngineConfig(c.mode, parseOverrides(c.overrides), { ...facts, memory });
    if (config.maxTotalSeqLength !== cells) console.error(`bench:memory: the server chose ${cells} cells, the rule ${config.maxTotalSeqLength}`);
  }
  rows.push({
    mode: c.mode,
    overrides: c.overrides ?? '',
    limit_bytes: c.limit ?? null,
    max_num_sequence: sequences,
    max_total_seq_length: cells,
    kv_bytes: cells * facts.kvBytesPerToken,
    predicted_bytes: Math.round(predicted),
    rss_bytes: kb('VmRSS'),
    peak_bytes: kb('VmHWM'),
    peak_over_predicted: kb('VmHWM') / predicted,
    model: basename(modelPath),
  });
}

if (json) {
  for (const row of rows) console.log(JSON.stringify(row));
} else {
  console.log(`resident memory of lmforge serve, ${basename(modelPath)}, after 4 concurrent requests of 64 tokens (MiB)`);
  console.log(`${'configuration'.padEnd(58)}${'cells'.padStart(8)}${'kv'.padStart(8)}${'predicted'.padStart(11)}${'rss'.padStart(8)}${'peak'.padStart(8)}${'peak/pred'.padStart(11)}`);
  for (const row of rows) {
    const name = `${row.mode}${row.limit_bytes ? ` limit=${row.limit_bytes / GiB} GiB` : ''}${row.overrides ? ` ${row.overrides}` : ''}`;
    const mib = (bytes: number) => String(Math.round(bytes / MiB)).padStart(8);
    console.log(`${name.padEnd(58)}${String(row.max_total_seq_length).padStart(8)}${mib(row.kv_bytes)}${mib(row.predicted_bytes).padStart(11)}${mib(row.rss_bytes)}${mib(row.peak_bytes)}${row.peak_over_predicted.toFixed(2).padStart(11)}`);
  }
  console.log('predicted: weights + KV + mask + activations + logits + 320 MiB runtime (memory-budget.ts); peak: VmHWM');
}
