// The far end of test/compiler/workers/message-channel.test.ts, as a worker thread or a child process: answers each
// ping with the next number and the bytes it got (reporting whether they arrived typed), and
// closes its end on 'bye'.
import { parentPort } from 'node:worker_threads';
import { processChannel, threadChannel } from '../../compiler/workers/message-channel.js';

export type Ping = { type: 'ping'; n: number; bytes: Uint8Array } | { type: 'bye' };
export interface Pong {
  type: 'pong';
  n: number;
  bytes: Uint8Array;
  typed: boolean;
}

const parent = parentPort ? threadChannel<Ping, Pong>(parentPort) : processChannel<Ping, Pong>(process);
parent.on((message) => {
  if (message.type === 'bye') return parent.close();
  parent.post({ type: 'pong', n: message.n + 1, bytes: message.bytes, typed: message.bytes instanceof Uint8Array }, [message.bytes.buffer as ArrayBuffer]);
});
