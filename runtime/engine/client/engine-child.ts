// The engine's child process, seen from the server: forked with an IPC channel, its stderr
// passed through to ours and its last lines kept, so that when it dies the log can say what
// the backend said last (ggml_abort's message, a CUDA error) beside the signal or exit code.
import { fork } from 'node:child_process';
import type { EngineTransport } from './engine-transport.js';
import type { FromWorker, ToWorker } from '../protocol.js';
import { processChannel } from '../../../compiler/workers/message-channel.js';
import { processEntry } from '../../../compiler/workers/worker-entry.js';

/** Lines of the child's stderr kept for the report of its end. */
const KEPT_LINES = 12;

export function forkEngine(): EngineTransport {
  const entry = processEntry('../worker/engine-process', import.meta.url);
  const child = fork(entry.script, entry.args, {
    // 'advanced' (the structured clone) keeps typed arrays typed, as a worker's messages do.
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
    execArgv: [],
    env: engineChildEnv(process.env),
  });
  const tail = new LineTail(KEPT_LINES);
  child.stderr!.on('data', (chunk: Buffer) => {
    process.stderr.write(chunk);
    tail.add(chunk.toString('utf8'));
  });
  // A send to a child that has just died fails here; its 'close' reports the death.
  child.on('error', () => undefined);
  const engine = processChannel<FromWorker, ToWorker>(child);
  return {
    send: (message) => engine.post(message),
    onMessage: engine.on,
    // 'close', not 'exit': by then stderr is read to its end.
    onEnd: (handler) =>
      child.once('close', (code, signal) =>
        handler({ cause: signal ? `the engine process (pid ${child.pid}) was killed by ${signal}` : `the engine process (pid ${child.pid}) exited with code ${code}`, lastLines: tail.lines(), ...(signal ? { signal } : {}) }),
      ),
    terminate: () => void child.kill('SIGKILL'),
    pid: child.pid,
  };
}

/**
 * The child's environment: the server's, with ggml's backtrace on abort turned off. Where gdb
 * is installed, ggml_abort attaches it to the dying process to print a backtrace first (about 3 s
 * for the tiny engine on 2 cores, bench/engine-abort.ts; longer for a process holding a GPU), and all that time
 * the engine holds every request and /health still says ok. The abort's own message stays.
 * LMFORGE_NATIVE_BACKTRACE=1 keeps the backtrace, for debugging the backend.
 */
export function engineChildEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (env.LMFORGE_NATIVE_BACKTRACE === '1') return env;
  return { ...env, GGML_NO_BACKTRACE: '1' };
}

/** The last `size` complete or partial lines of a text stream. */
class LineTail {
  private kept: string[] = [''];
  constructor(private readonly size: number) {}

  add(text: string): void {
    const parts = text.split('\n');
    this.kept[this.kept.length - 1] += parts[0]!;
    this.kept.push(...parts.slice(1));
    if (this.kept.length > this.size + 1) this.kept.splice(0, this.kept.length - this.size - 1);
  }

  lines(): string[] {
    return this.kept.map((line) => line.trimEnd()).filter((line) => line.length > 0).slice(-this.size);
  }
}
