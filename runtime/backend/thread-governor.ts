// How many threads llama.cpp decodes with when other processes want the same CPUs.
//
// ggml's CPU threads meet at a barrier after every graph node and wait there by spinning
// (ggml_barrier in ggml-cpu.c; the thread pool's `poll` setting only covers the wait between
// graphs). When another process takes a core, one of our threads sits in the run queue while
// the others spin, so a node can cost a whole scheduler time slice: on two cores, one busy
// neighbour takes SmolLM2 from ~80 to 1-15 tokens/s (bench:contention). With fewer threads
// than there are cores left free, no thread waits on one that is not running. So before a
// decode, at most every `intervalMs`, the governor measures how much CPU time other processes
// took and decodes with the cores they leave, never more than `maxThreads` and never fewer
// than one. It drops at once and climbs back only after the cores have stayed free for a
// while (2 s by default): one thread too many under contention costs ten times the speed,
// one too few on a quiet machine far less, and the load of other processes comes in bursts.

export interface ThreadGovernorOptions {
  /** Most threads to use: the CPUs this process may run on, or the user's limit. */
  maxThreads: number;
  /** How often to look at the load (default 250 ms: long enough for 25 clock ticks per CPU). */
  intervalMs?: number;
  /** Consecutive looks that must find more cores free before the count climbs (default 8: 2 s). */
  climbAfterLooks?: number;
  /** Reads the load since the previous call; undefined when it cannot tell yet. */
  sample: () => { cpus: number; othersCores: number } | undefined;
  /** Starts a new measuring interval (after an idle pause, so that it does not average over the pause). */
  reset: () => void;
  /** Milliseconds, monotonic (default performance.now). */
  now?: () => number;
  /** Called when the count changes, with the load that made it change. */
  onChange?: (threads: number, load: { cpus: number; othersCores: number }) => void;
}

/**
 * The policy, pure. Cores others leave free = cpus − othersCores. Drop to that (rounded) as
 * soon as it is below the current count; climb back only once a whole further core plus a
 * margin is free, so that background noise around a half-busy core does not flip the count
 * on every look.
 */
export function nextThreadCount(current: number, maxThreads: number, cpus: number, othersCores: number): number {
  const free = cpus - othersCores;
  let next = current;
  if (Math.round(free) < current) next = Math.round(free);
  else if (free >= current + 0.75) next = Math.round(free);
  return Math.max(1, Math.min(maxThreads, next));
}

export class ThreadGovernor {
  private current: number;
  private lastLook: number;
  private readonly intervalMs: number;
  private readonly climbAfterLooks: number;
  /** Consecutive looks so far that found room for more threads. */
  private roomyLooks = 0;
  private readonly now: () => number;
  /** Number of times the count changed, for logs and tests. */
  changes = 0;

  constructor(private readonly options: ThreadGovernorOptions) {
    this.current = Math.max(1, options.maxThreads);
    this.intervalMs = options.intervalMs ?? 250;
    this.climbAfterLooks = options.climbAfterLooks ?? 8;
    this.now = options.now ?? (() => performance.now());
    this.lastLook = this.now();
  }

  get maxThreads(): number {
    return this.options.maxThreads;
  }

  /** Threads for the decode about to start. Cheap: reads the kernel counters at most once per interval. */
  threads(): number {
    const now = this.now();
    const elapsed = now - this.lastLook;
    if (elapsed < this.intervalMs) return this.current;
    this.lastLook = now;
    if (elapsed > this.intervalMs * 4) {
      // The engine sat idle: a sample would average over the pause. Measure from now instead.
      this.options.reset();
      this.roomyLooks = 0;
      return this.current;
    }
    const load = this.options.sample();
    if (!load) return this.current;
    const next = nextThreadCount(this.current, this.options.maxThreads, load.cpus, load.othersCores);
    this.roomyLooks = next > this.current ? this.roomyLooks + 1 : 0;
    if (next < this.current || (next > this.current && this.roomyLooks >= this.climbAfterLooks)) {
      this.current = next;
      this.roomyLooks = 0;
      this.changes++;
      this.options.onChange?.(next, load);
    }
    return this.current;
  }
}
