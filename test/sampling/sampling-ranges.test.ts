// The engine checks a library caller's sampling fields against SAMPLING_RANGES (what the sampler
// computes with); the server checks a request's against its JSON schema first. Every HTTP range
// must lie within the engine's, or the engine would refuse what the HTTP API documents.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chatCompletionRequestSchema } from '../../runtime/api/api-schemas.js';
import { samplingFieldProperties } from '../../runtime/api/sampling-fields.js';
import { SAMPLING_RANGES, samplingParamProblem, type SamplingRange } from '../../runtime/sampling/sampling-params.js';

type Property = { type: string | string[]; minimum?: number; exclusiveMinimum?: number; maximum?: number };

const HTTP_NAMES: Record<keyof typeof SAMPLING_RANGES, string> = {
  temperature: 'temperature',
  topP: 'top_p',
  frequencyPenalty: 'frequency_penalty',
  presencePenalty: 'presence_penalty',
  topLogprobs: 'top_logprobs',
  topK: 'top_k',
  minP: 'min_p',
  typicalP: 'typical_p',
  topNSigma: 'top_n_sigma',
  repetitionPenalty: 'repetition_penalty',
  repeatLastN: 'repeat_last_n',
  dryMultiplier: 'dry_multiplier',
  dryBase: 'dry_base',
  dryAllowedLength: 'dry_allowed_length',
  dryPenaltyLastN: 'dry_penalty_last_n',
  xtcProbability: 'xtc_probability',
  xtcThreshold: 'xtc_threshold',
};

test("every HTTP field's range lies within the engine's", () => {
  const properties = { ...(chatCompletionRequestSchema as unknown as { properties: Record<string, Property> }).properties, ...(samplingFieldProperties as unknown as Record<string, Property>) };
  for (const [name, range] of Object.entries(SAMPLING_RANGES) as [keyof typeof SAMPLING_RANGES, SamplingRange][]) {
    const field = properties[HTTP_NAMES[name]];
    assert.ok(field, `${HTTP_NAMES[name]} is a request field`);
    const min = field.exclusiveMinimum ?? field.minimum!;
    const max = field.maximum!;
    assert.ok(Number.isFinite(min) && Number.isFinite(max), `${HTTP_NAMES[name]} is bounded`);
    // Each HTTP bound, and a value just inside an exclusive one, is one the engine takes.
    const lowest = field.exclusiveMinimum !== undefined ? min + 1e-9 : min;
    for (const value of [lowest, max]) assert.is(samplingParamProblem({ [name]: value }), undefined, `${HTTP_NAMES[name]} = ${value}`);
    if (range.integer) assert.ok([field.type].flat().includes('integer'), `${HTTP_NAMES[name]} is an integer field too`);
  }
});

test('each finite bound is checked where it lies: in at the edge, out just past it; NaN and infinities out', () => {
  for (const [name, range] of Object.entries(SAMPLING_RANGES) as [keyof typeof SAMPLING_RANGES, SamplingRange][]) {
    const step = range.integer ? 1 : 1e-9;
    if (Number.isFinite(range.max)) {
      assert.is(samplingParamProblem({ [name]: range.max }), undefined, `${name} = max`);
      assert.is(samplingParamProblem({ [name]: range.max + step })?.param, name, `${name} past max`);
    }
    if (Number.isFinite(range.min)) {
      assert.is(samplingParamProblem({ [name]: range.min })?.param, range.exclusiveMin ? name : undefined, `${name} = min`);
      assert.is(samplingParamProblem({ [name]: range.min - step })?.param, name, `${name} below min`);
    }
    if (range.integer) assert.is(samplingParamProblem({ [name]: 2.5 })?.param, name, `${name} not whole`);
    for (const value of [Number.NaN, Infinity, -Infinity, '1']) assert.is(samplingParamProblem({ [name]: value as number })?.param, name, `${name} ${String(value)}`);
  }
  // Beyond the HTTP range, where the sampler still computes: a library caller's strong penalty or bias.
  assert.is(samplingParamProblem({ frequencyPenalty: 200, logitBias: new Map([[5, 2 ** 28]]) }), undefined);
  assert.is(samplingParamProblem({ logitBias: new Map([[5, Number.NaN]]) })?.param, 'logitBias');
});

test.run();
