// The one error the sampler raises at decode time. The engine catches it and finishes the
// affected sequence with an error instead of taking down the whole batch.
import { LmforgeError } from '../../compiler/lmforge-error.js';

export class SamplingError extends LmforgeError {
  override readonly name = 'SamplingError';
}

/**
 * A mask that allows no token: only what the request sends can make one (its output format,
 * logit_bias, allowed_token_ids, bad_words), so it is the request's fault (status 400).
 */
export const NO_TOKEN_ALLOWED = 'no token is allowed: the output format, logit_bias, allowed_token_ids and bad_words together exclude the whole vocabulary';
