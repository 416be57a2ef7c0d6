// The engine in a worker thread of the server's process.
import { parentPort } from 'node:worker_threads';
import { threadChannel } from '../../../compiler/workers/message-channel.js';
import type { EngineChannel } from './engine-channel.js';
import { serveEngine } from './engine-loop.js';

if (!parentPort) throw new Error('engine-worker.ts runs only as a worker thread');
serveEngine(threadChannel(parentPort) satisfies EngineChannel);
