// `npm run bench:prefix [-- --server both|lmforge|llama-server] [--scenario NAME] [--quick] [--json]`
// Prompt reuse, lmforge against llama-server in one run on the default model (or --model).
// Three scenarios from the prefix-cache issue:
//   multi-turn      conversations whose history grows each turn: median TTFT per turn
//   shared-system   many users behind one long system prompt: TTFT and throughput
//   long-prompt     one long prompt arriving among running streams: their ITL p99 before/during
// Each scenario starts each server as a fresh process (never two at once) with the same
// limits: KV cells, parallel sequences, prefill chunk and threads. Both see the same seeded
// prompts. Needs llama-server: bench/peer-llama-server.sh --build-only builds it.
import { availableParallelism } from 'node:os';
import { cac } from 'cac';
import { KV_LAYOUTS } from '../runtime/engine/engine-config.js';
import { pullModel } from '../runtime/models/pull-model.js';
import { formatTable } from './prefix/format-table.js';
import { runLongPrompt, runUndisturbed, type LongPromptResult } from './prefix/long-prompt.js';
import { runMultiTurn, type MultiTurnResult } from './prefix/multi-turn.js';
import { longPromptRows, multiTurnRows, sharedSystemRows, type Row } from './prefix/rows.js';
import { runSharedSystem, type SharedSystemResult } from './prefix/shared-system.js';
import { SERVER_KINDS, startServer, type ServerKind, type ServerLimits } from './prefix/servers.js';
import { FULL, QUICK, type Sizes } from './prefix/sizes.js';

const SCENARIOS = ['multi-turn', 'shared-system', 'long-prompt'] as const;
type Scenario = (typeof SCENARIOS)[number];

const cli = cac('bench:prefix');
cli.option('--server <which>', 'lmforge, llama-server or both', { default: 'both' });
cli.option('--scenario <name>', `One of ${SCENARIOS.join(', ')} (default: all)`);
cli.option('--quick', 'A small run that checks the harness');
cli.option('--json', 'One JSON object instead of the tables');
cli.option('--model <path>', 'GGUF file (default: the default model, pulled if needed)');
cli.option('--threads <n>', 'Threads for both servers', { default: availableParallelism() });
// 16 users at ~1,560 tokens each need ~25k cells while neither server shares the system prompt.
cli.option('--kv-cells <n>', 'KV cells in all, both servers: one pool, or split between sequence ids with --kv-layout per-sequence', { default: 32768 });
cli.option('--slots <n>', 'Parallel sequences, both servers', { default: 16 });
cli.option('--kv-layout <layout>', 'shared (one KV pool: llama-server --kv-unified) or per-sequence (a stream per sequence id: llama-server\'s own default); per-sequence splits --kv-cells between sequence ids', { default: 'shared' });
// llama-server's default --batch-size; lmforge's local default would be the whole context.
cli.option('--prefill-chunk <n>', 'Prompt tokens per step: lmforge prefill_chunk_size, llama-server --batch-size', { default: 2048 });
cli.option('--seed <n>', 'Seed of every text', { default: 0 });
cli.help();
const { options } = cli.parse();
if (options.help) process.exit(0);

const servers: readonly ServerKind[] = options.server === 'both' ? SERVER_KINDS : SERVER_KINDS.filter((k) => k === options.server);
const scenarios: readonly Scenario[] = options.scenario === undefined ? SCENARIOS : SCENARIOS.filter((s) => s === options.scenario);
const whole = (name: string) => {
  const n = Number(options[name]);
  if (!Number.isSafeInteger(n) || n < 1) fail(`--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} must be a whole number ≥ 1, got ${options[name]}`);
  return n;
};
if (servers.length === 0) fail(`--server must be lmforge, llama-server or both, got ${options.server}`);
if (scenarios.length === 0) fail(`--scenario must be one of ${SCENARIOS.join(', ')}, got ${options.scenario}`);
const kvLayout = KV_LAYOUTS.find((layout) => layout === options.kvLayout) ?? fail(`--kv-layout must be one of ${KV_LAYOUTS.join(', ')}, got ${options.kvLayout}`);
const seed = Number(options.seed);
if (!Number.isSafeInteger(seed)) fail(`--seed must be an integer, got ${options.seed}`);
const sizes: Sizes = options.quick ? QUICK : FULL;
const model = typeof options.model === 'string' ? options.model : await pullModel();
const kvCells = whole('kvCells');
const limits: ServerLimits = {
  model,
  slots: whole('slots'),
  kvCells,
  // lmforge's context per sequence cannot pass the model's (8,192 for SmolLM2); no prompt here comes near.
  contextWindow: Math.min(kvCells, 8192),
  prefillChunk: whole('prefillChunk'),
  threads: whole('threads'),
  kvLayout,
};

