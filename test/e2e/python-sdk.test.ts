// The default model through the official OpenAI Python SDK, as its users write structured
// output: client.chat.completions.parse with pydantic models, for 50 seeds. Every output must
// end (no LengthFinishReasonError: JSON ends after its value, whitespace runs are bounded)
// and parse into the model.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { pythonSdkDir } from '../../fixtures/python-sdk.js';
import { startDefaultModelServer, type TinyServer } from '../helpers/tiny-server.js';

const test = suite<{ s: TinyServer }>('python sdk');

test.before(async (context) => {
  context.s = await startDefaultModelServer();
});
test.after(async (context) => {
  await context.s.close();
});

const script = fileURLToPath(new URL('../python/parse_pydantic.py', import.meta.url));

function runPython(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', [script, ...args], { env: { ...process.env, PYTHONPATH: pythonSdkDir }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('client.chat.completions.parse with pydantic models succeeds for 50 seeds', async ({ s }) => {
  const { code, stdout, stderr } = await runPython([`${s.url}/v1`, 'smollm2', '50']);
  const results = stdout.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line));
  assert.is(results.length, 50, stderr);
  const failed = results.filter((result) => !result.ok);
  assert.equal(failed, [], JSON.stringify(failed, null, 1));
  for (const result of results) assert.is(result.finish_reason, 'stop');
  assert.is(code, 0, stderr);
});

test.run();
