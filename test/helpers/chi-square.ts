// Pearson's chi-square of observed draws against expected probabilities, for the sampler tests
// (host stages, the token sampler, sampling in the graph). A draw of a 0-probability token fails at once.
import * as assert from 'uvu/assert';

export function chiSquare(counts: number[], probs: number[], draws: number): number {
  let x2 = 0;
  for (let i = 0; i < probs.length; i++) {
    const expected = probs[i]! * draws;
    if (expected > 0) x2 += (counts[i]! - expected) ** 2 / expected;
    else assert.is(counts[i], 0, `token ${i} has probability 0 but was drawn`);
  }
  return x2;
}
