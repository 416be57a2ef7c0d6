// One typed message channel for every worker protocol (the engine's, the grammar service's, the
// mask workers'), over whatever carries it: a worker thread's port (parentPort inside, the
// Worker outside) or a child process's IPC (process inside, the ChildProcess outside). Each
// protocol states its two message types once, and neither side hand-writes postMessage or
// on('message') plumbing, nor can it post the other side's messages.
import type { ChildProcess } from 'node:child_process';
import type { MessagePort, Transferable, Worker } from 'node:worker_threads';

/** Messages `In` arrive, messages `Out` leave. */
export interface Channel<In, Out> {
  /** `transfer`: buffers moved instead of copied (a thread's port only; IPC copies). */
  post(message: Out, transfer?: readonly Transferable[]): void;
  on(handler: (message: In) => void): void;
  /** A port closes; a Worker is terminated; an IPC channel is disconnected. */
  close(): void;
}

export function threadChannel<In, Out>(port: MessagePort | Worker): Channel<In, Out> {
  return {
    post: (message, transfer) => port.postMessage(message, transfer as Transferable[] | undefined),
    on: (handler) => void port.on('message', handler),
    close: () => ('terminate' in port ? void port.terminate() : port.close()),
  };
}

/** A child process's IPC, from either end; fork it with serialization 'advanced' so typed arrays stay typed. */
export function processChannel<In, Out>(end: NodeJS.Process | ChildProcess): Channel<In, Out> {
  const send = end.send?.bind(end);
  if (!send) throw new Error('this process has no IPC channel (start it with child_process.fork)');
  const ipc = end as NodeJS.EventEmitter;
  return {
    // A send on a channel already closed (the other end just died) is dropped: its end is
    // reported by the process's own events, not by a throw here.
    post: (message) => {
      if (end.connected) send(message as Parameters<typeof send>[0]);
    },
    on: (handler) => void ipc.on('message', handler),
    close: () => {
      if (end.connected) end.disconnect?.();
    },
  };
}
