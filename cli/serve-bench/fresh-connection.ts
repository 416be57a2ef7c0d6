// A connection pool of its own, for sending a request again after the server closed its
// connection before answering: the shared pool may hold more kept-alive connections that the
// server has closed (llama-server closes idle ones), and the retry must not draw one of them.
// Node's fetch is undici's, whose Agent class Node does not export: the global dispatcher,
// set up by any earlier fetch, is one, so its class makes a new, empty pool.
import type { Dispatcher } from 'undici-types';

const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1');

/** A new pool with no connections yet (close it when done), or undefined where Node's fetch has none to copy. */
export function freshConnectionPool(): Dispatcher | undefined {
  const shared = (globalThis as Record<symbol, unknown>)[GLOBAL_DISPATCHER] as { constructor: new () => Dispatcher } | undefined;
  return shared ? new shared.constructor() : undefined;
}
