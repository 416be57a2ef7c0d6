// The engine runs in a child process the server supervises: when that process dies mid-stream
// (ggml_abort through the test-only fault switch, or SIGKILL as the kernel's OOM killer
// sends), the HTTP server stays up, every client gets an OpenAI error envelope (engine_failed),
// /health says 503 until another engine is ready, then requests succeed again and /metrics
// counts the restart. A start-up probe that dies gives one line naming device, library and fix.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { APIError } from 'openai';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine, EngineStartError } from '../../runtime/engine/client/engine.js';
import { engineChildEnv } from '../../runtime/engine/client/engine-child.js';
import { tinyModelPath } from '../../fixtures/paths.js';
import { runToEnd } from '../helpers/engine-run.js';
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text.js';
import { startTinyServer, TINY_MODEL_ID, type TinyServer } from '../helpers/tiny-server.js';

const request: ChatCompletionCreateParamsNonStreaming = { model: TINY_MODEL_ID, messages: [{ role: 'user', content: 'Tell me a long story' }], max_tokens: 400, ...{ ignore_eos: true } };

/**
 * A `gdb` first on PATH that only leaves a mark: ggml_abort runs `gdb` to print a backtrace
 * before it aborts, unless told not to, and a real one would hold the dying engine for seconds.
 */
function fakeGdb(): { dir: string; ran: () => boolean } {
  const dir = mkdtempSync(join(tmpdir(), 'lmforge-fake-gdb-'));
  writeFileSync(join(dir, 'gdb'), `#!/bin/sh\necho "$@" > '${join(dir, 'ran')}'\n`, { mode: 0o755 });
  return { dir, ran: () => existsSync(join(dir, 'ran')) };
}

/** Starts a tiny server whose engine process is started with the fault switch set (the restarted one is not). */
async function serverWithFault(fault: string | undefined, path = process.env.PATH, watchdogMs?: number): Promise<{ s: TinyServer; log: string[] }> {
  const savedPath = process.env.PATH;
  if (fault) process.env.LMFORGE_TEST_ENGINE_FAULT = fault;
  process.env.PATH = path;
  try {
    const s = await startTinyServer({ engine: { overrides: { context_window_size: 1024 }, ...(watchdogMs ? { watchdogMs } : {}) } });
    const log: string[] = [];
    s.engine.onLog = (line) => log.push(line);
    return { s, log };
  } finally {
    delete process.env.LMFORGE_TEST_ENGINE_FAULT;
    process.env.PATH = savedPath;
  }
}

/** What the official client saw: the error's status and code, or 'ok'. */
async function outcome(promise: Promise<unknown>): Promise<{ status: number | undefined; code: unknown } | 'ok'> {
  try {
    await promise;
    return 'ok';
  } catch (error) {
    if (!(error instanceof APIError)) throw error;
    return { status: error.status, code: error.code };
  }
}

async function streamToEnd(s: TinyServer, onChunk?: () => void): Promise<void> {
  const stream = await s.client.chat.completions.create({ ...request, stream: true });
  for await (const _chunk of stream) onChunk?.();
}

async function healthStatus(s: TinyServer): Promise<{ status: number; body: { status: string } }> {
  const response = await fetch(`${s.url}/health`);
  return { status: response.status, body: (await response.json()) as { status: string } };
}

/** Polls /health until it answers 200; returns every status it saw on the way. */
async function healthUntilReady(s: TinyServer, timeoutMs = 30_000): Promise<string[]> {
  const seen: string[] = [];
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const health = await healthStatus(s);
    seen.push(`${health.status} ${health.body.status}`);
    if (health.status === 200) return seen;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`/health never became ready: ${seen.slice(-3).join(', ')}`);
}

/** A sample of the server's /metrics now. */
async function metric(s: TinyServer, name: string, labels?: Record<string, string>): Promise<number> {
  const families = parsePrometheusText(await (await fetch(`${s.url}/metrics`)).text());
  return sampleValue(families, name, labels);
}

const restartsMetric = (s: TinyServer) => metric(s, 'lmforge_engine_restarts_total');
const engineSteps = (s: TinyServer) => metric(s, 'lmforge_engine_steps_total');
const choicesEndedInError = (s: TinyServer) => metric(s, 'lmforge_choices_finished_total', { finish_reason: 'error' });

/** After the failure: 503 while restarting, then 200, a request that succeeds, and the restart counted. */
async function assertRecovers(s: TinyServer, firstHealth: { status: number; body: { status: string } }): Promise<void> {
  assert.equal(firstHealth, { status: 503, body: { status: 'engine_restarting' } }, 'right after the failure, /health says the engine is restarting');
  const seen = await healthUntilReady(s);
  assert.is(seen.at(-1), '200 ok');
  const after = await s.client.chat.completions.create({ ...request, max_tokens: 5 });
  assert.is(after.usage?.completion_tokens, 5, 'the next request succeeds');
  assert.is(await restartsMetric(s), 1);
}

const crash = suite('engine process crash mid-stream');

