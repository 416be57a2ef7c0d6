// The one typed message channel (compiler/workers/message-channel.ts) over a real worker
// thread and a real child process: messages both ways, typed arrays kept typed, buffers moved
// to a thread, and close() ending the peer from either side.
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { processChannel, threadChannel, type Channel } from '../../../compiler/workers/message-channel.js';
import { processEntry, workerEntry } from '../../../compiler/workers/worker-entry.js';
import type { Ping, Pong } from '../../helpers/channel-echo-peer.js';

const test = suite('message-channel');

function startThread(): Worker {
  const entry = workerEntry('../../helpers/channel-echo-peer', import.meta.url);
  return new Worker(entry.url, { workerData: entry.workerData });
}

function startProcess(): ChildProcess {
  const entry = processEntry('../../helpers/channel-echo-peer', import.meta.url);
  return fork(entry.script, entry.args, { serialization: 'advanced', execArgv: [] });
}

function nextPong(peer: Channel<Pong, Ping>): Promise<Pong> {
  return new Promise((resolve) => peer.on(resolve));
}

test('a worker thread: typed messages both ways, the buffer moved, the peer ends on its close()', async () => {
  const worker = startThread();
  const peer = threadChannel<Pong, Ping>(worker);
  const bytes = Uint8Array.of(1, 2, 3);
  const answer = nextPong(peer);
  peer.post({ type: 'ping', n: 41, bytes }, [bytes.buffer]);
  assert.is(bytes.byteLength, 0, 'the buffer was moved, not copied');
  const pong = await answer;
  assert.is(pong.n, 42);
  assert.ok(pong.typed, 'a Uint8Array arrived in the worker');
  assert.ok(pong.bytes instanceof Uint8Array);
  assert.equal([...pong.bytes], [1, 2, 3]);
  const exited = once(worker, 'exit');
  peer.post({ type: 'bye' });
  assert.equal(await exited, [0], 'closing its port lets the thread end by itself');
});

test('a worker thread: close() from the parent ends it', async () => {
  const worker = startThread();
  const peer = threadChannel<Pong, Ping>(worker);
  const answer = nextPong(peer);
  peer.post({ type: 'ping', n: 0, bytes: new Uint8Array(0) });
  await answer; // up and listening: it would not end by itself
  const exited = once(worker, 'exit');
  peer.close();
  assert.equal(await exited, [1], 'terminated');
});

test('a child process: typed messages both ways over IPC, the peer ends on its close()', async () => {
  const child = startProcess();
  const peer = processChannel<Pong, Ping>(child);
  const answer = nextPong(peer);
  peer.post({ type: 'ping', n: 6, bytes: Uint8Array.of(9, 8) });
  const pong = await answer;
  assert.is(pong.n, 7);
  assert.ok(pong.typed, 'a Uint8Array arrived in the child');
  assert.ok(pong.bytes instanceof Uint8Array);
  assert.equal([...pong.bytes], [9, 8]);
  const exited = once(child, 'exit');
  peer.post({ type: 'bye' });
  assert.equal(await exited, [0, null], 'disconnecting lets the child end by itself');
});

test('a child process: close() from the parent disconnects it, and a later post is dropped', async () => {
  const child = startProcess();
  const peer = processChannel<Pong, Ping>(child);
  const answer = nextPong(peer);
  peer.post({ type: 'ping', n: 0, bytes: new Uint8Array(0) });
  await answer; // up and listening: it would not end by itself
  const exited = once(child, 'exit');
  peer.close();
  assert.not.ok(child.connected);
  peer.post({ type: 'ping', n: 1, bytes: new Uint8Array(0) }); // no throw, no 'error'
  assert.equal(await exited, [0, null]);
});

test('a process without IPC has no channel', () => {
  assert.throws(() => processChannel({ send: undefined } as unknown as NodeJS.Process), /no IPC channel/);
});

test.run();
