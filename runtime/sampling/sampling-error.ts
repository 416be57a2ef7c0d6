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

/**
 * Throws unless `token` is among those `allowed` allows (a bitmask, bit t % 32 of word t / 32;
 * undefined allows every token): for a token chosen elsewhere (in the model's graph), which a
 * mask that allowed nothing leaves undefined. A mask over `vocabSize` tokens that allows none is
 * the request's fault, as on the host; another token outside it, whoever chose it.
 */
export function checkAllowed(allowed: Uint32Array | undefined, token: number, vocabSize: number): void {
  if (allowed === undefined || (token >= 0 && token < vocabSize && (allowed[token >>> 5]! & (1 << (token & 31))) !== 0)) return;
  const words = Math.ceil(vocabSize / 32);
  const tail = vocabSize % 32 === 0 ? 0xffffffff : (1 << (vocabSize % 32)) - 1;
  let none = true;
  for (let w = 0; w < words && none; w++) none = (allowed[w]! & (w === words - 1 ? tail : 0xffffffff)) === 0;
  if (none) throw new SamplingError(NO_TOKEN_ALLOWED, { status: 400 });
  throw new SamplingError(`token ${token} was chosen, but its mask does not allow it`);
}
