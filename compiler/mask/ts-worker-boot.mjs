// Starts the TypeScript mask worker when lmforge runs from source: tsx's loader is registered
// in the worker's own thread first (a parent's loaders do not reach workers on Node 20).
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.tsEntry);
