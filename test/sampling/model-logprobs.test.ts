// ModelLogprobs: the model's own log-softmax at one row, as a prompt is scored, with the token's
// rank (vLLM's prompt_logprobs) and the most likely tokens, against a direct float64 reference.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ModelLogprobs } from '../../runtime/sampling/model-logprobs.js';
import { SamplingError } from '../../runtime/sampling/sampling-error.js';
import { SeededRng } from '../../runtime/sampling/seeded-rng.js';

const test = suite('model logprobs');

function reference(logits: Float32Array, token: number) {
  const values = Array.from(logits);
  const max = Math.max(...values);
  const norm = Math.log(values.reduce((sum, x) => sum + Math.exp(x - max), 0));
  const order = values.map((x, id) => ({ id, x })).sort((a, b) => b.x - a.x || a.id - b.id);
  return { logprob: values[token]! - max - norm, rank: 1 + values.filter((x) => x > values[token]!).length, order: order.map((entry) => ({ token: entry.id, logprob: entry.x - max - norm })) };
}

test('logprob, rank and top list equal a direct computation, ties included (rank counts only the likelier tokens)', () => {
  const rng = new SeededRng(7);
  const size = 1000;
  const scorer = new ModelLogprobs(size);
  for (let round = 0; round < 20; round++) {
    // Logits on a coarse grid, so that many tie.
    const logits = Float32Array.from({ length: size }, () => Math.round(rng.nextFloat() * 40) / 4 - 5);
    for (const token of [0, 17, 500, size - 1, Math.floor(rng.nextFloat() * size)]) {
      const got = scorer.at(logits, token, 5);
      const want = reference(logits, token);
      assert.ok(Math.abs(got.logprob - want.logprob) < 1e-9, `round ${round}, token ${token}`);
      assert.is(got.rank, want.rank, `round ${round}, token ${token}`);
      assert.equal(got.top.map((entry) => entry.token), want.order.slice(0, 5).map((entry) => entry.token));
      got.top.forEach((entry, i) => assert.ok(Math.abs(entry.logprob - want.order[i]!.logprob) < 1e-9));
    }
  }
  const tied = Float32Array.from([1, 3, 2, 3]);
  assert.equal([0, 1, 2, 3].map((token) => new ModelLogprobs(4).at(tied, token, 0).rank), [4, 1, 3, 1]);
});

test('a NaN logit is refused, not scored', () => {
  const logits = new Float32Array(4).fill(0);
  logits[2] = NaN;
  assert.throws(() => new ModelLogprobs(4).at(logits, 0, 1), (error: unknown) => error instanceof SamplingError);
});

test.run();
