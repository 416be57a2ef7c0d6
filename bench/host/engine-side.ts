// One engine under bench:host, in a process of its own: this tree's, or a baseline checkout's
// (--root), so that two versions of the engine run side by side against the same floor.
//   tsx bench/host/engine-side.ts --root DIR --model PATH --device cpu --sequences N --cells N --threads N --prompt TEXT --sampling auto|host|device --prefix-cache on|off
// Prints one JSON line when ready ({config}); then answers each stdin line "WIDTH TOKENS" with
// one JSON line: {tokens, seconds, profile?, threads?}: the steady window's tokens and seconds
// (steady-decode.ts), the step-phase sums of that run's steps at WIDTH sequences
// (runtime/engine/step-profile.ts), absent when the engine has no such switch (an older tree),
// and the process's CPU over the whole run by thread (thread-cpu.ts; Linux only).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { cac } from 'cac';
import type { Engine as EngineClass } from '../../runtime/engine/client/engine.js';
import type { SamplingSetting } from '../../runtime/engine/sampling-setting.js';
import { stepTotalsBetween } from '../../runtime/engine/step-profile.js';
import { steadyDecode } from './steady-decode.js';
import { threadCpuNanos, threadSplit } from './thread-cpu.js';

const cli = cac('engine-side');
for (const name of ['root', 'model', 'device', 'sequences', 'cells', 'threads', 'prompt', 'sampling', 'prefix-cache']) cli.option(`--${name} <value>`, name);
const { options } = cli.parse();
// Engine's file moved with the layout of issue 31 (runtime/engine/engine.ts before): a baseline may be either.
const root = String(options.root);
const enginePath = ['runtime/engine/client/engine.ts', 'runtime/engine/engine.ts'].map((path) => join(root, path)).find((path) => existsSync(path));
if (!enginePath) throw new Error(`no runtime/engine/client/engine.ts nor runtime/engine/engine.ts under ${root}`);
const { Engine } = (await import(pathToFileURL(enginePath).href)) as { Engine: typeof EngineClass };

const engine = await Engine.create({
  modelPath: String(options.model),
  device: String(options.device),
  mode: 'local',
  // In a thread, so that this process's CPU time is the engine's (older trees ran it there and ignore this).
  isolation: 'thread',
  overrides: {
    max_num_sequence: Number(options.sequences),
    max_total_seq_length: Number(options.cells),
    // off: finished sequences free their cells, as the floor clears its memory before every run (bench/host.ts says why).
    ...(options.prefixCache === 'off' ? { prefix_cache_max_num_recycling_seqs: 0 } : {}),
  },
  threads: Number(options.threads),
  profileSteps: true,
  sampling: String(options.sampling ?? 'auto') as SamplingSetting,
});
const prompt = String(options.prompt);
console.log(JSON.stringify({ config: engine.info.config, devices: engine.info.devices }));

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  const [width, tokens] = line.split(' ').map(Number) as [number, number];
  const before = (await engine.stats()).stepProfile;
  const threadsBefore = threadCpuNanos();
  const run = await steadyDecode(engine, prompt, width, tokens);
  const threads = threadSplit(threadsBefore, threadCpuNanos());
  const after = (await engine.stats()).stepProfile;
  console.log(JSON.stringify({ ...run, ...(before && after ? { profile: stepTotalsBetween(before, after, width) } : {}), ...(threads ? { threads } : {}) }));
}
await engine.dispose();
