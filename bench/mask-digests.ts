// Digests of every mask a matcher may ask for (each scan state's accepted, rejected and
// uncertain tokens, store and flag) for the built-in JSON grammar, every schema of the corpus
// (fixtures/schemas) and the token-mask benchmark's grammars, on the Llama 3, Qwen 3 and
// Gemma 3 vocabularies. A change meant to make the mask compiler faster keeps them equal:
//
//   npx tsx bench/mask-digests.ts > before.txt   # on the old code
//   npx tsx bench/mask-digests.ts > after.txt && diff before.txt after.txt
//   npx tsx bench/mask-digests.ts --vocab gemma3  # one vocabulary
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { Grammar, GrammarCompiler } from '../compiler/index.js';
import { tokenizerInfoFromTokenizerJSONFile } from '../compiler/node.js';
import { GRAMMARS, tokenizerJsonPath, VOCABS } from '../fixtures/grammar-inputs.js';

const args = process.argv.slice(2);
const onlyVocab = args.includes('--vocab') ? args[args.indexOf('--vocab') + 1] : undefined;

const dir = new URL('../fixtures/schemas/', import.meta.url);
const grammars: { name: string; make: () => Grammar }[] = [
  { name: 'builtin-json', make: () => Grammar.builtinJSON() },
  ...readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const schema = JSON.parse(readFileSync(new URL(f, dir), 'utf8')) as unknown;
      return { name: f.replace(/\.json$/, ''), make: () => Grammar.fromJSONSchema(schema) };
    }),
  ...GRAMMARS.filter((g) => g.kind === 'json_schema').map((g) => ({ name: `bench-${g.name}`, make: () => Grammar.fromJSONSchema(g.schema) })),
];

const whole = createHash('sha256');
for (const v of VOCABS) {
  if (onlyVocab && v.name !== onlyVocab) continue;
  const info = tokenizerInfoFromTokenizerJSONFile(tokenizerJsonPath(v.package));
  for (const g of grammars) {
    const compiled = new GrammarCompiler(info, { cache: false }).compile(g.make(), { eager: true });
    const masks = compiled.masks!;
    const hash = createHash('sha256');
    for (const state of masks.scanStates()) {
      const m = masks.get(state);
      const head = Int32Array.of(state, m.store, m.contextFree ? 1 : 0, m.ids.length, m.bits?.length ?? -1, m.uncertain.length);
      for (const part of [head, m.ids, m.bits ?? new Uint32Array(0), m.uncertain]) hash.update(new Uint8Array(part.buffer, part.byteOffset, part.byteLength));
    }
    const line = `${v.name}\t${g.name}\t${hash.digest('hex')}`;
    whole.update(line);
    console.log(line);
  }
}
console.log(`all\t${whole.digest('hex')}`);
