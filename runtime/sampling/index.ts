// Sampling for one sequence: logits processing and the seeded draw, stop strings, and
// incremental UTF-8 decoding. Pure TypeScript, nothing native; see token-sampler.ts for usage.
export { SeededRng } from './seeded-rng.js';
export { DRY_DEFAULTS, MAX_TOP_LOGPROBS, XTC_DEFAULT_THRESHOLD, defaultSamplingParams, type SamplingParams } from './sampling-params.js';
export { SamplingScratch } from './sampling-scratch.js';
export { SamplingError } from './sampling-error.js';
export { TokenSampler, type SampledToken, type TokenSamplerContext, type TopLogprob } from './token-sampler.js';
export { breakerTokens } from './dry-penalty.js';
export { StopStringMatcher, type StopPush } from './stop-string-matcher.js';
export { Utf8StreamDecoder } from './utf8-stream-decoder.js';
export { maskedArgmax, plainArgmax } from './argmax.js';
