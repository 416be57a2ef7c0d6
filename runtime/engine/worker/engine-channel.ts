// How the engine's side talks to the server's: messages out, messages in, and an end. A worker
// thread's port and a child process's IPC both fit (engine-worker.ts, engine-process.ts).
import type { FromWorker, ToWorker } from '../protocol.js';

export interface EngineChannel {
  post(message: FromWorker): void;
  onMessage(handler: (message: ToWorker) => void): void;
  /** After the last message: the thread or process may end. */
  close(): void;
}
