// GET /debug/step-profile (`lmforge serve --profile-steps`, createServer's profileSteps): the
// engine's steps by decode width, pure decodes with their phases and mixed steps counted apart;
// a server started without the flag answers 404 naming it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tinyModelPath } from '../../fixtures/paths.js';
import { createServer, type LmforgeServer } from '../../runtime/server/create-server.js';
import { STEP_PHASES } from '../../runtime/engine/step-profile.js';
import type { StepProfileReport } from '../../runtime/telemetry/step-profile-report.js';
import { post, startTinyServer, TINY_MODEL_ID, type TinyServer } from '../helpers/tiny-server.js';

const test = suite<{ profiled: LmforgeServer; plain: TinyServer; dir: string }>('GET /debug/step-profile');

test.before(async (context) => {
  context.dir = mkdtempSync(join(tmpdir(), 'lmforge-step-profile-'));
  context.profiled = await createServer({ model: tinyModelPath, port: 0, device: 'cpu', threads: 1, overrides: { context_window_size: 256 }, grammarCacheDir: context.dir, profileSteps: true });
  context.plain = await startTinyServer();
});
test.after(async (context) => {
  await context.profiled.close();
  await context.plain.close();
  rmSync(context.dir, { recursive: true, force: true });
});

const chat = (content: string) => ({ model: 'tiny-gpt2', messages: [{ role: 'user', content }], max_tokens: 16, ignore_eos: true, temperature: 0 });

test('after concurrent requests: decode steps by width with every phase, and the prompts\' steps counted as mixed', async ({ profiled }) => {
  const answers = await Promise.all(['Count to ten.', 'Name a colour.', 'Say hello.'].map((content) => post(`${profiled.url}/v1/chat/completions`, chat(content))));
  assert.equal(answers.map((answer) => answer.status), [200, 200, 200]);
  const response = await fetch(`${profiled.url}/debug/step-profile`);
  assert.is(response.status, 200);
  const report = (await response.json()) as StepProfileReport;
  assert.equal(report.phases, [...STEP_PHASES]);
  const decoded = report.widths.filter((row) => row.steps > 0);
  assert.ok(decoded.length > 0, `no width has pure decode steps: ${JSON.stringify(report)}`);
  for (const row of decoded) {
    assert.ok(Number.isFinite(row.step_ms) && row.step_ms! > 0, `width ${row.width}: step_ms ${row.step_ms}`);
    for (const phase of STEP_PHASES) {
      const ms = row.phases_ms?.[phase];
      assert.ok(typeof ms === 'number' && Number.isFinite(ms) && ms >= 0, `width ${row.width}: ${phase} is ${ms}`);
    }
  }
  // 16 tokens each: the first from a prompt's step, 15 from decode steps of one to three sequences.
  const sequenceSteps = decoded.reduce((sum, row) => sum + row.width * row.steps, 0);
  assert.ok(sequenceSteps <= 3 * 15, `${sequenceSteps} sequence-steps decoded, more than the 45 asked for`);
  assert.ok(report.mixed.steps >= 1, 'the prompts\' steps are not counted');
  assert.ok(Number.isFinite(report.mixed.step_ms) && report.mixed.step_ms! > 0, `mixed step_ms ${report.mixed.step_ms}`);
  assert.is(report.mixed.steps, report.widths.reduce((sum, row) => sum + row.mixed_steps, 0));
});

test('a server started without --profile-steps answers 404 with an envelope naming the flag', async ({ plain }) => {
  const response = await fetch(`${plain.url}/debug/step-profile`);
  assert.is(response.status, 404);
  const body = (await response.json()) as { error: { message: string; type: string; code: string } };
  assert.is(body.error.type, 'not_found_error');
  assert.is(body.error.code, 'not_found');
  assert.match(body.error.message, '--profile-steps');
  // Still an unknown path for every other method, and no model answer leaks through.
  assert.is((await post(`${plain.url}/debug/step-profile`, { model: TINY_MODEL_ID })).status, 404);
});

test.run();
