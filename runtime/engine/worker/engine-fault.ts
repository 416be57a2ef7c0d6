// TEST ONLY. LMFORGE_TEST_ENGINE_FAULT makes the engine's child process fail on cue, so tests
// can check that the server outlives it; only engine-process.ts reads it (in a worker thread
// an abort would take the server down, which is what the child process prevents). The abort
// goes through ggml's own ggml_abort, the path a failed GGML_ASSERT or CUDA error takes.
//   abort-after:N   abort once the engine has sent N generated tokens (all requests)
//   abort-in-probe  abort in the start-up probe, as a backend that cannot run would
//   kill-in-probe   SIGKILL itself in the probe, as the out-of-memory killer would
//   hang-after:N    block for ever once the engine has sent N generated tokens, as a native call that hangs would
//   hang-in-probe   block for ever in the start-up probe, as a model that takes long to load does
import { ggmlApiFor } from '../../backend/ggml-api.js';
import { loadedLlamaLibrary } from '../../backend/library.js';

export interface EngineFault {
  abortAfterTokens?: number;
  abortInProbe: boolean;
  killInProbe?: boolean;
  hangInProbe?: boolean;
  hangAfterTokens?: number;
}

export function engineFault(value = process.env.LMFORGE_TEST_ENGINE_FAULT): EngineFault {
  if (!value) return { abortInProbe: false };
  if (value === 'abort-in-probe') return { abortInProbe: true };
  if (value === 'kill-in-probe') return { abortInProbe: false, killInProbe: true };
  if (value === 'hang-in-probe') return { abortInProbe: false, hangInProbe: true };
  const after = /^abort-after:(\d+)$/.exec(value);
  if (after) return { abortAfterTokens: Number(after[1]), abortInProbe: false };
  const hang = /^hang-after:(\d+)$/.exec(value);
  if (hang) return { hangAfterTokens: Number(hang[1]), abortInProbe: false };
  throw new Error(`LMFORGE_TEST_ENGINE_FAULT=${value}: expected abort-after:N, hang-after:N, abort-in-probe, kill-in-probe or hang-in-probe`);
}

/** Blocks this thread for ever, as a native call that never returns does: no event, no heartbeat. */
export function hangInBackend(): never {
  for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
}

/** Aborts the process as the backend does: ggml_abort's message on stderr, then SIGABRT. */
export function abortInBackend(why: string): never {
  const library = loadedLlamaLibrary();
  if (!library) process.abort();
  // `why` holds no '%': the message is ggml_abort's format string.
  return ggmlApiFor(library.path).ggml_abort('engine-fault.ts', 1, `lmforge test fault: ${why}`);
}
