// Where the engine's side runs, as the server's side sees it: a child process (engine-child.ts,
// the default) or a worker thread of this process (below). Both carry protocol.ts messages.
import { Worker } from 'node:worker_threads';
import { threadChannel } from '../../../compiler/workers/message-channel.js';
import { workerEntry } from '../../../compiler/workers/worker-entry.js';
import type { FromWorker, ToWorker } from '../protocol.js';

/** How the engine's side ended: in words, and what it last wrote to stderr (a child process's). */
export interface EngineEnd {
  cause: string;
  lastLines: string[];
  /** The signal that ended the process, if one did (SIGABRT: a backend abort; SIGKILL: from outside). */
  signal?: NodeJS.Signals;
}

export interface EngineTransport {
  send(message: ToWorker): void;
  onMessage(handler: (message: FromWorker) => void): void;
  /** Called once when the engine's side has ended, whether asked to or not. */
  onEnd(handler: (end: EngineEnd) => void): void;
  /** Ends it now: after 'closed', or when it does not answer. */
  terminate(): void;
  /** The child process's id; undefined for a thread. */
  readonly pid: number | undefined;
}

export function startEngineThread(): EngineTransport {
  const entry = workerEntry('../worker/engine-worker', import.meta.url);
  const worker = new Worker(entry.url, { workerData: entry.workerData });
  const engine = threadChannel<FromWorker, ToWorker>(worker);
  let error: Error | undefined;
  worker.on('error', (thrown) => (error = thrown));
  return {
    send: (message) => engine.post(message),
    onMessage: engine.on,
    onEnd: (handler) => worker.once('exit', (code) => handler({ cause: error ? `the engine thread crashed: ${error.message}` : `the engine thread exited with code ${code}`, lastLines: [] })),
    terminate: () => void worker.terminate(),
    pid: undefined,
  };
}
