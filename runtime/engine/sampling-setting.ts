// Where tokens are chosen, a setting both engine threads and the CLI know: in the model's graph
// (engine/worker/device-sampling.ts) or from logits rows on the host (sampling/token-sampler.ts).
/** Where a request's tokens are chosen: `auto` resolves to one of the other two at start-up. */
export type SamplingSetting = 'auto' | 'device' | 'host';
export const SAMPLING_SETTINGS: readonly SamplingSetting[] = ['auto', 'device', 'host'];

/**
 * What `auto` means, and whether a setting can run. `auto` is the host path everywhere for now:
 * the device path was measured slower on a CPU and on an H100 (README, "Where tokens are
 * chosen"), mostly because each arriving request's chain makes llama.cpp re-plan its graph. It
 * also cannot verify drafts (llama.cpp samples one output per sequence and decode).
 */
export function resolveSampling(setting: SamplingSetting, options: { gpu: boolean; speculative: boolean }): 'device' | 'host' {
  if (setting === 'device' && options.speculative) {
    throw new RangeError('--sampling device cannot verify speculative drafts (llama.cpp samples one token per sequence and decode in the graph): use --sampling host or auto, or --speculative-mode disable');
  }
  if (setting !== 'auto') return setting;
  return 'host';
}
