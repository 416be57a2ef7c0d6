// How the engine's side talks to the server's: protocol.ts messages in and out over the one
// typed channel (compiler/workers/message-channel.ts). A worker thread's port and a child
// process's IPC both fit (engine-worker.ts, engine-process.ts); close() comes after the last
// message, when the thread or process may end.
import type { Channel } from '../../../compiler/workers/message-channel.js';
import type { FromWorker, ToWorker } from '../protocol.js';

export type EngineChannel = Channel<ToWorker, FromWorker>;
