// `npx tsx bench/single-stream.ts [--model PATH] [--requests 5] [--tokens 128] [--threads N] [--json]`
// Where one stream's time goes, token by token: lmforge serves one request at a time (prefix
// cache off, --enable-tracing), each 128 greedy tokens after a distinct prompt. Per request,
// from the engine's trace: the median decode step (llama_decode and its dispatch) and the
// median gap between two steps (sampling, commit, events: the JavaScript between decodes);
// from the client: the median ITL and the span first → last token, against the engine's span
// (a client span longer than the engine's would be delivery lag: worker → main thread → SSE).
// Per-token overhead = mean ITL − mean decode step within a request; medians over the requests.
import { availableParallelism } from 'node:os';
import { basename } from 'node:path';
import { cac } from 'cac';
import { pullModel } from '../runtime/models/pull-model.js';
import { coldPrompts } from './compare/cold.js';
import { startServer } from './prefix/servers.js';
import { median } from '../cli/serve-bench/percentile.js';
import { streamChatCompletion } from '../cli/serve-bench/stream-request.js';

const cli = cac('single-stream');
cli.option('--model <path>', 'GGUF file (default: the default model, pulled if needed)');
cli.option('--requests <n>', 'Requests, one after another', { default: 5 });
cli.option('--tokens <n>', 'Greedy tokens per request', { default: 128 });
cli.option('--threads <n>', 'Decode threads', { default: availableParallelism() });
cli.option('--json', 'One JSON object');
cli.help();
const { options } = cli.parse();
if (options.help) process.exit(0);
const requests = Number(options.requests);
const tokens = Number(options.tokens);
const threads = Number(options.threads);
const modelPath = typeof options.model === 'string' ? options.model : await pullModel();

interface TraceEvent { name: string; ts: number; dur?: number; tid: number }

const server = await startServer('lmforge', {
  model: modelPath, slots: 1, kvCells: 4096, contextWindow: 2048, prefillChunk: 2048, threads, promptCache: false, lmforgeFlags: ['--enable-tracing'],
});
const rows: { decodeUs: number; gapUs: number; itlMs: number; meanItlMs: number; meanDecodeMs: number; clientSpanMs: number; engineSpanMs: number }[] = [];
try {
  const model = ((await (await fetch(`${server.url}/v1/models`)).json()) as { data: { id: string }[] }).data[0]!.id;
  for (const prompt of coldPrompts(requests, 64, `single-stream ${Date.now().toString(36)}`, 7)) {
    const r = await streamChatCompletion({ url: server.url, model, prompt, maxTokens: tokens, temperature: 0, timeoutMs: 600_000 });
    if (!r.ok) throw new Error(`request failed: ${r.error}`);
    // The trace's newest request is this one; its decode steps, in order.
    const trace = (await (await fetch(`${server.url}/debug/trace`)).json()) as { traceEvents: TraceEvent[] };
    const steps = trace.traceEvents.filter((e) => e.name === 'decode step');
    const tid = steps.at(-1)!.tid;
    const mine = steps.filter((e) => e.tid === tid).sort((a, b) => a.ts - b.ts);
    const gaps = mine.slice(1).map((e, i) => e.ts - (mine[i]!.ts + mine[i]!.dur!));
    rows.push({
      decodeUs: median(mine.map((e) => e.dur!)),
      gapUs: median(gaps),
      itlMs: median(r.itlMs),
      meanItlMs: r.itlMs.reduce((a, b) => a + b, 0) / r.itlMs.length,
      meanDecodeMs: mine.reduce((a, e) => a + e.dur!, 0) / mine.length / 1000,
      clientSpanMs: r.contentTimes.at(-1)! - r.contentTimes[0]!,
      engineSpanMs: (mine.at(-1)!.ts + mine.at(-1)!.dur! - mine[0]!.ts) / 1000,
    });
  }
} finally {
  await server.stop();
}
const summary = {
  model: basename(modelPath),
  threads,
  requests,
  tokens,
  decode_step_ms: median(rows.map((r) => r.decodeUs)) / 1000,
  gap_between_steps_ms: median(rows.map((r) => r.gapUs)) / 1000,
  itl_ms: median(rows.map((r) => r.itlMs)),
  // Means within a request (a slow step and its ITL are the same token), then the median over requests.
  overhead_per_token_ms: median(rows.map((r) => r.meanItlMs - r.meanDecodeMs)),
  client_span_ms: median(rows.map((r) => r.clientSpanMs)),
  engine_span_ms: median(rows.map((r) => r.engineSpanMs)),
};
if (options.json) console.log(JSON.stringify(summary));
else {
  console.log(`single stream, ${summary.model}, ${threads} threads, ${requests} requests × ${tokens} greedy tokens, medians`);
  console.log(`  decode step (llama_decode + dispatch)  ${summary.decode_step_ms.toFixed(2)} ms`);
  console.log(`  gap between steps (JS in the worker)   ${summary.gap_between_steps_ms.toFixed(3)} ms`);
  console.log(`  client ITL                             ${summary.itl_ms.toFixed(2)} ms`);
  console.log(`  overhead per token (mean ITL − mean decode step) ${summary.overhead_per_token_ms.toFixed(3)} ms`);
  console.log(`  first → last token: client ${summary.client_span_ms.toFixed(0)} ms, engine ${summary.engine_span_ms.toFixed(0)} ms (a difference is delivery lag)`);
}
