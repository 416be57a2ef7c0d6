// `npx tsx bench/tools-grammar-reuse.ts [MODEL] [--runs N]`: what precompiling "the fixed parts"
// of a tool-call grammar could save on a model's first request with tools, in one process.
// For the model's vocabulary (fresh tables from the cache bytes each run, as `serve DIR` loads
// them), the tools grammar of bench:compile-startup's request (hermes, tool_choice required,
// one get_weather tool) is decoded along its expected call, token by token (the longest allowed
// token that continues the text), and timed: the masks that path needs, then every mask. Before
// it, the compiler's rule-level mask cache (mask/mask-cache.ts, keyed by rule structure) is
//   cold       empty, tables built from the GGUF: a first request on a raw GGUF;
//   folder-sets empty, but the tables carry the family's token sets, as `lmforge compile`
//              stores them (compiled-artifacts.ts): a first request on a compiled folder;
//   json-value filled by the built-in JSON grammar (the value rules arguments could share);
//   envelope   filled by the same format's grammar for one generic tool (`{"type": "object"}`
//              arguments): the most a stored "fixed parts" artifact could hold;
//   same-args  filled by the grammar for a tool with these very parameters under another name:
//              the upper bound of any reuse that does not know the request's tools.
// Medians over the runs; `computed` counts the mask classifications the request ran itself,
// `sets` the token sets it walked the vocabulary for.
import { cac } from 'cac';
import { Grammar, GrammarCompiler, GrammarMatcher, TokenizerInfo } from '../compiler/index.js';
import { toolCallTag, type ToolDefinition } from '../runtime/chat-format/tool-call-tag.js';
import { TOOL_FORMATS } from '../runtime/chat-format/tool-formats.js';
import { grammarVocabularyFromGGUF } from '../runtime/engine/worker/grammar-vocabulary.js';
import { buildToolCallTokenSets } from '../runtime/models/compiled-artifacts.js';
import { defaultModelFile } from '../runtime/models/pull-model.js';

const cli = cac('tools-grammar-reuse');
cli.option('--runs <n>', 'Runs per variant', { default: 7 });
const { args, options } = cli.parse();
const runs = Number(options.runs);
const vocabulary = await grammarVocabularyFromGGUF(args[0] ?? defaultModelFile());
const tablesBytes = vocabulary.toCacheBytes();
// The tables as `lmforge compile` stores them: with the token sets of the family's grammar.
buildToolCallTokenSets(vocabulary, 'hermes');
const folderTablesBytes = vocabulary.toCacheBytes();

const format = TOOL_FORMATS.hermes;
const city = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const tagFor = (tools: ToolDefinition[]) => Grammar.fromStructuralTag(toolCallTag(format, tools, { mode: 'required' }, true));
const request = tagFor([{ name: 'get_weather', parameters: city }]);
const expected = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>';
const warmers: Record<string, Grammar | undefined> = {
  cold: undefined,
  'folder-sets': undefined,
  'json-value': Grammar.builtinJSON({}),
  envelope: tagFor([{ name: 'f', parameters: { type: 'object' } }]),
  'same-args': tagFor([{ name: 'lookup', parameters: city }]),
};

/** Decodes `expected` greedily under the grammar; returns the ms its masks took and the classifications they ran. */
function decodePath(compiler: GrammarCompiler, tokenizer: TokenizerInfo): { ms: number; computed: number; sets: number } {
  const setsBefore = tokenizer.tokenSetsBuilt;
  const t0 = performance.now();
  const compiled = compiler.compile(request);
  const matcher = new GrammarMatcher(compiled);
  const mask = new Uint32Array(Math.ceil(tokenizer.vocabSize / 32));
  const utf8 = new TextEncoder().encode(expected);
  let at = 0;
  while (at < utf8.length) {
    matcher.fillNextTokenBitmask(mask);
    let best = -1;
    let bestLength = 0;
    for (let id = 0; id < tokenizer.numTokens; id++) {
      if (((mask[id >> 5]! >>> (id & 31)) & 1) === 0) continue;
      const bytes = tokenizer.bytes.subarray(tokenizer.offsets[id]!, tokenizer.offsets[id + 1]!);
      if (bytes.length <= bestLength || at + bytes.length > utf8.length) continue;
      if (bytes.every((b, i) => utf8[at + i] === b)) [best, bestLength] = [id, bytes.length];
    }
    if (best < 0 || !matcher.acceptToken(best)) throw new Error(`no allowed token continues the call at byte ${at}`);
    at += bestLength;
  }
  return { ms: performance.now() - t0, computed: compiled.masks!.computed, sets: tokenizer.tokenSetsBuilt - setsBefore };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const results: Record<string, { path: number[]; pathComputed: number[]; sets: number[]; all: number[]; computed: number[] }> = {};
// One untimed round first, so that every variant runs with the JIT warm.
for (let run = -1; run < runs; run++) {
  for (const [name, warmer] of Object.entries(warmers)) {
    const tokenizer = TokenizerInfo.fromCacheBytes(name === 'folder-sets' ? folderTablesBytes : tablesBytes);
    const compiler = new GrammarCompiler(tokenizer);
    if (warmer) compiler.compile(warmer, { eager: true });
    const path = decodePath(compiler, tokenizer);
    const t0 = performance.now();
    const compiled = compiler.compile(request).completeMasks();
    const all = path.ms + (performance.now() - t0);
    if (run < 0) continue;
    const r = (results[name] ??= { path: [], pathComputed: [], sets: [], all: [], computed: [] });
    r.path.push(path.ms);
    r.pathComputed.push(path.computed);
    r.sets.push(path.sets);
    r.all.push(all);
    r.computed.push(compiled.masks!.computed);
  }
}
console.log(`${runs} runs; medians: ms of the masks on the call's path, the classifications and token sets they ran; the same for every mask`);
for (const [name, r] of Object.entries(results)) {
  console.log(`${name.padEnd(11)} path ${median(r.path).toFixed(1).padStart(7)} ms, ${median(r.pathComputed)} computed, ${median(r.sets)} sets   all ${median(r.all).toFixed(1).padStart(7)} ms, ${median(r.computed)} computed`);
}
