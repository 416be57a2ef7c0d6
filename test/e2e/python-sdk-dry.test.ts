// DRY through the official OpenAI Python SDK on the default model: a pydantic request whose seed
// loops inside a string until max_tokens (the 135M model's own repetition, not the grammar's)
// parses once DRY is on, as llama-server's users turn it on (`dry_multiplier` in extra_body).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { pythonSdkDir } from '../../fixtures/python-sdk.js';
import { startDefaultModelServer } from '../helpers/tiny-server.js';

const test = suite('python sdk, DRY');

const script = fileURLToPath(new URL('../python/parse_pydantic.py', import.meta.url));

/**
 * One seed of parse_pydantic.py, with `extraBody` sent beside the SDK's fields, on a server of
 * its own: a prefix-cache hit computes the prompt in other batches, whose rounding can change a
 * seeded answer, so each run starts from the same cold cache.
 */
async function runSeed(seed: number, extraBody: object | null): Promise<Record<string, unknown>> {
  // Two threads, not a count that follows the machine's load: the thread count changes how the
  // kernels round, and so which seeds loop.
  const server = await startDefaultModelServer({ threads: 2 });
  try {
    return await runScript(server.url, seed, extraBody);
  } finally {
    await server.close();
  }
}

function runScript(url: string, seed: number, extraBody: object | null): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', [script, `${url}/v1`, 'smollm2', '1', JSON.stringify(extraBody), String(seed)], {
      env: { ...process.env, PYTHONPATH: pythonSdkDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', () => {
      try {
        resolve(JSON.parse(stdout.trim()));
      } catch {
        reject(new Error(`no result: ${stdout} ${stderr}`));
      }
    });
  });
}

// Found with bench/pydantic-parse-rate.ts and runs of one seed: this seed's MathReasoning answer
// repeats itself inside its "output" string until max_tokens without DRY. At llama-server's usual
// 0.8 it still runs out: its loop becomes "3 * 3 * 3 ...", which DRY never sees as a repeat since
// "*" is a default sequence breaker. At 2 the penalties earlier in the answer lead it elsewhere.
const LOOPING_SEED = 10;
const DRY = { dry_multiplier: 2 };

test(`seed ${LOOPING_SEED} loops inside a string until max_tokens; with DRY (${JSON.stringify(DRY)}) it parses`, async () => {
  const plain = await runSeed(LOOPING_SEED, null);
  assert.is(plain.error, 'LengthFinishReasonError', JSON.stringify(plain).slice(0, 400));
  const dry = await runSeed(LOOPING_SEED, DRY);
  assert.ok(dry.ok, JSON.stringify(dry).slice(0, 400));
  assert.is(dry.finish_reason, 'stop');
});

test.run();
