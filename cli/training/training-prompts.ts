// Prompts for self-distillation (lmforge train-heads): the model answers them, and the heads
// learn to predict what it writes. Each prompt pairs a kind of request with a subject, so a
// few dozen lines give several hundred varied requests: explanations, lists, short stories,
// advice, comparisons, rewrites, code and JSON, the mix a chat server sees. Deterministic for a
// seed, so a training run can be repeated.

const TASKS: readonly ((subject: string) => string)[] = [
  (s) => `Explain ${s} to someone who has never heard of it.`,
  (s) => `Give me three short facts about ${s}.`,
  (s) => `Write a short story of a few sentences in which ${s} plays a part.`,
  (s) => `What are the main advantages and drawbacks of ${s}?`,
  (s) => `Describe ${s} in one paragraph.`,
  (s) => `How would you teach a child about ${s}?`,
  (s) => `List five questions people often ask about ${s}, with brief answers.`,
  (s) => `Write a haiku about ${s}.`,
  (s) => `Summarize the history of ${s} in a few sentences.`,
  (s) => `Give a step-by-step guide for getting started with ${s}.`,
  (s) => `Compare ${s} with something similar and say how they differ.`,
  (s) => `Write a friendly email inviting a colleague to a talk about ${s}.`,
  (s) => `Return a JSON object with the keys "name", "category" and "summary" describing ${s}.`,
  (s) => `What is a common misconception about ${s}?`,
  (s) => `Write a Python function related to ${s}, with a docstring.`,
  (s) => `Suggest a title and an outline for a blog post about ${s}.`,
];

const SUBJECTS: readonly string[] = [
  'photosynthesis', 'the water cycle', 'black holes', 'the printing press', 'volcanoes', 'bees', 'the moon landing',
  'compound interest', 'recycling', 'electric cars', 'the human heart', 'sourdough bread', 'chess', 'jazz music',
  'the Roman Empire', 'machine learning', 'rainforests', 'the stock market', 'sleep', 'vaccines', 'coffee',
  'public libraries', 'solar panels', 'the internet', 'origami', 'earthquakes', 'democracy', 'the piano',
  'a healthy breakfast', 'learning a new language', 'time management', 'the Pacific Ocean', 'glaciers',
  'sorting algorithms', 'bicycles', 'tea ceremonies', 'the periodic table', 'gardening on a balcony', 'penguins',
  'cloud computing', 'the Olympic Games', 'lighthouses', 'fermentation', 'rivers', 'password security',
  'the metric system', 'mountain hiking', 'the immune system', 'board games', 'renewable energy',
];

/** `count` prompts, in a seeded order that cycles through tasks and subjects evenly. */
export function trainingPrompts(count: number, seed = 1): string[] {
  const prompts: string[] = [];
  let state = seed >>> 0 || 1;
  const next = (n: number) => {
    // xorshift32: enough to shuffle the pairs reproducibly.
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state % n;
  };
  const pairs: [number, number][] = [];
  for (let t = 0; t < TASKS.length; t++) for (let s = 0; s < SUBJECTS.length; s++) pairs.push([t, s]);
  for (let i = pairs.length - 1; i > 0; i--) {
    const j = next(i + 1);
    [pairs[i], pairs[j]] = [pairs[j]!, pairs[i]!];
  }
  for (let i = 0; i < count; i++) {
    const [t, s] = pairs[i % pairs.length]!;
    prompts.push(TASKS[t]!(SUBJECTS[s]!));
  }
  return prompts;
}