crash('an abort in the engine (ggml_abort, by the test fault switch): every client gets the envelope, the server restarts the engine', async () => {
  const gdb = fakeGdb();
  const { s, log } = await serverWithFault('abort-after:60', `${gdb.dir}:${process.env.PATH}`);
  try {
    const enginePid = s.engine.pid;
    assert.type(enginePid, 'number');
    assert.is.not(enginePid, process.pid, 'the engine runs in a process of its own');
    assert.is(await restartsMetric(s), 0);
    // Two streamed and one whole request, started together: the abort comes while they run (or
    // before the last is submitted, when it is refused the same way, as the engine restarts).
    const results = await Promise.all([outcome(streamToEnd(s)), outcome(streamToEnd(s)), outcome(s.client.chat.completions.create(request))]);
    const firstHealth = await healthStatus(s);
    // A stream had its 200 already: the error comes as an SSE error event (no status).
    assert.equal(results[0], { status: undefined, code: 'engine_failed' });
    assert.equal(results[1], { status: undefined, code: 'engine_failed' });
    assert.equal(results[2], { status: 503, code: 'engine_failed' });
    await assertRecovers(s, firstHealth);
    assert.is.not(s.engine.pid, enginePid, 'a new engine process serves');
    const said = log.join('\n');
    assert.match(said, /engine failed: the engine process \(pid \d+\) was killed by SIGABRT; its last output:\n.*engine-fault\.ts:1: lmforge test fault: abort after \d+ generated tokens/);
    assert.match(said, /starting it again in 1 s/);
    assert.not.ok(gdb.ran(), 'ggml_abort attached no debugger to the dying engine (GGML_NO_BACKTRACE)');
  } finally {
    await s.close();
    rmSync(gdb.dir, { recursive: true, force: true });
  }
});

