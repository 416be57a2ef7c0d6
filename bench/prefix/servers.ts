// Starts lmforge or llama-server as a fresh child process with the same limits (KV cells,
// parallel sequences, prefill chunk, threads), waits until GET /health answers 200, and
// stops it again. A fresh process per scenario means neither server starts with a warm prompt
// cache; one short request before handing it over pays each server's first-request costs
// (thread pools, template compilation, allocations) outside the measurement.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { KvLayout } from '../../runtime/engine/engine-config.js';
import { streamChatCompletion } from '../../cli/serve-bench/stream-request.js';

export type ServerKind = 'lmforge' | 'llama-server';
export const SERVER_KINDS: readonly ServerKind[] = ['lmforge', 'llama-server'];

export interface ServerLimits {
  model: string;
  /** Sequences decoded together: lmforge max_num_sequence, llama-server --parallel. */
  slots: number;
  /**
   * KV cells in all: lmforge max_total_seq_length, llama-server --ctx-size. In the shared
   * layout one pool for every sequence (llama-server --kv-unified); per-sequence, split
   * evenly between sequence ids (lmforge's running and prefix-cache ids, llama-server's slots).
   */
  kvCells: number;
  /** lmforge --kv-layout; per-sequence runs llama-server in its own default layout, a stream per slot. */
  kvLayout?: KvLayout;
  /** lmforge context_window_size (llama-server's per-slot context is the whole unified pool, or its slot's share). */
  contextWindow: number;
  /** Prompt tokens per step: lmforge prefill_chunk_size, llama-server --batch-size (its ubatch stays 512, as lmforge's). */
  prefillChunk: number;
  threads: number;
  /**
   * false: no prompt reuse on either side (lmforge prefix_cache_max_num_recycling_seqs=0,
   * llama-server --cache-ram 0; its per-slot reuse is turned off per request by cache_prompt).
   * Default true: both at their defaults.
   */
  promptCache?: boolean;
  /** More `lmforge serve` flags (--enable-tracing); llama-server ignores them. */
  lmforgeFlags?: string[];
}

export interface RunningServer {
  kind: ServerKind;
  url: string;
  /** The server process (llama-server's own, not a shell's). */
  pid: number;
  /** How the server describes its own configuration, for the report. */
  settings: string;
  stop(): Promise<void>;
}

const root = fileURLToPath(new URL('../../', import.meta.url));

export async function startServer(kind: ServerKind, limits: ServerLimits): Promise<RunningServer> {
  const port = await freePort();
  const child = kind === 'lmforge' ? spawnLmforge(limits, port) : spawnLlamaServer(limits, port);
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const url = `http://127.0.0.1:${port}`;
  const stop = () => stopChild(child);
  try {
    await waitHealthy(url, child, () => output);
    await warmUp(url, limits.model);
  } catch (error) {
    await stop();
    throw error;
  }
  return { kind, url, pid: child.pid!, settings: describe(kind, limits, output), stop };
}

function spawnLmforge(limits: ServerLimits, port: number): ChildProcess {
  const overrides =
    `max_num_sequence=${limits.slots};max_total_seq_length=${limits.kvCells};` +
    `context_window_size=${limits.contextWindow};prefill_chunk_size=${limits.prefillChunk}` +
    (limits.promptCache === false ? ';prefix_cache_max_num_recycling_seqs=0' : '');
  const args = [
    `${root}bin/lmforge.mjs`, 'serve', limits.model, '--port', String(port), '--threads', String(limits.threads), '--overrides', overrides,
    '--kv-layout', limits.kvLayout ?? 'shared', ...(limits.lmforgeFlags ?? []),
  ];
  return spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
}

function spawnLlamaServer(limits: ServerLimits, port: number): ChildProcess {
  const args = [
    `${root}bench/peer-llama-server.sh`, limits.model, '--port', String(port), '--parallel', String(limits.slots),
    '--ctx', String(limits.kvCells), '--threads', String(limits.threads), ...(perSequence(limits) ? ['--kv-split'] : []),
    '--', '--batch-size', String(limits.prefillChunk),
    ...(limits.promptCache === false ? ['--cache-ram', '0'] : []),
  ];
  // The script execs llama-server, so the child's pid is the server's.
  return spawn('bash', args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
}

const perSequence = (limits: ServerLimits) => limits.kvLayout === 'per-sequence';

function describe(kind: ServerKind, limits: ServerLimits, output: string): string {
  if (kind === 'lmforge') return /^engine:\s*(.*)$/m.exec(output)?.[1] ?? 'engine line not found';
  const layout = perSequence(limits) ? `(${Math.floor(limits.kvCells / limits.slots)} cells a slot)` : '--kv-unified';
  if (limits.promptCache === false) {
    return (
      `--parallel ${limits.slots} --ctx-size ${limits.kvCells} ${layout} --batch-size ${limits.prefillChunk} --ubatch-size 512 ` +
      `--threads ${limits.threads} --threads-batch ${limits.threads} --cache-ram 0, cache_prompt: false in every request`
    );
  }
  // llama-server's own prompt reuse stays at its defaults: it is what lmforge is measured against.
  return (
    `--parallel ${limits.slots} --ctx-size ${limits.kvCells} ${layout} --batch-size ${limits.prefillChunk} --ubatch-size 512 ` +
    `--threads ${limits.threads}; prompt reuse at its defaults: a slot keeps its last prompt (--slot-prompt-similarity 0.10), ` +
    `prompts are cached in RAM (--cache-ram 8192 MiB)`
  );
}

async function waitHealthy(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the server exited before it was ready:\n${output().slice(-2000)}`);
    try {
      const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the server was not ready within 180 s:\n${output().slice(-2000)}`);
}

/** A few tokens from a prompt no scenario shares beyond the template's first tokens. */
async function warmUp(url: string, model: string): Promise<void> {
  const r = await streamChatCompletion({ url, model, prompt: 'Warm up.', maxTokens: 4, temperature: 0, timeoutMs: 120_000 });
  if (!r.ok) throw new Error(`the warm-up request failed: ${r.error}`);
}

/** SIGTERM (lmforge drains, llama-server stops), then SIGKILL after 15 s. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
