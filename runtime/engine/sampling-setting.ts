// Where tokens are chosen, a setting both engine threads and the CLI know: in the model's graph
// (engine/worker/device-sampling.ts) or from logits rows on the host (sampling/token-sampler.ts).
/** Where a request's tokens are chosen: `auto` resolves to one of the other two at start-up. */
export type SamplingSetting = 'auto' | 'device' | 'host';
export const SAMPLING_SETTINGS: readonly SamplingSetting[] = ['auto', 'device', 'host'];

/**
 * What `auto` means, and whether a setting can run: the device path on a GPU (a logits row per
 * sequence and step stays on the card), the host path on a CPU (see the README's measurement)
 * and whenever drafts are verified (llama.cpp samples one output per sequence and decode).
 */
export function resolveSampling(setting: SamplingSetting, options: { gpu: boolean; speculative: boolean }): 'device' | 'host' {
  if (setting === 'device' && options.speculative) {
    throw new RangeError('--sampling device cannot verify speculative drafts (llama.cpp samples one token per sequence and decode in the graph): use --sampling host or auto, or --speculative-mode disable');
  }
  if (setting !== 'auto') return setting;
  return options.gpu && !options.speculative ? 'device' : 'host';
}
