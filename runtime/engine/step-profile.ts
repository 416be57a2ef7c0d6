// Where a decode step's wall time goes on the engine thread (bench:host): planning, building the
// batch, llama_decode (its host side: on a GPU it only queues the graph), waiting for the device
// to finish (`device`: an explicit llama_synchronize, made only while profiling; near zero on a
// CPU, where llama_decode computes before it returns), sampling, committing (stop rules,
// detokenising), turning what was gathered into events, posting them, and the event-loop turn
// the worker yields each step.
// Off unless the engine is created with `profileSteps: true`; when off the loop does one
// `undefined` check per phase. Only pure decode steps (no prompt tokens) count, the shape
// bench/engine/decode-floor.c times, so the figures compare with it directly; they are kept
// apart by the number of sequences a step decoded, so that a bench reads the steps of one width.
// Each pure decode step also adds the KV cells in use when it ran (running and cached sequences'):
// llama.cpp's attention, and the mask it builds on the host, cover at least that many cells for
// every query, so a step's cost at one width grows with them, and two runs (the server's steps,
// bench:host's loop) compare only at like cells. It also counts the pure decodes that follow a
// pure decode of the same width: only a step shaped as the one before can run the graph
// llama.cpp built for it again (and, on CUDA, the CUDA graph captured from it), so their share
// says how much of a server's traffic could take that fast path, where bench:host's loop
// always repeats its shape.
// Every step, pure decode or not, is also counted with its wall time alone (allSteps): a server's
// steps are mostly mixed, and their share says what the pure decode figures leave out.
import { performance } from 'node:perf_hooks';

export const STEP_PHASES = ['plan', 'batch', 'decode', 'device', 'sample', 'commit', 'collect', 'emit', 'yield'] as const;
export type StepPhase = (typeof STEP_PHASES)[number];

/** Sums since the engine started over the pure decode steps of one width: how many, their wall time and each phase's, in milliseconds. */
export interface StepTotals {
  steps: number;
  /** Whole steps, first phase to last. */
  wallMs: number;
  phasesMs: Record<StepPhase, number>;
  /** The KV cells in use at each step, summed over the steps (their mean: cells / steps). */
  cells: number;
  /** Steps that followed a pure decode of the same width (a batch shaped as the one before). */
  repeats: number;
}

/** StepTotals by the number of sequences the steps decoded. */
export type StepProfileTotals = Record<number, StepTotals>;

/** Sums since the engine started over every step of one width, mixed ones too: how many, and their wall time in milliseconds. */
export interface StepWalls {
  steps: number;
  wallMs: number;
}

/** StepWalls by the number of sequences the steps decoded (0: a step of prompt tokens only). */
export type StepWallTotals = Record<number, StepWalls>;

export class StepProfile {
  private readonly totals: StepProfileTotals = {};
  private readonly walls: StepWallTotals = {};
  /** This step's phases, added to the totals only when the step turns out to be a pure decode. */
  private readonly current = emptyPhases();
  private stepStart = 0;
  private mark = 0;
  /** The width of the step before when it was a pure decode, else -1. */
  private lastPureWidth = -1;

  /** Opens a step; the time until the next `lap` goes to that lap's phase. */
  begin(): void {
    for (const phase of STEP_PHASES) this.current[phase] = 0;
    this.stepStart = this.mark = performance.now();
  }

  /** Closes the running span, charging it to `phase`. */
  lap(phase: StepPhase): void {
    const now = performance.now();
    this.current[phase] += now - this.mark;
    this.mark = now;
  }

  /** Charges `ms` measured elsewhere (spans interleaved per sequence) to `phase`, without moving the mark. */
  add(phase: StepPhase, ms: number): void {
    this.current[phase] += ms;
  }

  /** Moves time already charged by `add` out of the phase the enclosing `lap` will charge it to. */
  subtract(phase: StepPhase, ms: number): void {
    this.current[phase] -= ms;
  }

  /** Closes the step of `sequences` decoding streams over `cells` KV cells in use; its phases count only when it had no prompt token nor draft. */
  end(pureDecode: boolean, sequences: number, cells: number): void {
    const wallMs = this.mark - this.stepStart;
    const walls = (this.walls[sequences] ??= { steps: 0, wallMs: 0 });
    walls.steps++;
    walls.wallMs += wallMs;
    const repeat = pureDecode && this.lastPureWidth === sequences;
    this.lastPureWidth = pureDecode ? sequences : -1;
    if (!pureDecode) return;
    const totals = (this.totals[sequences] ??= { steps: 0, wallMs: 0, phasesMs: emptyPhases(), cells: 0, repeats: 0 });
    totals.steps++;
    totals.wallMs += wallMs;
    totals.cells += cells;
    if (repeat) totals.repeats++;
    for (const phase of STEP_PHASES) totals.phasesMs[phase] += this.current[phase];
  }

  snapshot(): StepProfileTotals {
    return Object.fromEntries(Object.entries(this.totals).map(([width, totals]) => [width, { ...totals, phasesMs: { ...totals.phasesMs } }]));
  }

  allSteps(): StepWallTotals {
    return Object.fromEntries(Object.entries(this.walls).map(([width, walls]) => [width, { ...walls }]));
  }
}

function emptyPhases(): Record<StepPhase, number> {
  return { plan: 0, batch: 0, decode: 0, device: 0, sample: 0, commit: 0, collect: 0, emit: 0, yield: 0 };
}

/** What was added between two snapshots, for the steps of `width` sequences (zeros when none ran). */
export function stepTotalsBetween(before: StepProfileTotals, after: StepProfileTotals, width: number): StepTotals {
  const a = after[width];
  const b = before[width];
  const phasesMs = emptyPhases();
  for (const phase of STEP_PHASES) phasesMs[phase] = (a?.phasesMs[phase] ?? 0) - (b?.phasesMs[phase] ?? 0);
  return { steps: (a?.steps ?? 0) - (b?.steps ?? 0), wallMs: (a?.wallMs ?? 0) - (b?.wallMs ?? 0), phasesMs, cells: (a?.cells ?? 0) - (b?.cells ?? 0), repeats: (a?.repeats ?? 0) - (b?.repeats ?? 0) };
}
