// lmforge against llama-server on the same kernels (bench/compare-llama-server.sh runs this).
// First kernel parity: both processes map the same prebuilt libllama/libggml, and the same
// batch shapes decode as fast through lmforge's bindings as through C. Then, per concurrency,
// interleaved rounds (A B, B A, …) of closed-loop streamed requests, every prompt distinct and
// verified cache-cold on both sides (prefix cache off on both, llama-server's cache_n and
// lmforge's cached_tokens must be 0), the same thread count on both. Per concurrency: the
// median ratio (lmforge / llama-server) of output throughput, TTFT and ITL, with min–max over
// the repetitions. Last, the work bound: the same requests' kernel work (prompts and decode
// steps at the same width) run back to back through the library with nothing between the
// decodes, the most output tokens/s any server could reach on these kernels; each server's
// throughput is given as a share of it. --json: one object per concurrency.
import { availableParallelism } from 'node:os';
import { basename } from 'node:path';
import { cac } from 'cac';
import { KV_LAYOUTS } from '../runtime/engine/engine-config.js';
import { pullModel } from '../runtime/models/pull-model.js';
import { checkCold, checkDistinct, coldPrompts } from './compare/cold.js';
import { interleavedOrder } from './compare/interleave.js';
import { mappedLlamaLibraries, measureKernelParity, type KernelParity } from './compare/kernel-parity.js';
import { BareDecoder } from './engine/bare-decode.js';
import { ratioSpread, type Spread } from './compare/ratio-spread.js';
import { runRound, type RoundResult } from './compare/round.js';
import { startServer, type RunningServer, type ServerKind, type ServerLimits } from './prefix/servers.js';
import { median } from '../cli/serve-bench/percentile.js';

const cli = cac('compare-llama-server');
cli.option('--model <path>', 'GGUF file (default: the default model, pulled if needed)');
cli.option('--concurrency <list>', 'Concurrent clients, comma- or space-separated', { default: '1,4,16' });
cli.option('--reps <n>', 'Interleaved repetitions per concurrency (≥ 5 for a reported figure)', { default: 5 });
cli.option('--input-len <n>', 'Words per prompt (≈ tokens)', { default: 128 });
cli.option('--output-len <n>', 'Tokens generated per request (ignore_eos)', { default: 64 });
cli.option('--num-prompts <n>', 'Requests per round (default: max(8, 2 × concurrency))');
cli.option('--threads <n>', 'Threads for both servers (prompt and decode)', { default: availableParallelism() });
cli.option('--parity-steps <n>', 'Decode steps per kernel-parity run', { default: 64 });
cli.option('--kv-layout <layout>', 'shared (one KV pool on both: llama-server --kv-unified) or per-sequence (a stream per sequence on both: llama-server\'s own default)', { default: 'shared' });
cli.option('--json', 'One JSON object per concurrency');
cli.help();
const { options } = cli.parse();
if (options.help) process.exit(0);

const concurrencies = String(options.concurrency).split(/[ ,]+/).filter(Boolean).map(Number);
const reps = Number(options.reps);
const inputLen = Number(options.inputLen);
const outputLen = Number(options.outputLen);
const threads = Number(options.threads);
const paritySteps = Number(options.paritySteps);
const wholes = { concurrency: concurrencies, reps: [reps], 'input-len': [inputLen], 'output-len': [outputLen], threads: [threads], 'parity-steps': [paritySteps] };
for (const [name, values] of Object.entries(wholes)) {
  if (values.length === 0 || !values.every((v) => Number.isInteger(v) && v >= 1)) {
    console.error(`compare-llama-server: --${name} must be whole numbers ≥ 1`);
    process.exit(1);
  }
}
const kvLayout = KV_LAYOUTS.find((layout) => layout === options.kvLayout);
if (kvLayout === undefined) {
  console.error(`compare-llama-server: --kv-layout must be one of ${KV_LAYOUTS.join(', ')}, got ${options.kvLayout}`);
  process.exit(1);
}
const json = options.json === true;
const log = (line: string) => process.stderr.write(`${line}\n`);
const modelPath = typeof options.model === 'string' ? options.model : await pullModel();
const maxConcurrency = Math.max(...concurrencies);
const roundSize = (c: number) => (options.numPrompts !== undefined ? Math.max(Number(options.numPrompts), c) : Math.max(8, 2 * c));

