// results/summary.txt of the GPU run kit (run-suite.sh): the machine and builds, the table of
// issue 29 (lmforge against llama-server per concurrency), GPU utilisation and the busiest
// server threads during the widest run, lmforge's variants, bench:speculative's rows, each goal
// against its figure, the suite's time and what its budget cut, bench/host.ts's step split and
// profile beside the split of the servers' own steps (step-profile-*.json), and the log
// tail of any server that died. Reads only what exists: a partial run summarises too.
//   node bench/gpu/summarize.mjs RESULTS_DIR
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2];
const read = (name) => (existsSync(join(dir, name)) ? readFileSync(join(dir, name), 'utf8') : undefined);
const json = (name) => {
  try {
    return JSON.parse(read(name) ?? '');
  } catch {
    return undefined;
  }
};
const fixed = (n, digits = 0) => (typeof n === 'number' && Number.isFinite(n) ? n.toFixed(digits) : '-');
const out = [];
const say = (line = '') => out.push(line);

say('# GPU run (bench/gpu/run-suite.sh)');
say(read('machine.txt')?.trim());
say(read('builds.txt')?.trim() ?? 'builds: no record');
if (read('cuda-build-failure.txt')) say(`\nCUDA build failed; its last lines:\n${read('cuda-build-failure.txt')}`);

/** nvidia-smi's 200 ms samples during a server's run at concurrency c: [utilisation %, memory MiB] each. */
const gpuSamples = (server, c) =>
  (read(`gpu-util-${server}-c${c}.csv`) ?? '').trim().split('\n').map((line) => line.split(',').map(Number)).filter((r) => r.length === 2 && r.every(Number.isFinite));
const mean = (values) => values.reduce((s, x) => s + x, 0) / Math.max(1, values.length);

/**
 * Whether the peer runs on the libraries lmforge maps: each of lmforge's libllama/libggml files is
 * mapped by the peer too, and the peer's others are its own code (libllama-common, the server's
 * implementation), which lmforge has no counterpart of.
 */
function sameLibraries(ours, peers) {
  if (!ours?.trim() || !peers?.trim()) return 'unknown (a server did not run)';
  const lines = (text) => new Set(text.trim().split('\n'));
  const [a, b] = [lines(ours), lines(peers)];
  const missing = [...a].filter((file) => !b.has(file));
  const extra = [...b].filter((file) => !a.has(file));
  const foreign = extra.filter((file) => !/\/lib(llama-common|llama-server-impl)\.so$/.test(file));
  if (missing.length || foreign.length) return `NO (only lmforge: ${missing.join(', ') || 'none'}; only the peer: ${foreign.join(', ') || 'none'})`;
  return extra.length ? `yes (the peer also maps its own ${extra.map((file) => file.split('/').at(-1)).join(', ')})` : 'yes';
}

const servers = ['lmforge', 'llama-server'];
const concurrencies = [...new Set(readdirSync(dir).map((name) => /^bench-.*-c(\d+)\.json$/.exec(name)?.[1]).filter(Boolean).map(Number))].sort((a, b) => a - b);
const report = (server, c) => json(`bench-${server}-c${c}.json`);
if (concurrencies.length) {
  say(`\nsame libraries in both servers: ${sameLibraries(...servers.map((s) => read(`${s}-libraries.txt`)))}`);
  say(`  ${(read('lmforge-libraries.txt')?.trim() ?? '').split('\n').join('\n  ')}`);
  say('\n| concurrency | lmforge tok/s | llama-server tok/s | ratio | TTFT p50 (ms) lmforge / llama-server | TPOT p50 (ms) lmforge / llama-server | failed |');
  say('|---|---|---|---|---|---|---|');
  for (const c of concurrencies) {
    const [a, b] = servers.map((s) => report(s, c));
    const ratio = a && b ? a.output_throughput / b.output_throughput : undefined;
    say(`| ${c} | ${fixed(a?.output_throughput)} | ${fixed(b?.output_throughput)} | ${fixed(ratio, 2)} | ${fixed(a?.ttft_ms?.p50, 1)} / ${fixed(b?.ttft_ms?.p50, 1)} | ${fixed(a?.tpot_ms?.p50, 1)} / ${fixed(b?.tpot_ms?.p50, 1)} | ${a?.failed ?? '-'} / ${b?.failed ?? '-'} |`);
  }
  const top = concurrencies.at(-1);
  for (const server of servers) {
    const rows = gpuSamples(server, top);
    if (rows.length) {
      const util = rows.map((r) => r[0]).sort((x, y) => x - y);
      say(`GPU utilisation, ${server} at c=${top}: mean ${fixed(mean(util))}%, p50 ${fixed(util[Math.floor(util.length / 2)])}%, max ${fixed(util.at(-1))}% over ${util.length} samples (200 ms); memory max ${fixed(Math.max(...rows.map((r) => r[1])))} MiB`);
    }
    const threads = json(`threads-${server}-c${top}.json`);
    if (threads) say(`busiest threads, ${server} at c=${top} (% of one core over ${threads.window_s} s; all: ${threads.total_cpu_percent}%): ${threads.threads.slice(0, 5).map((t) => `${t.name}[${t.tid}] ${t.cpu_percent}%`).join(', ')}`);
  }
}

