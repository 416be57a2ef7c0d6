// The engine in a worker thread of the server's process.
import { parentPort } from 'node:worker_threads';
import { serveEngine } from './engine-loop.js';

const port = parentPort;
if (!port) throw new Error('engine-worker.ts runs only as a worker thread');
serveEngine({
  post: (message) => port.postMessage(message),
  onMessage: (handler) => port.on('message', handler),
  close: () => port.close(),
});