// Both servers: one sequence per client at the highest concurrency, the same KV layout (one
// shared pool, or 8,192 / slots cells for each sequence on both: with no prompt reuse lmforge
// has no ids beyond its slots), the same prompt batch (ubatch 512 on both), no prompt reuse.
const limits: ServerLimits = { model: modelPath, slots: maxConcurrency, kvCells: 8192, contextWindow: 2048, prefillChunk: 2048, threads, promptCache: false, kvLayout };
// Kernel parity compares the bindings with C (decode-floor.c) in one shared pool; the work bound runs in the servers' layout.
const shape = { contextSize: limits.kvCells, batchSize: limits.prefillChunk + limits.slots, sequences: limits.slots, threads };

// Every prompt of the run, made and checked for duplicates before anything is sent.
const runTag = `run ${Date.now().toString(36)}`;
const kinds: ServerKind[] = ['lmforge', 'llama-server'];
const prompts = new Map<string, string[]>();
let seed = 1;
for (const c of concurrencies) {
  for (let rep = 0; rep < reps; rep++) {
    for (const kind of kinds) prompts.set(`${kind} c${c} r${rep}`, coldPrompts(roundSize(c), inputLen, `${runTag} ${kind} c${c} r${rep}`, seed++));
  }
}
checkDistinct([...prompts.values()].flat());

log(`kernel parity: ${basename(modelPath)}, widths ${concurrencies.join('/')}, ${threads} threads, ${paritySteps} steps, ${reps} interleaved repetitions`);
const parity = await measureKernelParity(modelPath, shape, concurrencies, reps, paritySteps);
for (const p of parity) log(`  width ${p.width}: bindings / C = ${fmtSpread(p.ratio)}`);

const servers = {} as Record<ServerKind, RunningServer>;
try {
  for (const kind of kinds) {
    log(`starting ${kind}…`);
    servers[kind] = await startServer(kind, limits);
    log(`  ${kind}: ${servers[kind].settings}`);
  }
  const libraries = kinds.map((kind) => mappedLlamaLibraries(servers[kind].pid));
  const sameLibraries = libraries[0]!.length > 0 && libraries[0]!.join('\n') === libraries[1]!.join('\n');
  log(`  same libraries in both processes: ${sameLibraries ? 'yes' : 'NO'}\n    ${libraries[0]!.join('\n    ')}`);
  if (!sameLibraries) throw new Error(`the servers map different llama.cpp libraries:\nlmforge: ${libraries[0]!.join(', ')}\nllama-server: ${libraries[1]!.join(', ')}`);
  const model = { lmforge: await modelId(servers.lmforge.url), 'llama-server': await modelId(servers['llama-server'].url) };

  const rounds = new Map(concurrencies.map((c) => [c, { lmforge: [] as RoundResult[], 'llama-server': [] as RoundResult[] }]));
  for (let rep = 0; rep < reps; rep++) {
    for (const c of concurrencies) {
      for (const kind of interleavedOrder<ServerKind>('lmforge', 'llama-server', reps)[rep]!) {
        const result = await runRound({
          url: servers[kind].url, model: model[kind], prompts: prompts.get(`${kind} c${c} r${rep}`)!, concurrency: c, outputLen,
          // llama-server reuses a slot's last prompt unless told not to, request by request.
          ...(kind === 'llama-server' ? { extraBody: { cache_prompt: false } } : {}),
        });
        checkCold(kind, result.results);
        rounds.get(c)![kind].push(result);
        const retries = result.retried > 0 ? `; retried ${result.retried} (connection closed before an answer), ${result.failed} of them failed again` : '';
        log(`rep ${rep + 1}/${reps} c=${c} ${kind}: ${result.throughput.toFixed(1)} tok/s, TTFT ${result.ttftMs.toFixed(0)} ms, ITL ${result.itlMs.toFixed(1)} ms${retries}`);
      }
    }
  }

  for (const kind of kinds) await servers[kind].stop();
  const bounds = await workBounds(rounds);
  const rows = concurrencies.map((c) => row(c, rounds.get(c)!, parity.find((p) => p.width === c)!, sameLibraries, bounds.get(c)!));
  if (json) for (const r of rows) console.log(JSON.stringify(r));
  else printTable(rows);
} finally {
  for (const kind of kinds) await servers[kind]?.stop();
}

