// Prompts of about `inputLen` tokens without a tokenizer on the client side: words drawn from
// a fixed list of short, common English words, each of which is a single token (with its
// leading space) in the BPE vocabularies of current models (GPT-2, Llama 3, Qwen, SmolLM).
// So the user message is ≈ inputLen tokens; the chat template then adds its own tokens (role
// markers, a default system prompt), which is why the report also gives the server's own
// prompt-token count from `usage`. Each prompt is a different seeded draw, so a server's
// prefix cache cannot turn the benchmark into cache hits.
import { SeededRng } from '../../runtime/sampling/seeded-rng.js';

const WORDS = (
  'the of and to in is was for on that with as it by at from his her he she they we you this ' +
  'are be have had not but or an which one all were their there been has more when will would ' +
  'who so if out up about into than them can only other new some time could these two may first ' +
  'then do any like my now over such our man me even most made after also did many before must ' +
  'through back years where much your way well down should because each just those people how too ' +
  'little state good very make world still own see men work long get here between both life being ' +
  'under never day same another know while last might us great old year off come since against go ' +
  'came right used take three'
).split(' ');

/** `count` prompts of `inputLen` words each; the same seed gives the same prompts. */
export function makePrompts(count: number, inputLen: number, seed: number): string[] {
  const rng = new SeededRng(seed, 1);
  const prompts: string[] = [];
  for (let i = 0; i < count; i++) {
    const words: string[] = [];
    for (let w = 0; w < inputLen; w++) words.push(WORDS[Math.floor(rng.nextFloat() * WORDS.length)]!);
    prompts.push(words.join(' '));
  }
  return prompts;
}
