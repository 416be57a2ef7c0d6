// Decode throughput through the real engine (worker thread, scheduler, greedy sampler,
// detokenizer, events). `width` identical requests start together; the window opens once
// every one of them has its first token (so the prefills are outside it) and closes when the
// last one finishes. Tokens counted are those generated in steps after the one that opened
// the window: the total minus what had arrived by the end of that step's burst of events.
import { performance } from 'node:perf_hooks';
import type { Engine } from '../../runtime/engine/client/engine.js';
import type { GenerateRequest } from '../../runtime/engine/protocol.js';
import type { DecodeRun } from './bare-decode.js';

/** `sampling` (default greedy), `seed` (each sequence gets seed + its index) and `fields` (more of the request's fields) shape every request. */
export async function engineDecode(
  engine: Engine,
  prompt: GenerateRequest['prompt'],
  width: number,
  maxTokens: number,
  sampling: GenerateRequest['sampling'] = { temperature: 0 },
  seed?: number,
  fields: Partial<GenerateRequest> = {},
): Promise<DecodeRun> {
  const received = new Array<number>(width).fill(0);
  let started = 0;
  let windowStart = 0;
  let tokensBefore = -1;
  let end = 0;
  const run = async (i: number) => {
    for await (const event of engine.generate({ ...fields, prompt, maxTokens, ignoreEos: true, sampling, ...(seed !== undefined ? { seed: seed + i } : {}) })) {
      if (event.type !== 'delta' || event.tokens.length === 0) continue;
      if (received[i] === 0 && ++started === width) {
        windowStart = performance.now();
        // One step's events are handled in one turn of the event loop; setImmediate runs after
        // that turn, so the snapshot holds that step's tokens and none of the next step's.
        setImmediate(() => (tokensBefore = received.reduce((a, b) => a + b, 0)));
      }
      received[i]! += event.tokens.length;
    }
    end = Math.max(end, performance.now());
  };
  await Promise.all(Array.from({ length: width }, (_, i) => run(i)));
  const total = received.reduce((a, b) => a + b, 0);
  if (total !== width * maxTokens) throw new Error(`the engine generated ${total} tokens, expected ${width * maxTokens}`);
  if (tokensBefore < 0) throw new Error('the window never opened');
  return { tokens: total - tokensBefore, seconds: (end - windowStart) / 1000 };
}
