// checkAllowed: a token chosen elsewhere (in the model's graph) is committed only when its mask
// allows it; a mask that allows nothing is the request's fault (400), another token outside it
// a fault of whoever chose it. Bits past the vocabulary (a grammar's wider mask) count for nothing.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkAllowed, NO_TOKEN_ALLOWED, SamplingError } from '../../runtime/sampling/sampling-error.js';

function maskOf(vocabSize: number, tokens: number[], words = Math.ceil(vocabSize / 32)): Uint32Array {
  const mask = new Uint32Array(words);
  for (const token of tokens) mask[token >>> 5]! |= 1 << (token & 31);
  return mask;
}

function errorOf(run: () => void): SamplingError | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    assert.instance(error, SamplingError);
    return error as SamplingError;
  }
}

test('a token its mask allows passes, and every token without a mask', () => {
  for (const token of [0, 31, 32, 63, 99]) checkAllowed(maskOf(100, [token]), token, 100);
  checkAllowed(undefined, 5, 100);
});

test('a mask that allows nothing in the vocabulary is the request\'s fault, bits past it (a grammar\'s wider mask) included', () => {
  for (const [mask, vocabSize] of [[maskOf(100, []), 100], [maskOf(100, [100, 120], 4), 100], [maskOf(95, [95], 3), 95]] as const) {
    const error = errorOf(() => checkAllowed(mask, 7, vocabSize));
    assert.is(error?.message, NO_TOKEN_ALLOWED);
    assert.is(error?.status, 400);
  }
});

test('another token outside a mask that allows some is the chooser\'s fault, not the request\'s', () => {
  for (const [token, vocabSize] of [[3, 100], [-1, 100], [100, 100], [31, 31]] as const) {
    const error = errorOf(() => checkAllowed(maskOf(vocabSize, [0, 30]), token, vocabSize));
    assert.ok(error, `token ${token}`);
    assert.is.not(error!.message, NO_TOKEN_ALLOWED);
    assert.is.not(error!.status, 400);
  }
});

test.run();
