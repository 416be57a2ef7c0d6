// TEST ONLY. LMFORGE_TEST_ENGINE_FAULT makes the engine's child process fail on cue, so tests
// can check that the server outlives it; only engine-process.ts reads it (in a worker thread
// an abort would take the server down, which is what the child process prevents).
//   abort-after:N   process.abort() once the engine has sent N generated tokens (all requests)
//   abort-in-probe  process.abort() in the start-up probe, as a backend that cannot run would
export interface EngineFault {
  abortAfterTokens?: number;
  abortInProbe: boolean;
}

export function engineFault(value = process.env.LMFORGE_TEST_ENGINE_FAULT): EngineFault {
  if (!value) return { abortInProbe: false };
  if (value === 'abort-in-probe') return { abortInProbe: true };
  const after = /^abort-after:(\d+)$/.exec(value);
  if (after) return { abortAfterTokens: Number(after[1]), abortInProbe: false };
  throw new Error(`LMFORGE_TEST_ENGINE_FAULT=${value}: expected abort-after:N or abort-in-probe`);
}
