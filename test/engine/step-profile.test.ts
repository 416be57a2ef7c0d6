// The engine's step profile (bench:host): with profileSteps on, stats() carries the phase
// timings of every pure decode step, and only of those; off, nothing is reported.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Engine } from '../../runtime/engine/client/engine.js';
import { STEP_PHASES, stepTotalsBetween } from '../../runtime/engine/step-profile.js';
import { runToEnd } from '../helpers/engine-run.js';
import { tinyEngine } from '../helpers/tiny-engine.js';

const test = suite<{ profiled: Engine; plain: Engine }>('step profile');

test.before(async (context) => {
  context.profiled = await tinyEngine({ overrides: { context_window_size: 256 }, profileSteps: true });
  context.plain = await tinyEngine({ overrides: { context_window_size: 256 } });
});
test.after(async (context) => {
  await context.profiled.dispose();
  await context.plain.dispose();
});

const request = { prompt: 'The quick brown fox', maxTokens: 8, ignoreEos: true, sampling: { temperature: 0 } };

test('each decode step of a request is counted once, with its phases adding up to the step', async ({ profiled }) => {
  const before = (await profiled.stats()).stepProfile!;
  const { promptTokens } = await runToEnd(profiled, request);
  const after = (await profiled.stats()).stepProfile!;
  // The first token comes from the prompt's step, which is no pure decode; the other 7 each take one.
  const one = stepTotalsBetween(before, after, 1);
  assert.is(one.steps, 7);
  // The engine's first request: its cells alone are in use, the prompt's and one more each step
  // (the token it decodes), so 7 steps hold promptTokens + 1 … promptTokens + 7 cells.
  assert.is(one.cells, 7 * promptTokens + 28);
  // The first pure decode follows the prompt's step; each of the 6 others repeats its shape.
  assert.is(one.repeats, 6);
  assert.equal(Object.keys(after), ['1']);
  const phases = STEP_PHASES.map((phase) => one.phasesMs[phase]);
  for (const [i, ms] of phases.entries()) assert.ok(ms >= 0, `${STEP_PHASES[i]} is ${ms} ms`);
  assert.ok(one.phasesMs.decode > 0, 'llama_decode took no time');
  const sum = phases.reduce((a, b) => a + b, 0);
  assert.ok(Math.abs(sum - one.wallMs) < 1e-6 * Math.max(1, one.wallMs), `phases sum to ${sum} ms, the steps took ${one.wallMs}`);
});

test('steps are counted by the number of sequences they decoded', async ({ profiled }) => {
  const before = (await profiled.stats()).stepProfile!;
  await Promise.all([runToEnd(profiled, request), runToEnd(profiled, { ...request, prompt: 'Once upon a time' })]);
  const after = (await profiled.stats()).stepProfile!;
  // Sent together to an idle engine, both prompts normally share a step and 7 steps decode
  // both; a loaded machine can deliver the second request a step or two late, when the first
  // decodes alone (1-wide steps) and then beside the second's prompt (no pure decode step).
  const two = stepTotalsBetween(before, after, 2).steps;
  const one = stepTotalsBetween(before, after, 1).steps;
  assert.ok(two >= 5, `${two} steps decoded both`);
  assert.ok(2 * two + one <= 14, `${two} 2-wide and ${one} 1-wide steps: more sequence-steps than the 14 decoded`);
});

test('allSteps counts every step by width: the prompt\'s step (no sequence decoded yet) beside the decodes', async ({ profiled }) => {
  const before = (await profiled.stats()).allSteps!;
  // A prompt no earlier test sent: a cached one would leave only its last token, a decode step.
  await runToEnd(profiled, { ...request, prompt: 'Rivers run down to the sea' });
  const after = (await profiled.stats()).allSteps!;
  const added = (width: number) => (after[width]?.steps ?? 0) - (before[width]?.steps ?? 0);
  assert.is(added(0), 1);
  assert.is(added(1), 7);
  assert.ok(after[0]!.wallMs > (before[0]?.wallMs ?? 0));
});

test('without profileSteps the engine reports no profile', async ({ plain }) => {
  await runToEnd(plain, request);
  assert.is((await plain.stats()).stepProfile, undefined);
  assert.is((await plain.stats()).allSteps, undefined);
});

test.run();
