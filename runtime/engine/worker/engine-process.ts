// The engine in a child process of the server (the default, engine.ts forks it): a backend
// abort, a segfault in native code or an out-of-memory kill ends this process only, and the
// server answers for it and starts another. Messages cross as IPC with the 'advanced'
// serialization, so typed arrays (grammar artifacts, token masks' inputs) keep their type.
import { processChannel } from '../../../compiler/workers/message-channel.js';
import type { EngineChannel } from './engine-channel.js';
import { abortInBackend, engineFault, hangInBackend } from './engine-fault.js';
import { serveEngine } from './engine-loop.js';
import type { FromWorker } from '../protocol.js';

if (!process.send) throw new Error('engine-process.ts runs only as a child process with an IPC channel (child_process.fork)');
const server: EngineChannel = processChannel(process);
// The server is gone: nobody can read this engine's answers, so it ends rather than lingers.
process.on('disconnect', () => process.exit(0));

const fault = engineFault();
let sentTokens = 0;

/** The test-only switch: abort, or hang, once N generated tokens have been sent. */
function countTowardsFault(message: FromWorker): void {
  if (message.type !== 'events') return;
  for (const event of message.events) if (event.type === 'delta') sentTokens += event.tokens.length;
  if (fault.abortAfterTokens !== undefined && sentTokens >= fault.abortAfterTokens) abortInBackend(`abort after ${sentTokens} generated tokens`);
  if (fault.hangAfterTokens !== undefined && sentTokens >= fault.hangAfterTokens) hangInBackend();
}

/** What the test-only switch does before the start-up probe, if anything. */
function probeFault(): (() => void) | undefined {
  if (fault.abortInProbe) return () => abortInBackend('abort in the start-up probe');
  if (fault.killInProbe) return () => process.kill(process.pid, 'SIGKILL');
  if (fault.hangInProbe) return hangInBackend;
  return undefined;
}

serveEngine(
  {
    post(message) {
      server.post(message);
      if (fault.abortAfterTokens !== undefined || fault.hangAfterTokens !== undefined) countTowardsFault(message);
    },
    on: server.on,
    // The server ends this process when 'closed' reaches it, as it ends a worker thread.
    close: () => undefined,
  },
  { beforeProbe: probeFault() },
);
