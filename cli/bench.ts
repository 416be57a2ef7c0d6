// `lmforge bench --url URL`: load-tests an OpenAI-compatible server (lmforge, llama-server,
// vLLM, ...) with streamed chat completions and reports TTFT, TPOT, ITL and throughput.
//   lmforge bench --url http://127.0.0.1:8000 --concurrency 4 --num-prompts 64
//   lmforge bench --url http://127.0.0.1:8000 --request-rate 2 --json
import type { CAC } from 'cac';
import { formatReport } from './serve-bench/format-report.js';
import { parseExtraBody, runBenchmark } from './serve-bench/run-benchmark.js';
import { UserFacingError } from '../compiler/lmforge-error.js';
import { numberAsTyped } from './option-values.js';

interface BenchFlags {
  url?: string;
  model?: string;
  apiKey?: string;
  concurrency?: number | string;
  requestRate?: number | string;
  numPrompts: number | string;
  inputLen: number | string;
  outputLen: number | string;
  temperature: number | string;
  topLogprobs?: number | string;
  extraBody?: string;
  seed: number | string;
  warmup: number | string;
  timeout: number | string;
  json?: boolean;
}

export function registerBench(cli: CAC): void {
  cli
    .command('bench', 'Measure an OpenAI-compatible server: TTFT, TPOT, ITL and throughput of streamed chat completions')
    .option('--url <url>', 'Server base URL, e.g. http://127.0.0.1:8000 (required)')
    .option('--model <id>', 'Model id to send (default: the first id of GET /v1/models)')
    .option('--api-key <key>', 'Sent as Authorization: Bearer KEY, for a server started with a key (default: $LMFORGE_API_KEY\'s first key, else none)')
    .option('--concurrency <n>', 'Requests in flight, closed loop (default: 1); with --request-rate, the cap on them')
    .option('--request-rate <r>', 'Poisson arrivals per second, open loop (default: off)')
    .option('--num-prompts <n>', 'Requests to send', { default: 32 })
    .option('--input-len <n>', 'Prompt length in tokens, approximately (words from a fixed list)', { default: 128 })
    .option('--output-len <n>', 'max_tokens, with ignore_eos so every output has this length', { default: 128 })
    .option('--temperature <t>', 'Sampling temperature (0 = greedy)', { default: 0 })
    .option('--top-logprobs <n>', 'Ask for each token\'s logprob and its n most likely alternatives (0-20; default: no logprobs)')
    .option('--extra-body <json>', 'Fields added to every request body, a JSON object (sampling parameters such as \'{"top_p":0.9}\')')
    .option('--seed <n>', 'Seed of the prompts and the arrival times', { default: 0 })
    .option('--warmup <n>', 'Requests sent one at a time before measuring', { default: 1 })
    .option('--timeout <s>', 'Per-request timeout in seconds', { default: 600 })
    .option('--json', 'Print one JSON object instead of the table')
    .action(async (flags: BenchFlags) => {
      if (typeof flags.url !== 'string') throw new BenchUsageError('--url is required, e.g. --url http://127.0.0.1:8000');
      const report = await runBenchmark({
        url: flags.url,
        model: flags.model === undefined ? undefined : String(flags.model),
        apiKey: benchApiKey(flags.apiKey, process.env.LMFORGE_API_KEY),
        concurrency: numberOf(flags.concurrency, '--concurrency'),
        requestRate: numberOf(flags.requestRate, '--request-rate'),
        numPrompts: numberOf(flags.numPrompts, '--num-prompts'),
        inputLen: numberOf(flags.inputLen, '--input-len'),
        outputLen: numberOf(flags.outputLen, '--output-len'),
        temperature: numberOf(flags.temperature, '--temperature'),
        topLogprobs: numberOf(flags.topLogprobs, '--top-logprobs'),
        extraBody: flags.extraBody === undefined ? undefined : parseExtraBody(String(flags.extraBody)),
        seed: numberOf(flags.seed, '--seed'),
        warmup: numberOf(flags.warmup, '--warmup'),
        timeoutMs: numberOf(flags.timeout, '--timeout')! * 1000, // cac's default is given
      });
      console.log(flags.json ? JSON.stringify(report) : formatReport(report));
      if (report.completed === 0) process.exitCode = 1;
    });
}

/** A number flag as typed, in decimal digits (runBenchmark checks its range); the parser read 0x2 as 2. */
function numberOf(value: number | string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = numberAsTyped(value, { signed: true, fraction: true });
  if (Number.isNaN(n)) throw new BenchUsageError(`${flag} must be a number in decimal digits, got '${value}'`);
  return n;
}

/** The key to send: the flag's, else the first of LMFORGE_API_KEY's (the list serve reads), else none. */
export function benchApiKey(flag: string | undefined, env: string | undefined): string | undefined {
  if (flag !== undefined) {
    if (String(flag).trim() === '') throw new BenchUsageError('--api-key needs a key');
    return String(flag);
  }
  return env?.split(',').map((key) => key.trim()).find((key) => key !== '');
}

class BenchUsageError extends UserFacingError {
  override name = 'BenchUsageError';
}