/**
 * Per concurrency, the work bound in output tokens/s: the round's requests (prompts as long as
 * lmforge counted them, the median) through BareDecoder.workload, best of `reps` runs; run
 * once the servers are stopped, so that nothing else computes.
 */
async function workBounds(rounds: Map<number, Record<ServerKind, RoundResult[]>>): Promise<Map<number, number>> {
  const bare = await BareDecoder.create(modelPath, { ...shape, unifiedKv: kvLayout === 'shared' });
  const bounds = new Map<number, number>();
  try {
    for (const c of concurrencies) {
      const promptLength = Math.round(median(rounds.get(c)!.lmforge.flatMap((r) => r.results.map((x) => x.promptTokens))));
      let best = 0;
      for (let rep = 0; rep < reps; rep++) {
        const run = bare.workload(promptLength, roundSize(c), c, outputLen);
        best = Math.max(best, run.tokens / run.seconds);
      }
      bounds.set(c, best);
      log(`work bound c=${c}: ${best.toFixed(1)} tok/s (${roundSize(c)} requests of ${promptLength} prompt tokens)`);
    }
  } finally {
    await bare.dispose();
  }
  return bounds;
}

function row(concurrency: number, sides: Record<ServerKind, RoundResult[]>, kernel: KernelParity, sameLibraries: boolean, workBound: number) {
  const ours = sides.lmforge;
  const peer = sides['llama-server'];
  const pick = (rs: RoundResult[], key: 'throughput' | 'ttftMs' | 'itlMs') => rs.map((r) => r[key]);
  const ratios = {
    throughput: ratioSpread(pick(ours, 'throughput'), pick(peer, 'throughput')),
    ttft: ratioSpread(pick(ours, 'ttftMs'), pick(peer, 'ttftMs')),
    itl: ratioSpread(pick(ours, 'itlMs'), pick(peer, 'itlMs')),
  };
  const medians = (rs: RoundResult[]) => ({
    output_tokens_per_s: median(pick(rs, 'throughput')),
    ttft_ms: median(pick(rs, 'ttftMs')),
    itl_ms: median(pick(rs, 'itlMs')),
    // At concurrency 1, the prefill rate (queueing adds to it at higher concurrency).
    prompt_tokens_per_ttft_s: median(rs.map((r) => r.promptTokensPerTtft)),
  });
  const ourMedians = medians(ours);
  const peerMedians = medians(peer);
  return {
    concurrency,
    throughput_ratio: ratios.throughput.median,
    ttft_ratio: ratios.ttft.median,
    itl_ratio: ratios.itl.median,
    kernel_parity: kernel.ratio.median,
    /** Output tokens/s of the same kernel work with nothing between the decodes, and each server's median throughput over it. */
    work_bound_tokens_per_s: workBound,
    lmforge_of_bound: ourMedians.output_tokens_per_s / workBound,
    llama_server_of_bound: peerMedians.output_tokens_per_s / workBound,
    spread: { throughput_ratio: ratios.throughput, ttft_ratio: ratios.ttft, itl_ratio: ratios.itl, kernel_parity: kernel.ratio },
    lmforge: ourMedians,
    llama_server: { ...peerMedians, timings_prompt_per_second: median(peer.map((r) => r.promptPerSecond)) },
    same_libraries: sameLibraries,
    /** Requests sent again after a server closed their connection unanswered, and those that failed again (left out of the figures). */
    retried: { lmforge: sum(ours, 'retried'), llama_server: sum(peer, 'retried') },
    failed: { lmforge: sum(ours, 'failed'), llama_server: sum(peer, 'failed') },
    cache_cold_verified: true,
    reps,
    requests_per_round: roundSize(concurrency),
    input_words: inputLen,
    output_tokens: outputLen,
    threads,
    model: basename(modelPath),
  };
}

