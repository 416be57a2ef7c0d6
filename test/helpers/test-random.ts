// A small seeded generator for test inputs (mulberry32): reproducible walks and samples,
// independent of the runtime's own seeded RNG.
export function testRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Seeded token ids of the GPT-2 vocabulary, from 1000 to 30999 (plain words, no control tokens). */
export function gpt2WordTokens(seed: number, length: number): number[] {
  const random = testRandom(seed);
  return Array.from({ length }, () => 1000 + Math.floor(random() * 30000));
}

/** A prompt that repeats itself (a phrase of `period` GPT-2 words, `repeats` times), so that prompt lookup finds continuations. */
export function repetitivePrompt(seed: number, period: number, repeats: number): number[] {
  const phrase = gpt2WordTokens(seed, period);
  return Array.from({ length: period * repeats }, (_, i) => phrase[i % period]!);
}
