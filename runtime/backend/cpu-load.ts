// How busy other processes keep the CPUs this process may run on, from the kernel's counters
// (/proc/stat for every CPU, /proc/self/stat for this process). Linux only: elsewhere
// `CpuLoadSampler.create` returns undefined and callers keep a fixed thread count.
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';

export interface CpuTimes {
  /** Clock ticks the allowed CPUs spent running anything (steal included: time the hypervisor gave away). */
  busy: number;
  /** Clock ticks the allowed CPUs existed for (busy plus idle). */
  total: number;
}

export interface CpuLoad {
  /** CPUs this process may run on. */
  cpus: number;
  /** Of those, how many CPUs' worth of time went to other processes over the interval. */
  othersCores: number;
}

/** Parses a CPU list as in Cpus_allowed_list ("0-3,8,10-11"). */
export function parseCpuList(text: string): number[] {
  const cpus: number[] = [];
  for (const part of text.trim().split(',')) {
    if (part === '') continue;
    const [from, to] = part.split('-').map(Number);
    if (from === undefined || !Number.isInteger(from)) continue;
    for (let cpu = from; cpu <= (to ?? from); cpu++) cpus.push(cpu);
  }
  return cpus;
}

/** Busy and total ticks of the listed CPUs, summed over their "cpuN" lines of /proc/stat. */
export function parseProcStat(text: string, cpus: readonly number[]): CpuTimes {
  const wanted = new Set(cpus);
  let busy = 0;
  let total = 0;
  for (const line of text.split('\n')) {
    const match = /^cpu(\d+) (.*)$/.exec(line);
    if (!match || !wanted.has(Number(match[1]))) continue;
    // user nice system idle iowait irq softirq steal guest guest_nice; guest time is already in user.
    const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = match[2]!.trim().split(/\s+/).map(Number);
    const lineBusy = user + nice + system + irq + softirq + steal;
    busy += lineBusy;
    total += lineBusy + idle + iowait;
  }
  return { busy, total };
}

/** User plus system ticks of a process, from its /proc/PID/stat line (all its threads, the ended ones too). */
export function parseProcessTicks(text: string): number {
  // The command name (field 2) may hold spaces and parentheses: count fields after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime and stime are fields 14 and 15
}

export class CpuLoadSampler {
  private last: { cpu: CpuTimes; own: number } | undefined;

  private constructor(
    private readonly root: string,
    readonly cpus: readonly number[],
  ) {}

  /** A sampler for this process, or undefined where the kernel counters cannot be read. */
  static create(root = '/'): CpuLoadSampler | undefined {
    try {
      const status = readFileSync(join(root, 'proc', 'self', 'status'), 'utf8');
      const list = /^Cpus_allowed_list:\s*(.*)$/m.exec(status)?.[1];
      const cpus = list === undefined ? [] : parseCpuList(list);
      if (cpus.length === 0) return undefined;
      const sampler = new CpuLoadSampler(root, cpus);
      sampler.read();
      return sampler;
    } catch {
      return undefined;
    }
  }

  /**
   * Load since the previous call (or since creation), or undefined when no clock tick has
   * passed since then. The first call after a long pause averages over the whole pause, so
   * callers restart with `reset()` when their last sample is old.
   */
  sample(): CpuLoad | undefined {
    const previous = this.last;
    const now = this.read();
    if (!previous || now.cpu.total <= previous.cpu.total) return undefined;
    const total = now.cpu.total - previous.cpu.total;
    const othersBusy = now.cpu.busy - previous.cpu.busy - (now.own - previous.own);
    const cpus = this.cpus.length;
    return { cpus, othersCores: Math.min(cpus, Math.max(0, (othersBusy / total) * cpus)) };
  }

  /** Starts a new interval now. */
  reset(): void {
    this.read();
  }

  private read(): { cpu: CpuTimes; own: number } {
    const cpu = parseProcStat(readFileSync(join(this.root, 'proc', 'stat'), 'utf8'), this.cpus);
    const own = parseProcessTicks(readFileSync(join(this.root, 'proc', 'self', 'stat'), 'utf8'));
    this.last = { cpu, own };
    return this.last;
  }
}

/**
 * CPUs this process can keep busy: those its affinity allows, fewer when a cgroup CPU quota
 * (v2 cpu.max, v1 cpu.cfs_quota_us) grants less time than that. A container limited to two
 * CPUs' time on a 64-CPU host would otherwise start 64 threads that the quota stalls in turn.
 */
export function usableCpus(root = '/'): number {
  const affinity = availableParallelism();
  const quota = cpuQuotaCores(root);
  return quota === undefined ? affinity : Math.max(1, Math.min(affinity, Math.ceil(quota)));
}

/** CPUs' worth of time the cgroup quota allows, or undefined when there is no quota. */
export function cpuQuotaCores(root = '/'): number | undefined {
  const read = (path: string) => {
    try {
      return readFileSync(join(root, path), 'utf8').trim();
    } catch {
      return undefined;
    }
  };
  const v2 = read('sys/fs/cgroup/cpu.max')?.split(' ');
  if (v2 && v2[0] !== 'max' && v2.length === 2) {
    const cores = Number(v2[0]) / Number(v2[1]);
    if (Number.isFinite(cores) && cores > 0) return cores;
  }
  for (const dir of ['sys/fs/cgroup/cpu', 'sys/fs/cgroup/cpu,cpuacct']) {
    const quota = Number(read(`${dir}/cpu.cfs_quota_us`));
    const period = Number(read(`${dir}/cpu.cfs_period_us`));
    if (quota > 0 && period > 0) return quota / period;
  }
  return undefined;
}
