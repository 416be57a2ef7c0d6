// Token-mask benchmark: for the built-in JSON grammar, a realistic schema and a tool-call schema
// on the Llama 3, Qwen 3 and Gemma 3 vocabularies, the vocabulary build time, the eager compile
// time, the lazy time to first mask, and the per-token mask time along a fixed valid output.
// bench/peer-xgrammar.sh measures xgrammar on the same inputs, printing the same fields.
//
//   npx tsx bench/grammar.ts            # a table
//   npx tsx bench/grammar.ts --json     # one JSON object per line
//   npx tsx bench/grammar.ts --vocab qwen3 --grammar schema
//   npx tsx bench/grammar.ts --cold --vocab llama3 --grammar json   # a fresh process, no warm-up
import { Grammar, GrammarCompiler, GrammarMatcher, TokenizerInfo } from '../compiler/index.js';
import { readFileSync } from 'node:fs';
import { type BenchGrammar, GRAMMARS, greedyTokens, tokenizerJsonPath, VOCABS } from '../fixtures/grammar-inputs.js';
import { tokenBytesFromTokenizerJson } from '../compiler/tokenizer/tokenizer-json.js';

const args = process.argv.slice(2);
const json = args.includes('--json');
const pick = (flag: string): string | undefined => {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : undefined;
};
const onlyVocab = pick('--vocab');
const onlyGrammar = pick('--grammar');
const REPEATS = 3;
const MASK_ROUNDS = 5;
// V8 compiles the mask path with its optimising tier after about a thousand calls; before
// that a step costs several times more. A server runs warm, so everything is timed after an
// untimed pass over every grammar (`warmUp`), the walks after WARMUP_ROUNDS untimed ones
// (each round a fresh matcher: per-matcher memos start empty), and compiles after an untimed
// one. The peer (no JIT) does the latter two as well. `--cold` skips the warm-up pass and the
// warm-up compile, and keeps one untimed walk (it fills the grammar's lazily built indexes,
// which a server builds once per grammar): with one --vocab and --grammar, what a fresh
// process sees.
const cold = args.includes('--cold');
const WARMUP_ROUNDS = cold ? 1 : 10;

function grammarOf(g: BenchGrammar): Grammar {
  return g.kind === 'builtin_json' ? Grammar.builtinJSON() : Grammar.fromJSONSchema(g.schema);
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * CPU time of the whole process (every thread: V8's GC helpers count too), in ms. On a shared
 * machine a compile's wall time depends on who else runs; its CPU time much less so.
 */
function cpuMs(usage: NodeJS.CpuUsage): number {
  return (usage.user + usage.system) / 1000;
}

function median(xs: number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
}

/** Untimed: the compile and mask paths of every grammar, until V8 has optimised them. */
function warmUp(info: TokenizerInfo): void {
  const mask = new Uint32Array(Math.ceil(info.vocabSize / 32));
  for (const g of GRAMMARS) {
    for (let i = 0; i < 3; i++) new GrammarCompiler(info, { cache: false }).compile(grammarOf(g), { eager: true });
    const compiled = new GrammarCompiler(info, { cache: false }).compile(grammarOf(g), { eager: true });
    const tokens = greedyTokens(info, g.output);
    for (let round = 0; round < WARMUP_ROUNDS; round++) {
      const m = new GrammarMatcher(compiled);
      for (const id of tokens) {
        m.fillNextTokenBitmask(mask);
        m.acceptToken(id);
      }
    }
  }
}

const rows: Record<string, string | number>[] = [];
let warm = false;
for (const v of VOCABS) {
  if (onlyVocab && v.name !== onlyVocab) continue;
  // Build time from decoded token bytes, as the peer measures it (reading tokenizer.json apart).
  const input = tokenBytesFromTokenizerJson(JSON.parse(readFileSync(tokenizerJsonPath(v.package), 'utf8')) as object);
  const builds: number[] = [];
  let info = TokenizerInfo.fromTokenBytes(input);
  for (let i = 0; i < REPEATS; i++) {
    const t0 = performance.now();
    info = TokenizerInfo.fromTokenBytes(input);
    builds.push(performance.now() - t0);
  }
  const vocabMs = median(builds);
  if (!warm && !cold) warmUp(info);
  warm = true;
  for (const g of GRAMMARS) {
    if (onlyGrammar && g.name !== onlyGrammar) continue;
    const compiles: number[] = [];
    const compileCpus: number[] = [];
    const firsts: number[] = [];
    if (!cold) new GrammarCompiler(info, { cache: false }).compile(grammarOf(g), { eager: true });
    for (let i = 0; i < REPEATS; i++) {
      const cpu0 = process.cpuUsage();
      let t0 = performance.now();
      new GrammarCompiler(info, { cache: false }).compile(grammarOf(g), { eager: true });
      compiles.push(performance.now() - t0);
      compileCpus.push(cpuMs(process.cpuUsage(cpu0)));
      t0 = performance.now();
      const lazy = new GrammarCompiler(info, { cache: false }).compile(grammarOf(g));
      new GrammarMatcher(lazy).fillNextTokenBitmask(new Uint32Array(Math.ceil(info.vocabSize / 32)));
      firsts.push(performance.now() - t0);
    }
    const compiled = new GrammarCompiler(info, { cache: false }).compile(grammarOf(g), { eager: true });
    const tokens = greedyTokens(info, g.output);
    const mask = new Uint32Array(Math.ceil(info.vocabSize / 32));
    // Per step, the median over MASK_ROUNDS walks: this machine is shared, and one busy moment
    // should not decide a step's time.
    const rounds: number[][] = tokens.map(() => []);
    for (let round = 0; round < WARMUP_ROUNDS + MASK_ROUNDS; round++) {
      const m = new GrammarMatcher(compiled);
      tokens.forEach((id, step) => {
        const t0 = performance.now();
        m.fillNextTokenBitmask(mask);
        const dt = performance.now() - t0;
        if (round >= WARMUP_ROUNDS) rounds[step]!.push(dt * 1000);
        if ((mask[id >>> 5]! & (1 << (id & 31))) === 0 || !m.acceptToken(id)) throw new Error(`${g.name}/${v.name}: token ${id} of the valid output was refused`);
      });
    }
    const times = rounds.map(median).sort((a, b) => a - b);
    rows.push({
      grammar: g.name,
      vocab: v.name,
      vocab_build_ms: +vocabMs.toFixed(1),
      compile_ms: +median(compiles).toFixed(1),
      compile_cpu_ms: +median(compileCpus).toFixed(1),
      first_mask_ms: +median(firsts).toFixed(2),
      mask_mean_us: +(times.reduce((a, b) => a + b, 0) / times.length).toFixed(1),
      mask_p50_us: +percentile(times, 50).toFixed(1),
      mask_p99_us: +percentile(times, 99).toFixed(1),
      steps: times.length,
    });
    if (json) console.log(JSON.stringify(rows[rows.length - 1]));
  }
}
if (!json) {
  const keys = ['grammar', 'vocab', 'vocab_build_ms', 'compile_ms', 'compile_cpu_ms', 'first_mask_ms', 'mask_mean_us', 'mask_p50_us', 'mask_p99_us', 'steps'];
  console.log(keys.join('\t'));
  for (const r of rows) console.log(keys.map((k) => r[k]).join('\t'));
}
