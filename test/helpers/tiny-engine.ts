// The tiny random-weight model (GPT-2's vocabulary) in an engine as the engine suites start it:
// on the CPU, in local mode, on one thread, so that runs compare batch for batch.
import { Engine } from '../../runtime/engine/client/engine.js';
import type { Overrides } from '../../runtime/engine/engine-config.js';
import type { EngineInitOptions } from '../../runtime/engine/protocol.js';
import { tinyModelPath } from '../../fixtures/paths.js';

/**
 * Limits for comparing engines token for token: no prefix cache. A prompt taken from the cache
 * was computed in other batches than one computed whole, which moves logits by ~1e-3 here,
 * enough to flip a near tie of the random model; speculation changes batch shapes only for
 * generated tokens.
 */
export const UNCACHED_LIMITS: Overrides = { context_window_size: 1024, prefix_cache_max_num_recycling_seqs: 0 };

export function tinyEngine(options: Partial<EngineInitOptions> & { overrides: Overrides }): Promise<Engine> {
  return Engine.create({ modelPath: tinyModelPath, device: 'cpu', mode: 'local', threads: 1, ...options });
}
