// The one error the sampler raises at decode time. The engine catches it and finishes the
// affected sequence with an error instead of taking down the whole batch.

export class SamplingError extends Error {
  override readonly name = 'SamplingError';
}
