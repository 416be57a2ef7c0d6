// Decode throughput of the engine at exactly `width` sequences. `width` identical requests start
// together; on a CPU their prompts complete a few per step (scheduler.ts promptStepFloor), so
// the first ones decode while the last still wait, and the first to finish leave early. The
// engine posts one message per step: this listens to those messages on the engine's worker and
// times the steady ones, whose deltas give each of the `width` sequences one token. From the
// first such message to the last, n messages apart, the engine decoded n steps of `width`.
// Timing messages rather than the requests' event streams keeps the main thread's own delays
// (several steps' messages handled in one turn under load) out of the step count. CPU time over
// the same steps is the figure a loaded machine disturbs least.
import { performance } from 'node:perf_hooks';
import type { Worker } from 'node:worker_threads';
import type { Engine } from '../../runtime/engine/client/engine.js';
import type { FromWorker } from '../../runtime/engine/protocol.js';

export interface SteadyRun {
  tokens: number;
  seconds: number;
  /** This process's CPU time over the same steps, every thread's (the engine's, llama.cpp's, the main thread's). */
  cpuSeconds: number;
}

/** The engine's step messages, tapped once per engine: its transport's handlers cannot be removed. */
const taps = new WeakMap<Engine, { current?: (message: FromWorker) => void }>();

function tapMessages(engine: Engine): { current?: (message: FromWorker) => void } {
  let tap = taps.get(engine);
  if (tap) return tap;
  const created: { current?: (message: FromWorker) => void } = {};
  const forward = (message: FromWorker) => created.current?.(message);
  // Both are private to Engine: `transport` since the engine may run in a child process (the
  // bench asks for a thread, whose CPU time is this process's), `worker` in older trees.
  const inside = engine as unknown as { transport?: { onMessage(handler: (message: FromWorker) => void): void }; worker?: Worker };
  if (inside.transport) inside.transport.onMessage(forward);
  else if (inside.worker) inside.worker.on('message', forward);
  else throw new Error('the engine has neither a transport nor a worker to listen to');
  taps.set(engine, (tap = created));
  return tap;
}

export async function steadyDecode(engine: Engine, prompt: string, width: number, maxTokens: number): Promise<SteadyRun> {
  const tap = tapMessages(engine);
  const steady: { at: number; cpu: NodeJS.CpuUsage }[] = [];
  tap.current = (message: FromWorker) => {
    if (message.type !== 'events') return;
    const ids = new Set<number>();
    let tokens = 0;
    for (const event of message.events) {
      if (event.type !== 'delta') continue;
      ids.add(event.id);
      tokens += event.tokens.length;
    }
    if (tokens === width && ids.size === width) steady.push({ at: performance.now(), cpu: process.cpuUsage() });
  };
  try {
    let total = 0;
    await Promise.all(
      Array.from({ length: width }, async () => {
        for await (const event of engine.generate({ prompt, maxTokens, ignoreEos: true, sampling: { temperature: 0 } })) if (event.type === 'delta') total += event.tokens.length;
      }),
    );
    if (total !== width * maxTokens) throw new Error(`the engine generated ${total} tokens, expected ${width * maxTokens}`);
  } finally {
    tap.current = undefined;
  }
  if (steady.length < 2) throw new Error(`fewer than two steps decoded all ${width} sequences: raise --tokens`);
  const steps = steady.length - 1;
  const first = steady[0]!;
  const last = steady.at(-1)!;
  const cpuMicros = last.cpu.user + last.cpu.system - first.cpu.user - first.cpu.system;
  return { tokens: steps * width, seconds: (last.at - first.at) / 1000, cpuSeconds: cpuMicros / 1e6 };
}
