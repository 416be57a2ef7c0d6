// bench:host's own measuring parts: the split of a process's CPU by thread (thread-cpu.ts), which
// must name the busiest non-main thread the engine's, and the node floor (node-floor.ts), which
// must decode what it is asked, run after run, as the C floor does (its memory cleared each time).
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { threadCpuNanos, threadSplit } from '../../bench/host/thread-cpu.js';
import { tinyModelPath } from '../../fixtures/paths.js';

const test = suite('bench-host-sides');
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const onLinux = process.platform === 'linux';

test('a busy worker thread is the engine thread, and the main thread that waited for it is not', async () => {
  if (!onLinux) return;
  const before = threadCpuNanos();
  // 300 ms of the worker's own CPU time (not of the clock: on a loaded machine 300 ms of the
  // clock gave it 140), after which it stays alive (an ended thread leaves /proc) while this thread waits.
  const code = `const { parentPort } = require('node:worker_threads'); const { readFileSync } = require('node:fs');
    const ticks = () => { const f = readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1].split(' '); return Number(f[11]) + Number(f[12]); };
    let x = 0; while (ticks() < 30) for (let i = 0; i < 1e5; i++) x += Math.sqrt(x + 1);
    parentPort.postMessage(x); parentPort.once('message', () => process.exit(0));`;
  const worker = new Worker(code, { eval: true });
  await new Promise((resolve) => worker.once('message', resolve));
  const split = threadSplit(before, threadCpuNanos());
  worker.postMessage('end');
  await new Promise((resolve) => worker.once('exit', resolve));
  assert.ok(split);
  assert.ok(split.engineMs >= 200, `engine thread ${split.engineMs} ms`);
  assert.ok(split.mainMs < split.engineMs / 2, `main thread ${split.mainMs} ms`);
});

test('the busiest thread other than the main one is the engine thread', () => {
  const before = new Map([[process.pid, 0], [11, 0], [12, 0], [13, 0]]);
  const after = new Map([[process.pid, 5e6], [11, 2e6], [12, 90e6], [13, 1e6]]);
  assert.equal(threadSplit(before, after), { engineMs: 90, mainMs: 5, otherMs: 3 });
  assert.is(threadSplit(before, new Map()), undefined);
});

test('the node floor decodes width × steps tokens, run after run, in a context that holds one run only', async () => {
  // 256 cells, 2 sequences: a run of 2 × 101 cells fits once; the second fits only if the first was cleared.
  const args = ['--model', tinyModelPath, '--device', 'cpu', '--cells', '256', '--batch', '64', '--sequences', '2', '--threads', '1', '--prompt', 'The'];
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/host/node-floor.ts', ...args], { cwd: repoRoot, stdio: ['pipe', 'pipe', 'pipe'] });
  let errors = '';
  child.stderr.on('data', (chunk) => (errors += chunk));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const read = async () => {
    const next = await lines.next();
    if (next.done) throw new Error(`node-floor exited: ${errors}`);
    return JSON.parse(next.value) as { ready?: boolean; tokens: number; seconds: number; cpuSeconds: number };
  };
  try {
    assert.ok((await read()).ready);
    for (let run = 0; run < 2; run++) {
      child.stdin.write('2 100\n');
      const answer = await read();
      assert.is(answer.tokens, 200);
      assert.ok(answer.seconds > 0 && answer.cpuSeconds > 0);
    }
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.stdin.end();
    await exited;
  }
});

test.run();
