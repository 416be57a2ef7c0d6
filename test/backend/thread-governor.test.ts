// The thread count under load from other processes: the kernel counters it reads (fake /proc
// trees), the policy, and the governor's timing (a fake clock: no test waits).
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CpuLoadSampler, cpuQuotaCores, parseCpuList, parseProcessTicks, parseProcStat } from '../../runtime/backend/cpu-load.js';
import { nextThreadCount, ThreadGovernor } from '../../runtime/backend/thread-governor.js';

const test = suite('thread governor');

function writeTree(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

/** /proc/stat with per-CPU lines: [user, system, idle, steal] ticks each. */
const procStat = (cpus: [number, number, number, number][]) =>
  ['cpu  0 0 0 0 0 0 0 0 0 0', ...cpus.map(([user, system, idle, steal], i) => `cpu${i} ${user} 0 ${system} ${idle} 0 0 0 ${steal} 0 0`), 'intr 123', 'ctxt 456'].join('\n') + '\n';
const selfStat = (ticks: number) => `4242 (node (engine)) R 1 4242 4242 0 -1 4194560 100 0 0 0 ${ticks} 0 0 0 20 0 12 0 100 1000 100`;

test('kernel counters: CPU lists, per-CPU busy and total ticks, own ticks', () => {
  assert.equal(parseCpuList('0-3,8,10-11\n'), [0, 1, 2, 3, 8, 10, 11]);
  const stat = procStat([[10, 5, 85, 0], [50, 0, 40, 10], [99, 1, 0, 0]]);
  assert.equal(parseProcStat(stat, [0, 1]), { busy: 75, total: 200 });
  assert.equal(parseProcStat(stat, [2]), { busy: 100, total: 100 });
  // The command name holds a space and a parenthesis; utime and stime follow it at fixed places.
  assert.is(parseProcessTicks(selfStat(30)), 30);
});

test('the sampler counts time other processes took on the allowed CPUs, not this process', () => {
  const root = mkdtempSync(join(tmpdir(), 'lmforge-cpu-'));
  writeTree(root, { 'proc/self/status': 'Name:\tnode\nCpus_allowed_list:\t0-1\n', 'proc/stat': procStat([[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]), 'proc/self/stat': selfStat(0) });
  const sampler = CpuLoadSampler.create(root)!;
  assert.equal(sampler.cpus, [0, 1]);
  // 100 ticks per CPU pass: 120 busy ticks on CPUs 0-1, of which 60 were ours; CPU 2 is not ours to count.
  writeTree(root, { 'proc/stat': procStat([[70, 0, 30, 0], [40, 0, 50, 10], [100, 0, 0, 0]]), 'proc/self/stat': selfStat(60) });
  assert.equal(sampler.sample(), { cpus: 2, othersCores: 0.6 });
  // No tick since: nothing to tell.
  assert.is(sampler.sample(), undefined);
  assert.is(CpuLoadSampler.create(join(root, 'missing')), undefined);
});

test('a cgroup CPU quota bounds the CPUs worth using', () => {
  const v2 = mkdtempSync(join(tmpdir(), 'lmforge-quota-'));
  writeTree(v2, { 'sys/fs/cgroup/cpu.max': '150000 100000\n' });
  assert.is(cpuQuotaCores(v2), 1.5);
  const v1 = mkdtempSync(join(tmpdir(), 'lmforge-quota-'));
  writeTree(v1, { 'sys/fs/cgroup/cpu/cpu.cfs_quota_us': '200000\n', 'sys/fs/cgroup/cpu/cpu.cfs_period_us': '100000\n' });
  assert.is(cpuQuotaCores(v1), 2);
  const none = mkdtempSync(join(tmpdir(), 'lmforge-quota-'));
  writeTree(none, { 'sys/fs/cgroup/cpu.max': 'max 100000\n', 'sys/fs/cgroup/cpu/cpu.cfs_quota_us': '-1\n' });
  assert.is(cpuQuotaCores(none), undefined);
});

test('policy: one busy neighbour on two CPUs leaves one thread; it climbs back once the neighbour stops', () => {
  // Two spinning threads and a busy process share two CPUs: the neighbour gets 2/3 of a CPU.
  assert.is(nextThreadCount(2, 2, 2, 0.67), 1);
  // With one thread it gets a whole CPU: stay at one.
  assert.is(nextThreadCount(1, 2, 2, 1.0), 1);
  // Gone: back to two.
  assert.is(nextThreadCount(1, 2, 2, 0.05), 2);
  // Background noise around a third of a CPU neither drops nor raises the count.
  assert.is(nextThreadCount(2, 2, 2, 0.3), 2);
  assert.is(nextThreadCount(1, 2, 2, 0.3), 1);
  // Never below one, never above the most asked for.
  assert.is(nextThreadCount(2, 2, 2, 2), 1);
  assert.is(nextThreadCount(4, 4, 16, 0), 4);
});

test('policy: on sixteen CPUs, four busy processes leave twelve threads', () => {
  // With 16 threads of ours spinning, four neighbours get 16 × 4 / 20 = 3.2 CPUs.
  const first = nextThreadCount(16, 16, 16, 3.2);
  assert.is(first, 13);
  // At 13 threads they get 16 × 4 / 17 = 3.76: one step more, then steady with a whole 4.
  const second = nextThreadCount(first, 16, 16, 3.76);
  assert.is(second, 12);
  assert.is(nextThreadCount(second, 16, 16, 4), 12);
});

function fakeGovernor(climbAfterLooks: number) {
  const state = { clock: 0, load: { cpus: 2, othersCores: 0 }, samples: 0, resets: 0 };
  const governor = new ThreadGovernor({
    maxThreads: 2,
    intervalMs: 250,
    climbAfterLooks,
    now: () => state.clock,
    sample: () => (state.samples++, state.load),
    reset: () => state.resets++,
  });
  return { governor, state };
}

test('governor: looks at most once per interval, and restarts its measure after an idle pause', () => {
  const { governor, state } = fakeGovernor(1);
  assert.is(governor.threads(), 2);
  state.load = { cpus: 2, othersCores: 0.67 };
  state.clock = 100;
  assert.is(governor.threads(), 2, 'no look before the interval');
  assert.is(state.samples, 0);
  state.clock = 260;
  assert.is(governor.threads(), 1);
  assert.is(state.samples, 1);
  state.load = { cpus: 2, othersCores: 0 };
  state.clock = 5000; // idle for seconds: the sample would average over the pause
  assert.is(governor.threads(), 1);
  assert.equal([state.samples, state.resets], [1, 1]);
  state.clock = 5300;
  assert.is(governor.threads(), 2);
  assert.is(governor.changes, 2);
});

test('governor: drops at the first busy look, climbs only after several free ones in a row', () => {
  const { governor, state } = fakeGovernor(4);
  const look = (othersCores: number) => {
    state.clock += 250;
    state.load = { cpus: 2, othersCores };
    return governor.threads();
  };
  assert.is(look(0.8), 1);
  // A burst of other work ends, then comes back before four looks have passed: stay at one.
  assert.equal([look(0), look(0), look(0), look(1), look(0)], [1, 1, 1, 1, 1]);
  // Four free looks in a row: two threads again.
  assert.equal([look(0), look(0), look(0)], [1, 1, 2]);
  assert.is(governor.changes, 2);
});

test.run();
