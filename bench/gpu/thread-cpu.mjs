// Per-thread CPU of a server while it works: every thread of every process in a process group
// (the server and any engine process it started), sampled twice from /proc, `window` seconds
// apart after `delay` seconds. Prints JSON: the threads by CPU share of one core, busiest first.
//   node bench/gpu/thread-cpu.mjs PGID [DELAY_S] [WINDOW_S]
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const [pgid, delay = 3, window = 6] = process.argv.slice(2).map(Number);
const ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
const sleep = (s) => new Promise((resolve) => setTimeout(resolve, s * 1000));

/** Fields after the parenthesised name (which may hold spaces): [state, ppid, pgrp, ...]. */
function statFields(path) {
  const text = readFileSync(path, 'utf8');
  const close = text.lastIndexOf(')');
  return { name: text.slice(text.indexOf('(') + 1, close), rest: text.slice(close + 2).split(' ') };
}

function sample() {
  const ticks = new Map();
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (Number(statFields(`/proc/${pid}/stat`).rest[2]) !== pgid) continue;
      for (const tid of readdirSync(`/proc/${pid}/task`)) {
        const { name, rest } = statFields(`/proc/${pid}/task/${tid}/stat`);
        // utime and stime: fields 14 and 15 of stat, 12th and 13th after the name.
        ticks.set(`${pid}/${tid}`, { pid: Number(pid), tid: Number(tid), name, ticks: Number(rest[11]) + Number(rest[12]) });
      }
    } catch {
      // the process or thread ended between listing and reading
    }
  }
  return ticks;
}

await sleep(delay);
const before = sample();
const started = performance.now();
await sleep(window);
const after = sample();
const seconds = (performance.now() - started) / 1000;
const threads = [...after.entries()]
  .map(([key, t]) => ({ pid: t.pid, tid: t.tid, name: t.name, cpu_percent: (100 * (t.ticks - (before.get(key)?.ticks ?? t.ticks))) / ticksPerSecond / seconds }))
  .sort((a, b) => b.cpu_percent - a.cpu_percent);
const total = threads.reduce((sum, t) => sum + t.cpu_percent, 0);
console.log(JSON.stringify({ pgid, window_s: Number(seconds.toFixed(2)), total_cpu_percent: Number(total.toFixed(1)), threads: threads.slice(0, 12).map((t) => ({ ...t, cpu_percent: Number(t.cpu_percent.toFixed(1)) })) }));
