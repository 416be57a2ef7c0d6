// Starts a TypeScript worker when lmforge runs from source: tsx's loader is registered in
// this thread first (loaders given to the parent do not reach workers on Node 20).
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.tsEntry);
