// Seeded English-like text for prompt-reuse benchmarks: real words, in sentences with
// capitals and full stops, so a server's tokenizer sees the token counts real prose gives
// (about 1.1 tokens a word with SmolLM2's tokenizer), unlike cli/serve-bench/prompts.ts's one-token words. Each stream
// (a conversation, a user) has its own seed stream, so no two share text by accident and both
// servers get exactly the same prompts.
import { SeededRng } from '../../runtime/sampling/seeded-rng.js';

const WORDS = (
  'river mountain garden window market village teacher doctor engine bridge harbour library ' +
  'kitchen forest winter summer morning evening letter journey station meadow castle island ' +
  'painter student farmer captain merchant soldier neighbour stranger company council museum ' +
  'question answer reason problem method result history science language picture number ' +
  'weather season journal report lesson account machine planet ocean valley desert shelter ' +
  'carry follow remember explain describe consider measure prepare deliver discover imagine ' +
  'gather improve return arrive travel wonder listen borrow repair collect compare finish ' +
  'quiet careful bright ancient modern narrow gentle heavy simple strange useful patient ' +
  'curious distant honest private public sudden steady golden silver wooden crowded empty ' +
  'the a an of and to in on with for from by about after before under over through between ' +
  'during without against among toward is was are were has had will would could should may ' +
  'might must can this that these those every each some many few several other another ' +
  'slowly quickly often rarely always never almost perhaps together instead again already ' +
  'people children family friend water paper money music story city country world school ' +
  'house road light sound voice field table chair door wall floor stone glass bread coffee ' +
  'afternoon yesterday tomorrow because although while since unless whether however therefore'
).split(' ');

/** Words with sentence breaks, from one seeded stream. */
export class WordText {
  private readonly rng: SeededRng;

  /** `stream` separates the texts of one seed: conversation 3's text differs from user 3's when streams differ. */
  constructor(seed: number, stream: number) {
    this.rng = new SeededRng(seed, stream);
  }

  /** About `count` words (exactly `count` word tokens), in sentences of 6–17 words. */
  words(count: number): string {
    const out: string[] = [];
    let left = 0;
    for (let i = 0; i < count; i++) {
      if (left === 0) left = 6 + this.pick(12);
      let word = WORDS[this.pick(WORDS.length)]!;
      if (out.length === 0 || out[out.length - 1]!.endsWith('.')) word = word[0]!.toUpperCase() + word.slice(1);
      left--;
      out.push(left === 0 || i === count - 1 ? `${word}.` : word);
    }
    return out.join(' ');
  }

  /** A question of about `count` words, ending with a question mark. */
  question(count: number): string {
    return `${this.words(count).replace(/\.$/, '')}?`;
  }

  private pick(n: number): number {
    return Math.floor(this.rng.nextFloat() * n);
  }
}
