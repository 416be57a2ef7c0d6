// GET /debug/step-profile's body: the engine's step sums as means by width, with the steps
// that are no pure decode (prompt tokens, drafts) counted apart per width and in all.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { STEP_PHASES, StepProfile, type StepPhase } from '../../runtime/engine/step-profile.js';
import { stepProfileReport } from '../../runtime/telemetry/step-profile-report.js';

const test = suite('step profile report');

const phases = (ms: number): Record<StepPhase, number> => Object.fromEntries(STEP_PHASES.map((phase) => [phase, ms])) as Record<StepPhase, number>;

test('means by width; mixed steps are every step less the pure decodes', () => {
  const report = stepProfileReport(
    { 2: { steps: 4, wallMs: 36, phasesMs: phases(4), cells: 400, repeats: 3 } },
    { 0: { steps: 1, wallMs: 5 }, 2: { steps: 6, wallMs: 56 } },
  );
  assert.equal(report.widths, [
    { width: 0, steps: 0, step_ms: null, phases_ms: null, cells_in_use: null, repeat_steps: 0, mixed_steps: 1, mixed_step_ms: 5 },
    { width: 2, steps: 4, step_ms: 9, phases_ms: phases(1), cells_in_use: 100, repeat_steps: 3, mixed_steps: 2, mixed_step_ms: 10 },
  ]);
  assert.equal(report.mixed, { steps: 3, step_ms: 25 / 3 });
});

test('an engine that has run no step: no widths, no mean', () => {
  const report = stepProfileReport();
  assert.equal(report.widths, []);
  assert.equal(report.mixed, { steps: 0, step_ms: null });
});

test('StepProfile counts every step by width, and only the pure decodes in its phase totals', () => {
  const profile = new StepProfile();
  const step = (pure: boolean, width: number) => {
    profile.begin();
    profile.lap('decode');
    profile.end(pure, width, 10 * width);
  };
  step(false, 0);
  step(true, 3);
  step(false, 3);
  step(true, 3);
  const all = profile.allSteps();
  const pure = profile.snapshot();
  assert.equal(Object.keys(all), ['0', '3']);
  assert.is(all[0]!.steps, 1);
  assert.is(all[3]!.steps, 3);
  assert.equal(Object.keys(pure), ['3']);
  assert.is(pure[3]!.steps, 2);
  // Cells are summed over the pure decodes only: two steps over 30 cells each.
  assert.is(pure[3]!.cells, 60);
  // Neither pure decode followed one of its width (a mixed step came between).
  assert.is(pure[3]!.repeats, 0);
  assert.ok(all[3]!.wallMs >= pure[3]!.wallMs);
  // A copy: later steps leave a snapshot as it was.
  step(false, 3);
  assert.is(all[3]!.steps, 3);
  assert.is(profile.allSteps()[3]!.steps, 4);
  // A pure decode after a mixed step is no repeat; the next of its width is, one of another width not.
  step(true, 3);
  step(true, 3);
  step(true, 2);
  assert.is(profile.snapshot()[3]!.repeats, 1);
  assert.is(profile.snapshot()[2]!.repeats, 0);
  assert.equal(stepProfileReport(profile.snapshot(), profile.allSteps()).mixed.steps, 3);
});

test.run();
