// The one error the sampler raises at decode time. The engine catches it and finishes the
// affected sequence with an error instead of taking down the whole batch.
import { LmforgeError } from '../../compiler/lmforge-error.js';

export class SamplingError extends LmforgeError {
  override readonly name = 'SamplingError';
}
