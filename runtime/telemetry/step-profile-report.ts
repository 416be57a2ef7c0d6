// What GET /debug/step-profile answers (`lmforge serve --profile-steps`): the engine's step
// profile as means, by decode width, so that a GPU run reads where the server's own steps go
// and compares them with bench:host's loop alone. Pure decode steps carry the phases; the
// others (prompt tokens or drafts in the step) only a count and a mean, per width and in all.
import { STEP_PHASES, type StepPhase, type StepProfileTotals, type StepWallTotals } from '../engine/step-profile.js';

/** One width's steps: the pure decodes with their phases, and the mixed ones. Means are null where no step ran. */
export interface StepProfileRow {
  /** Sequences the steps decoded (0: steps of prompt tokens only). */
  width: number;
  steps: number;
  step_ms: number | null;
  phases_ms: Record<StepPhase, number> | null;
  /** KV cells in use at a pure decode step, on average (running and cached sequences'): what attention covers at least. */
  cells_in_use: number | null;
  /** Pure decode steps that followed a pure decode of the same width: a batch shaped as the one before, whose graph llama.cpp can run again. */
  repeat_steps: number;
  mixed_steps: number;
  mixed_step_ms: number | null;
}

export interface StepProfileReport {
  object: 'step_profile';
  phases: readonly StepPhase[];
  widths: StepProfileRow[];
  /** Every mixed step, whatever its width. */
  mixed: { steps: number; step_ms: number | null };
}

const meanOf = (ms: number, steps: number): number | null => (steps > 0 ? ms / steps : null);

export function stepProfileReport(pure: StepProfileTotals = {}, all: StepWallTotals = {}): StepProfileReport {
  const widths = [...new Set([...Object.keys(pure), ...Object.keys(all)].map(Number))].sort((a, b) => a - b);
  let mixedSteps = 0;
  let mixedMs = 0;
  const rows = widths.map((width): StepProfileRow => {
    const decodes = pure[width];
    const steps = decodes?.steps ?? 0;
    // Every step counts in `all`, the pure decodes too.
    const mixed = (all[width]?.steps ?? 0) - steps;
    const mixedWallMs = (all[width]?.wallMs ?? 0) - (decodes?.wallMs ?? 0);
    mixedSteps += mixed;
    mixedMs += mixedWallMs;
    return {
      width,
      steps,
      step_ms: meanOf(decodes?.wallMs ?? 0, steps),
      phases_ms: decodes ? (Object.fromEntries(STEP_PHASES.map((phase) => [phase, decodes.phasesMs[phase] / decodes.steps])) as Record<StepPhase, number>) : null,
      cells_in_use: meanOf(decodes?.cells ?? 0, steps),
      repeat_steps: decodes?.repeats ?? 0,
      mixed_steps: mixed,
      mixed_step_ms: meanOf(mixedWallMs, mixed),
    };
  });
  return { object: 'step_profile', phases: STEP_PHASES, widths: rows, mixed: { steps: mixedSteps, step_ms: meanOf(mixedMs, mixedSteps) } };
}
