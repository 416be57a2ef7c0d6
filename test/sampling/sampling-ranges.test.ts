// The engine checks a library caller's sampling fields against SAMPLING_RANGES; the server checks
// a request's against its JSON schema first. The two must agree, or the engine would refuse (or
// let through) what the HTTP API documents.
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

test("every engine range is the HTTP field's, bound for bound", () => {
  const properties = { ...(chatCompletionRequestSchema as unknown as { properties: Record<string, Property> }).properties, ...(samplingFieldProperties as unknown as Record<string, Property>) };
  for (const [name, range] of Object.entries(SAMPLING_RANGES) as [keyof typeof SAMPLING_RANGES, SamplingRange][]) {
    const field = properties[HTTP_NAMES[name]];
    assert.ok(field, `${HTTP_NAMES[name]} is a request field`);
    const integer = [field.type].flat().includes('integer');
    const fromSchema: SamplingRange = {
      min: field.exclusiveMinimum ?? field.minimum!,
      max: field.maximum!,
      ...(field.exclusiveMinimum !== undefined ? { exclusiveMin: true } : {}),
      ...(integer ? { integer: true } : {}),
    };
    assert.equal(range, fromSchema, name);
  }
});

test('each bound is checked where it lies: in at the edge, out just past it', () => {
  for (const [name, range] of Object.entries(SAMPLING_RANGES) as [keyof typeof SAMPLING_RANGES, SamplingRange][]) {
    const step = range.integer ? 1 : 1e-9;
    assert.is(samplingParamProblem({ [name]: range.max }), undefined, `${name} = max`);
    assert.is(samplingParamProblem({ [name]: range.max + step })?.param, name, `${name} past max`);
    assert.is(samplingParamProblem({ [name]: range.min })?.param, range.exclusiveMin ? name : undefined, `${name} = min`);
    assert.is(samplingParamProblem({ [name]: range.min - step })?.param, name, `${name} below min`);
    if (range.integer) assert.is(samplingParamProblem({ [name]: range.min + 0.5 })?.param, name, `${name} not whole`);
    assert.is(samplingParamProblem({ [name]: Number.NaN })?.param, name, `${name} NaN`);
  }
});

test.run();