// The variants run at the busy rows (run-suite.sh's lmforge_server and llama_server with 'busy'), each beside
// its plain server (lmforge-per-sequence beside lmforge) at the same concurrency.
const variants = [...new Set(readdirSync(dir).map((name) => /^bench-((?:lmforge|llama-server)-.+)-c\d+\.json$/.exec(name)?.[1]).filter(Boolean))].sort();
if (variants.length) {
  say('\n| variant | concurrency | tok/s | × its plain server | × llama-server | TTFT p50 (ms) | TPOT p50 (ms) | failed | GPU util mean | busiest thread |');
  say('|---|---|---|---|---|---|---|---|---|---|');
  for (const variant of variants) {
    for (const c of concurrencies) {
      const r = report(variant, c);
      if (!r) continue;
      const plain = report(variant.startsWith('lmforge') ? 'lmforge' : 'llama-server', c);
      const peer = report('llama-server', c);
      const util = gpuSamples(variant, c).map((r) => r[0]);
      const busiest = json(`threads-${variant}-c${c}.json`)?.threads?.[0];
      say(`| ${variant} | ${c} | ${fixed(r.output_throughput)} | ${fixed(plain ? r.output_throughput / plain.output_throughput : undefined, 2)} | ${fixed(peer ? r.output_throughput / peer.output_throughput : undefined, 2)} | ${fixed(r.ttft_ms?.p50, 1)} | ${fixed(r.tpot_ms?.p50, 1)} | ${r.failed ?? '-'} | ${util.length ? `${fixed(mean(util))}%` : '-'} | ${busiest ? `${busiest.name} ${busiest.cpu_percent}%` : '-'} |`);
    }
  }
}

// Each host / device pair (run-suite.sh) at the top concurrency: the graph against the host path.
const pairs = [
  ['lmforge-sampled', 'sampled (temperature 1)'],
  ['lmforge-logprobs', 'logprobs (top 5)'],
  ['lmforge-every-stage', 'every stage (temperature 0.8, top_p, 3 penalties, top_n_sigma, typical_p, XTC, DRY)'],
];
let pairLines = 0;
for (const [name, label] of pairs) {
  for (const c of concurrencies) {
    const [host, device] = [report(name, c), report(`${name}-device`, c)];
    if (!host || !device) continue;
    say(`${pairLines++ === 0 ? '\n' : ''}${label} at c=${c}: device ${fixed(device.output_throughput)} tok/s, host ${fixed(host.output_throughput)} tok/s, device / host ${fixed(device.output_throughput / host.output_throughput, 2)}, failed ${device.failed ?? '-'} / ${host.failed ?? '-'}`);
  }
}

const speculative = (read('speculative.jsonl') ?? '').split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
if (speculative.length) {
  // Issue 29 asks how often and where greedy outputs part with speculation on and off.
  // Rows without a device are from trees before bench:speculative took --device: the CPU's.
  say(`\nbench:speculative decoded on: ${[...new Set(speculative.map((r) => r.device ?? 'cpu (no --device then)'))].join(', ')}`);
  say('| bench:speculative | width | off tok/s | on tok/s | ratio (min-max) | tokens/step | acceptance | same_output | parted / compared (first differing token) |');
  say('|---|---|---|---|---|---|---|---|---|');
  for (const r of speculative) {
    const parted = r.outputs_compared === undefined ? '-' : `${r.outputs_parted} / ${r.outputs_compared}${r.parted_at?.length ? ` (${r.parted_at.join(', ')})` : ''}`;
    say(`| ${r.workload} ${r.mode} | ${r.width} | ${fixed(r.off_tokens_per_second)} | ${fixed(r.on_tokens_per_second)} | ${fixed(r.ratio, 2)} (${fixed(r.ratio_min, 2)}-${fixed(r.ratio_max, 2)}) | ${fixed(r.tokens_per_step, 2)} | ${fixed(r.acceptance, 2)} | ${r.same_output} | ${parted} |`);
  }
}