function fail(message: string): never {
  console.error(`bench:prefix: ${message}`);
  process.exit(1);
}

/** Runs `run` against a fresh server of `kind`, stopped afterwards; `settings` hears its settings. */
async function onFreshServer<T>(kind: ServerKind, what: string, run: (url: string) => Promise<T>, settings?: (text: string) => void): Promise<T> {
  process.stderr.write(`bench:prefix: ${what} on ${kind}: starting a fresh server\n`);
  const server = await startServer(kind, limits);
  try {
    settings?.(server.settings);
    return await run(server.url);
  } finally {
    await server.stop();
  }
}

async function runScenario(scenario: Scenario, kind: ServerKind, settings: (text: string) => void): Promise<unknown> {
  const fresh = <T>(run: (url: string) => Promise<T>) => onFreshServer(kind, scenario, run, settings);
  if (scenario === 'multi-turn') return fresh((url) => runMultiTurn(url, model, sizes.multiTurn, seed));
  if (scenario === 'shared-system') return fresh((url) => runSharedSystem(url, model, sizes.sharedSystem, seed));
  const run = await fresh((url) => runLongPrompt(url, model, sizes.longPrompt, seed));
  // The control gets a server of its own: the first one's cache holds the long prompt.
  return onFreshServer(kind, 'long-prompt control', (url) => runUndisturbed(url, model, sizes.longPrompt, seed, run));
}

function rowsOf(scenario: Scenario, results: Partial<Record<ServerKind, unknown>>): Row[] {
  // runScenario gave each server the result type of this scenario.
  if (scenario === 'multi-turn') return multiTurnRows(results as Partial<Record<ServerKind, MultiTurnResult>>, sizes.multiTurn.turns);
  if (scenario === 'shared-system') return sharedSystemRows(results as Partial<Record<ServerKind, SharedSystemResult>>);
  return longPromptRows(results as Partial<Record<ServerKind, LongPromptResult>>);
}

function describeScenario(scenario: Scenario): string {
  if (scenario === 'multi-turn') {
    const s = sizes.multiTurn;
    return `multi-turn: ${s.conversations} conversations × ${s.turns} turns at once, ${s.systemWords}-word system prompt, ${s.turnWords} words a turn, replies of max_tokens ${s.maxTokens} (ignore_eos, temperature 0) kept in the history`;
  }
  if (scenario === 'shared-system') {
    const s = sizes.sharedSystem;
    return `shared-system: ${s.users} users at once, ${s.rounds} questions each in turn, one ${s.systemWords}-word system prompt, ${s.questionWords}-word questions, max_tokens ${s.maxTokens}`;
  }
  const s = sizes.longPrompt;
  return (
    `long-prompt: ${s.streams} streams (max_tokens ${s.streamMaxTokens}, cut after the long prompt's first token), ${s.beforeMs} ms measured before one ${s.longWords}-word prompt (max_tokens 1) is sent; ` +
    'undisturbed: the same streams on a fresh server without it, at the chunks that overlapped its prefill'
  );
}

const report = {
  model,
  limits,
  quick: options.quick === true,
  seed,
  scenarios: {} as Record<string, { description: string; settings: Partial<Record<ServerKind, string>>; results: Partial<Record<ServerKind, unknown>>; rows: Row[] }>,
};

for (const scenario of scenarios) {
  const entry = { description: describeScenario(scenario), settings: {} as Partial<Record<ServerKind, string>>, results: {} as Partial<Record<ServerKind, unknown>>, rows: [] as Row[] };
  for (const kind of servers) entry.results[kind] = await runScenario(scenario, kind, (text) => (entry.settings[kind] = text));
  entry.rows = rowsOf(scenario, entry.results);
  report.scenarios[scenario] = entry;
  if (!options.json) {
    const notes = [...servers.map((k) => `${k}: ${entry.settings[k]}`)];
    for (const [kind, result] of Object.entries(entry.results)) {
      for (const error of (result as { errors: string[] }).errors) notes.push(`${kind} failure: ${error}`);
    }
    console.log(`\n${formatTable(entry.description, notes, entry.rows)}`);
  }
}

if (options.json) console.log(JSON.stringify(report));
else console.log(`\nmodel ${model}; ${limits.threads} threads; seed ${seed}${report.quick ? '; --quick (sizes too small for the goals to mean much)' : ''}`);