function sum(rounds: RoundResult[], key: 'retried' | 'failed'): number {
  return rounds.reduce((total, r) => total + r[key], 0);
}

function printTable(rows: ReturnType<typeof row>[]): void {
  const r0 = rows[0]!;
  console.log(`\nlmforge / llama-server, ${r0.model}, same prebuilt libraries, ${threads} threads both, prefix cache off both, every prompt verified cold`);
  console.log(`${reps} interleaved repetitions per concurrency, ${r0.input_words}-word prompts, ${outputLen} output tokens; median (min–max) of per-repetition ratios`);
  console.log(`kernel parity (bindings / C loop, same batches): ${rows.map((r) => `width ${r.concurrency} ${fmtSpread(r.spread.kernel_parity)}`).join(', ')}`);
  const head = ['conc', 'throughput ratio', 'TTFT ratio', 'ITL ratio', 'tok/s ours', 'tok/s peer', 'TTFT ms ours', 'TTFT ms peer', 'ITL ms ours', 'ITL ms peer'];
  const widths = [5, 20, 20, 20, 11, 11, 13, 13, 12, 12];
  console.log(head.map((h, i) => h.padStart(widths[i]!)).join(''));
  for (const r of rows) {
    const cells = [
      String(r.concurrency), fmtSpread(r.spread.throughput_ratio), fmtSpread(r.spread.ttft_ratio), fmtSpread(r.spread.itl_ratio),
      r.lmforge.output_tokens_per_s.toFixed(1), r.llama_server.output_tokens_per_s.toFixed(1), r.lmforge.ttft_ms.toFixed(0),
      r.llama_server.ttft_ms.toFixed(0), r.lmforge.itl_ms.toFixed(1), r.llama_server.itl_ms.toFixed(1),
    ];
    console.log(cells.map((c, i) => c.padStart(widths[i]!)).join(''));
  }
  for (const r of rows) {
    console.log(
      `prefill at concurrency ${r.concurrency}, prompt tokens / TTFT: lmforge ${r.lmforge.prompt_tokens_per_ttft_s.toFixed(0)} tok/s, ` +
        `llama-server ${r.llama_server.prompt_tokens_per_ttft_s.toFixed(0)} tok/s (its timings.prompt_per_second ${r.llama_server.timings_prompt_per_second.toFixed(0)})`,
    );
  }
  for (const r of rows) {
    console.log(
      `work bound at concurrency ${r.concurrency} (the same kernel work, nothing between decodes): ${r.work_bound_tokens_per_s.toFixed(1)} tok/s; ` +
        `lmforge ${(100 * r.lmforge_of_bound).toFixed(0)}% of it, llama-server ${(100 * r.llama_server_of_bound).toFixed(0)}%`,
    );
  }
  console.log('throughput ratio > 1: lmforge faster; TTFT and ITL ratios < 1: lmforge faster');
}

function fmtSpread(s: Spread): string {
  return `${s.median.toFixed(2)} (${s.min.toFixed(2)}–${s.max.toFixed(2)})`;
}

async function modelId(url: string): Promise<string> {
  const body = (await (await fetch(`${url}/v1/models`)).json()) as { data: { id: string }[] };
  return body.data[0]!.id;
}