// Issue 29's goals, each beside its figure.
const goals = [];
const at = (server, c) => report(server, c);
if (at('lmforge', 64)) goals.push(`lmforge ≥ 8,000 tok/s at c=64: ${fixed(at('lmforge', 64).output_throughput)}`);
for (const c of [16, 64]) {
  if (at('lmforge', c) && at('llama-server', c)) goals.push(`≥ 3× llama-server at c=${c}: ${fixed(at('lmforge', c).output_throughput / at('llama-server', c).output_throughput, 2)}×`);
}
if (at('lmforge', 64)) goals.push(`TTFT p50 at c=64 ≤ 200 ms: ${fixed(at('lmforge', 64).ttft_ms?.p50)} ms`);
const wanted = { rewrite: 1.8, json: 1.5, chat: 0.95 };
for (const r of speculative) if (wanted[r.workload] !== undefined) goals.push(`speculative ${r.workload} width ${r.width} ≥ ${wanted[r.workload]}×: ${fixed(r.ratio, 2)}×`);
if (goals.length) say(`\ngoals (issue 29):\n  ${goals.join('\n  ')}`);

// The suite's budget (run-suite.sh): its time, and the steps it cut.
if (read('budget.txt')) say(`\n${read('budget.txt').trim()}`);
if (read('skipped.txt')) say(`cut by the budget (the least important come last in the suite):\n  ${read('skipped.txt').trim().split('\n').join('\n  ')}`);

for (const name of readdirSync(dir).filter((n) => n.endsWith('-died.txt'))) say(`\n${name.replace('-died.txt', '')} died or never became ready; its log's tail:\n${read(name).trim().split('\n').slice(-15).join('\n')}`);
const host = read('host.txt');
if (host) say(`\nbench/host.ts:\n${host.trim().split('\n').slice(0, 40).join('\n')}`);
// The servers' own steps over all their rows (run-suite.sh starts the plain server and the
// device-sampling one with --profile-steps), to read beside bench/host.ts's loop alone: the
// widths of the bench's concurrencies and the two most frequent, each with at least 8 steps.
for (const file of readdirSync(dir).filter((n) => /^step-profile-.*\.json$/.test(n)).sort()) {
  const steps = json(file);
  if (!steps?.widths) continue;
  const frequent = [...steps.widths].sort((a, b) => b.steps - a.steps).slice(0, 2).map((row) => row.width);
  const rows = steps.widths.filter((row) => row.steps >= 8 && (concurrencies.includes(row.width) || frequent.includes(row.width)));
  say(`\nthe server's own steps (${file.replace(/^step-profile-|\.json$/g, '')} --profile-steps), ms by phase (pure decode steps), the KV cells in use at them, and the share of them shaped as the step before (repeat)`);
  say(['width', 'steps', 'step ms', ...steps.phases, 'cells', 'repeat'].map((h) => h.padStart(8)).join(' '));
  for (const row of rows) say([row.width, row.steps, fixed(row.step_ms, 3), ...steps.phases.map((phase) => fixed(row.phases_ms[phase], 3)), fixed(row.cells_in_use, 0), row.repeat_steps === undefined ? '-' : `${fixed((100 * row.repeat_steps) / row.steps)}%`].map((v) => String(v).padStart(8)).join(' '));
  say(`mixed steps (prompt tokens or drafts in the step): ${steps.mixed.steps}, mean ${fixed(steps.mixed.step_ms, 3)} ms`);
}
const shapes = read('host-server-shapes.txt');
if (shapes) say(`\nbench/host.ts at the rows' shapes (prompts and outputs as long as the server's, the top concurrency):\n${shapes.trim().split('\n').slice(0, 8).join('\n')}`);
const noGraphs = read('host-no-cuda-graphs.txt');
if (noGraphs) say(`\nbench/host.ts with GGML_CUDA_DISABLE_GRAPHS=1 (the top width):\n${noGraphs.trim().split('\n').slice(0, 8).join('\n')}`);
const hostDevice = read('host-device.txt');
if (hostDevice) say(`\nbench/host.ts --sampling device (tokens chosen in the graph):\n${hostDevice.trim().split('\n').slice(0, 16).join('\n')}`);
const profile = read('host-profile.txt');
if (profile) say(`\nbench/host.ts, the engine process's busiest thread (results/host-profile.txt has the rest):\n${profile.trim().split('\n').slice(0, 36).join('\n')}`);
console.log(out.filter((l) => l !== undefined).join('\n'));
