// Where an engine process's CPU time goes, thread by thread (bench:host): the engine's thread
// (its JavaScript and llama_decode), the main thread (the engine's messages and the requests'
// streams), and every other thread (V8's GC and compiler helpers, libuv's, ggml's own when
// --threads > 1). Read from Linux's /proc/self/task/*/schedstat, whose first field is a
// thread's time on a CPU in nanoseconds (exact, where /proc's stat counts 10 ms ticks).
import { readdirSync, readFileSync } from 'node:fs';

/** Each live thread's CPU time so far, in nanoseconds; empty where /proc has no schedstat (not Linux). */
export function threadCpuNanos(): Map<number, number> {
  const threads = new Map<number, number>();
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return threads;
  }
  for (const tid of tids) {
    try {
      threads.set(Number(tid), Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0]));
    } catch {
      // The thread ended between the listing and the read: what it used is lost with it.
    }
  }
  return threads;
}

export interface ThreadSplit {
  /** The thread other than the main one that used the most CPU: the engine's, which decodes. */
  engineMs: number;
  mainMs: number;
  otherMs: number;
}

/** The CPU each kind of thread used between two readings of threadCpuNanos, or undefined without /proc. */
export function threadSplit(before: Map<number, number>, after: Map<number, number>): ThreadSplit | undefined {
  if (after.size === 0) return undefined;
  const used = [...after].map(([tid, nanos]) => ({ tid, ms: (nanos - (before.get(tid) ?? 0)) / 1e6 }));
  const main = used.find(({ tid }) => tid === process.pid)?.ms ?? 0;
  const others = used.filter(({ tid }) => tid !== process.pid).sort((a, b) => b.ms - a.ms);
  const engine = others[0]?.ms ?? 0;
  const total = used.reduce((sum, { ms }) => sum + ms, 0);
  return { engineMs: engine, mainMs: main, otherMs: total - engine - main };
}
