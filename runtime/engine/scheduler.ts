// Step planning, a pure function: which tokens of which sequences go into the next batch.
// Running sequences each get their next token first (decode), then prefill chunks of the
// others fill what is left of the chunk budget, oldest request first.
import type { Sequence } from './sequence.js';

export interface StepEntry {
  sequence: Sequence;
  /** Index in `sequence.tokens` of the first token computed this step. */
  start: number;
  count: number;
  /** Whether this chunk ends at the sequence's last known token, so it needs logits. */
  logits: boolean;
}

export interface StepPlan {
  entries: StepEntry[];
  tokens: number;
}

export interface StepLimits {
  /** Most prompt (catch-up) tokens in one step. */
  prefillChunkSize: number;
  /** Most tokens the batch holds in all. */
  batchCapacity: number;
}

/** `running` is in admission order; sequences that are finished or wait for their leader are skipped. */
export function planStep(running: readonly Sequence[], limits: StepLimits): StepPlan {
  const entries: StepEntry[] = [];
  let tokens = 0;
  for (const sequence of running) {
    if (sequence.finish !== undefined || sequence.slot < 0 || sequence.pending !== 1) continue;
    entries.push({ sequence, start: sequence.computed, count: 1, logits: true });
    tokens++;
  }
  let prefillBudget = Math.min(limits.prefillChunkSize, limits.batchCapacity - tokens);
  for (const sequence of running) {
    if (prefillBudget <= 0) break;
    if (sequence.finish !== undefined || sequence.slot < 0 || sequence.pending < 2 || sequence.waitsForLeader) continue;
    const count = Math.min(sequence.pending, prefillBudget);
    entries.push({ sequence, start: sequence.computed, count, logits: count === sequence.pending });
    tokens += count;
    prefillBudget -= count;
  }
  return { entries, tokens };
}