crash('an engine that hangs (a native call that never returns): /health says engine_stalled, the watchdog ends it, its clients get the envelope, another serves', async () => {
  const { s, log } = await serverWithFault('hang-after:20', undefined, 4000);
  try {
    const enginePid = s.engine.pid;
    const stream = outcome(streamToEnd(s));
    const seen: string[] = [];
    for (const deadline = Date.now() + 30_000; Date.now() < deadline && !seen.includes('503 engine_restarting'); ) {
      const health = await healthStatus(s);
      const said = `${health.status} ${health.body.status}`;
      if (said !== seen.at(-1)) seen.push(said);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(seen.includes('503 engine_stalled'), `/health said the engine is stalled before it was ended: ${seen.join(', ')}`);
    assert.equal(await stream, { status: undefined, code: 'engine_failed' });
    assert.equal(await healthUntilReady(s).then((statuses) => statuses.at(-1)), '200 ok');
    const after = await s.client.chat.completions.create({ ...request, max_tokens: 5 });
    assert.is(after.usage?.completion_tokens, 5, 'the next request succeeds');
    assert.is.not(s.engine.pid, enginePid, 'a new engine process serves');
    assert.match(log.join('\n'), /engine failed: it finished no step for \d+ s while holding requests \(a native call hung\?\), so the watchdog ended it \(--watchdog-timeout 4\)/);
  } finally {
    await s.close();
  }
});

crash('an idle engine owes no steps: stopped while it holds nothing, it is neither reported stalled nor ended', async () => {
  const { s } = await serverWithFault(undefined, undefined, 2000);
  const pid = s.engine.pid!;
  try {
    process.kill(pid, 'SIGSTOP');
    await new Promise((resolve) => setTimeout(resolve, 3500));
    assert.equal(await healthStatus(s), { status: 200, body: { status: 'ok' } });
    assert.is(s.engine.restarts, 0);
    process.kill(pid, 'SIGCONT');
    const after = await s.client.chat.completions.create({ ...request, max_tokens: 3 });
    assert.is(after.usage?.completion_tokens, 3);
    assert.is(s.engine.pid, pid, 'the same engine serves');
  } finally {
    try {
      process.kill(pid, 'SIGCONT');
    } catch {
      // already gone
    }
    await s.close();
  }
});

crash('LMFORGE_NATIVE_BACKTRACE=1 keeps ggml\'s backtrace on abort; otherwise the engine child gets GGML_NO_BACKTRACE', () => {
  assert.is(engineChildEnv({ PATH: '/bin' }).GGML_NO_BACKTRACE, '1');
  assert.is(engineChildEnv({ PATH: '/bin' }).PATH, '/bin');
  assert.is(engineChildEnv({ LMFORGE_NATIVE_BACKTRACE: '1' }).GGML_NO_BACKTRACE, undefined);
});

crash('SIGKILL of the engine process (as an out-of-memory kill): the same, /metrics counts both choices as ended in error, and its engine counters carry on from the dead engine\'s', async () => {
  const { s, log } = await serverWithFault(undefined);
  try {
    const enginePid = s.engine.pid!;
    await s.client.chat.completions.create({ ...request, max_tokens: 5 });
    const stepsBefore = await engineSteps(s);
    assert.ok(stepsBefore >= 5, `the first engine counted its steps (${stepsBefore})`);
    const errorsBefore = await choicesEndedInError(s);
    let chunks = 0;
    let killed = false;
    const streamed = outcome(
      streamToEnd(s, () => {
        // Killed once the stream is under way, with a whole request running beside it.
        if (++chunks === 5 && !killed) {
          killed = true;
          process.kill(enginePid, 'SIGKILL');
        }
      }),
    );
    const whole = outcome(s.client.chat.completions.create(request));
    const results = await Promise.all([streamed, whole]);
    const firstHealth = await healthStatus(s);
    assert.ok(killed, 'the stream was under way when the engine was killed');
    assert.equal(results, [
      { status: undefined, code: 'engine_failed' },
      { status: 503, code: 'engine_failed' },
    ]);
    // The whole request's 503 was not counted.
    assert.is((await choicesEndedInError(s)) - errorsBefore, 2, 'both choices counted as ended in error');
    await assertRecovers(s, firstHealth);
    // The new engine's 5-token request took at least 5 steps of its own, counted on top.
    const stepsAfter = await engineSteps(s);
    assert.ok(stepsAfter >= stepsBefore + 5, `engine steps went on from ${stepsBefore} (the dead engine's, as last read) to ${stepsAfter}`);
    assert.match(log.join('\n'), new RegExp(`engine failed: the engine process \\(pid ${enginePid}\\) was killed by SIGKILL`));
  } finally {
    await s.close();
  }
});

/** The pids of this process's children now (but ps itself). */
function childPids(): number[] {
  const out = execFileSync('ps', ['--ppid', String(process.pid), '-o', 'pid=,comm='], { encoding: 'utf8' });
  return out.split('\n').map((line) => line.trim().split(/\s+/)).filter(([pid, command]) => Number(pid) > 0 && command !== 'ps').map(([pid]) => Number(pid));
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

crash('a server closed while another engine is still starting after a failure leaves no engine process behind', async () => {
  const { s } = await serverWithFault(undefined);
  const before = new Set(childPids());
  let starting: number | undefined;
  try {
    // The engine started after the failure blocks in its start-up probe, as a long model load does.
    process.env.LMFORGE_TEST_ENGINE_FAULT = 'hang-in-probe';
    process.kill(s.engine.pid!, 'SIGKILL');
    for (const deadline = Date.now() + 20_000; starting === undefined && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      starting = childPids().find((pid) => !before.has(pid));
    }
    assert.type(starting, 'number', 'another engine process started');
    assert.equal(await healthStatus(s), { status: 503, body: { status: 'engine_restarting' } });
  } finally {
    delete process.env.LMFORGE_TEST_ENGINE_FAULT;
    await s.close();
  }
  assert.not.ok(isRunning(starting!), `the starting engine (pid ${starting}) was ended with the server, not left behind`);
});

crash.run();

const probe = suite('engine start-up probe');

/** The error Engine.create fails with when the engine's process meets `fault` while starting. */
async function startFailure(fault: string): Promise<EngineStartError> {
  process.env.LMFORGE_TEST_ENGINE_FAULT = fault;
  try {
    await Engine.create({ modelPath: tinyModelPath, device: 'cpu', mode: 'local', overrides: { context_window_size: 256 }, threads: 1 });
  } catch (error) {
    assert.instance(error, EngineStartError);
    return error as EngineStartError;
  } finally {
    delete process.env.LMFORGE_TEST_ENGINE_FAULT;
  }
  throw new assert.Assertion({ message: 'the engine should not start', operator: 'throws', expects: 'an EngineStartError', actual: 'an engine' });
}

probe('an engine that dies in the probe fails to start with one line: device, library, cause, fix', async () => {
  const error = await startFailure('abort-in-probe');
  assert.not.match(error.message, /\n/, 'one line');
  assert.match(error.message, /^start-up probe failed on cpu:0 \(.+\) with .+libllama.+: the engine process \(pid \d+\) was killed by SIGABRT/);
  assert.match(error.message, /; give a llama\.cpp build made for this CPU with --model-lib$/);
  assert.ok(error.userFacing);
});

probe('an engine killed from outside in the probe says so, and blames no library', async () => {
  const error = await startFailure('kill-in-probe');
  assert.match(error.message, /^the engine ended while starting: the engine process \(pid \d+\) was killed by SIGKILL/);
  assert.match(error.message, /\(from outside this server: the out-of-memory killer, or a user\)$/);
  assert.not.match(error.message, /--model-lib/);
});

probe.run();

const thread = suite('engine in a worker thread (isolation: thread)');

thread('runs requests in the calling process', async () => {
  const engine = await Engine.create({ modelPath: tinyModelPath, device: 'cpu', mode: 'local', overrides: { context_window_size: 256 }, threads: 1, isolation: 'thread' });
  try {
    assert.is(engine.pid, undefined);
    const { choices } = await runToEnd(engine, { prompt: [464, 2068], maxTokens: 4, ignoreEos: true, sampling: { temperature: 0 } });
    assert.is(choices[0]!.tokens.length, 4);
  } finally {
    await engine.dispose();
  }
});

thread.run();
