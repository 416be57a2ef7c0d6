// The fields of a GenerateRequest the engine reads, checked for type and range before anything
// is built from them; what depends on the engine (its vocabulary, its limits) Admission checks. The server's requests pass its own schema first; a library caller's
// (Engine.generate) come here as they were written, and a bad one must fail that request alone.
import { MAX_TOP_LOGPROBS, samplingParamProblem } from '../../sampling/sampling-params.js';
import type { GenerateRequest } from '../protocol.js';

/** What is wrong with the request's fields, naming the field, or undefined. */
export function requestFieldProblem(request: GenerateRequest): { param: string; message: string } | undefined {
  if (typeof request !== 'object' || request === null) return { param: 'request', message: 'a request must be an object with a prompt' };
  const { prompt, n, maxTokens, stop, seed, sampling, prediction, promptLogprobs, promptTopLogprobs, stopTokenIds, minTokens, allowedTokenIds } = request;
  const tokenIds = (Array.isArray(prompt) || ArrayBuffer.isView(prompt)) && Array.prototype.every.call(prompt, (token: unknown) => Number.isInteger(token));
  if (typeof prompt !== 'string' && !tokenIds) return { param: 'prompt', message: 'prompt must be text or a list of token ids' };
  if (n !== undefined && !(Number.isSafeInteger(n) && n >= 1)) return { param: 'n', message: `n must be a whole number ≥ 1, got ${JSON.stringify(n)}` };
  if (maxTokens !== undefined && !(Number.isSafeInteger(maxTokens) && maxTokens >= 0)) {
    return { param: 'maxTokens', message: `maxTokens must be a whole number ≥ 0, got ${JSON.stringify(maxTokens)}` };
  }
  if (promptLogprobs !== undefined && typeof promptLogprobs !== 'boolean') return { param: 'promptLogprobs', message: `promptLogprobs must be true or false, got ${JSON.stringify(promptLogprobs)}` };
  if (promptTopLogprobs !== undefined) {
    if (promptLogprobs !== true) return { param: 'promptTopLogprobs', message: 'promptTopLogprobs needs promptLogprobs: true' };
    if (!(Number.isInteger(promptTopLogprobs) && promptTopLogprobs >= 0 && promptTopLogprobs <= MAX_TOP_LOGPROBS)) {
      return { param: 'promptTopLogprobs', message: `promptTopLogprobs must be a whole number from 0 to ${MAX_TOP_LOGPROBS}, got ${JSON.stringify(promptTopLogprobs)}` };
    }
  }
  if (stop !== undefined && !(Array.isArray(stop) && stop.every((s) => typeof s === 'string' && s.length > 0))) {
    return { param: 'stop', message: 'stop must be a list of non-empty strings' };
  }
  if (request.outputStops !== undefined && !(Array.isArray(request.outputStops) && request.outputStops.every((text) => typeof text === 'string'))) {
    return { param: 'outputStops', message: 'outputStops must be a list of strings' };
  }
  if (stopTokenIds !== undefined && !(Array.isArray(stopTokenIds) && stopTokenIds.every((token) => Number.isInteger(token)))) {
    return { param: 'stopTokenIds', message: 'stopTokenIds must be a list of token ids' };
  }
  const truncate = request.truncatePromptTokens;
  if (truncate !== undefined && !(Number.isSafeInteger(truncate) && (truncate >= 1 || truncate === -1))) {
    return { param: 'truncatePromptTokens', message: `truncatePromptTokens must be a whole number ≥ 1, or -1, got ${JSON.stringify(truncate)}` };
  }
  if (request.badWords !== undefined && !(Array.isArray(request.badWords) && request.badWords.every((word) => typeof word === 'string'))) {
    return { param: 'badWords', message: 'badWords must be a list of strings' };
  }
  if (allowedTokenIds !== undefined && !(Array.isArray(allowedTokenIds) && allowedTokenIds.length > 0 && allowedTokenIds.every((token) => Number.isInteger(token)))) {
    return { param: 'allowedTokenIds', message: 'allowedTokenIds must be a non-empty list of token ids' };
  }
  if (minTokens !== undefined && !(Number.isSafeInteger(minTokens) && minTokens >= 0)) return { param: 'minTokens', message: `minTokens must be a whole number ≥ 0, got ${JSON.stringify(minTokens)}` };
  if (prediction !== undefined && typeof prediction !== 'string') return { param: 'prediction', message: 'prediction must be text' };
  if (seed !== undefined && !Number.isSafeInteger(seed)) return { param: 'seed', message: `seed must be a safe integer, got ${JSON.stringify(seed)}` };
  return sampling === undefined ? undefined : samplingParamProblem(sampling);
}
