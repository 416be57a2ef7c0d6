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

// Which seeds loop depends on how the CPU's kernels round (AVX2 or AVX-512 and AMX, the thread
// count): on a 2-core AVX2 EPYC seed 10's MathReasoning answer repeated itself inside its
// "output" string until max_tokens without DRY and parsed with it; on a 2-core AMX Xeon
// (2026-11-28, this server, one request at a time) 9 of the 14 MathReasoning seeds from 10 to
// 49 looped without DRY, and DRY at 2 turned 5 of them (16, 37, 40, 43, 49) into answers that
// parse, while seed 10 looped either way. So the test looks for a looping seed on the machine it
// runs on, MathReasoning's seeds (every third) from 10 on, and asks DRY to end one of them. At
// llama-server's usual 0.8 seed 10 still ran out on the EPYC: its loop becomes "3 * 3 * 3 ...",
// which DRY never sees as a repeat since "*" is a default sequence breaker.
const MATH_SEEDS = Array.from({ length: 14 }, (_, i) => 10 + 3 * i);
const DRY = { dry_multiplier: 2 };

test(`a seed that loops inside a string until max_tokens parses with DRY (${JSON.stringify(DRY)})`, async () => {
  // Without a prefix cache, each request computes its prompt in the same batch as the first did
  // (a cache hit computes it in other batches, whose rounding can change a seeded answer); two
  // threads, not a count that follows the machine's load, which would change the rounding too.
  const server = await startDefaultModelServer({ threads: 2, overrides: { prefix_cache_max_num_recycling_seqs: 0 } });
  const tried: string[] = [];
  try {
    for (const seed of MATH_SEEDS) {
      const plain = await runScript(server.url, seed, null);
      if (plain.ok) {
        tried.push(`${seed}: parses without DRY`);
        continue;
      }
      assert.is(plain.error, 'LengthFinishReasonError', JSON.stringify(plain).slice(0, 400));
      const dry = await runScript(server.url, seed, DRY);
      if (dry.ok) {
        assert.is(dry.finish_reason, 'stop');
        return;
      }
      tried.push(`${seed}: loops, with DRY too (${String(dry.error)})`);
    }
    assert.unreachable(`no looping seed parsed with DRY: ${tried.join('; ')}`);
  } finally {
    await server.close();
  }
});

test.run();
