// Every cache of compiled grammars, masks and vocabulary sets stays within its stated bound
// however many distinct formats arrive, and a format's first token mask is computed by the
// compile worker, so the engine's thread only loads it. Real compile workers, the tiny model's
// vocabulary through llama.cpp.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { deserializeCompiledGrammar, Grammar, GrammarCompiler, GrammarMatcher, serializeCompiledGrammar, TokenizerInfo } from '../../compiler/index.js';
import { listDevices } from '../../runtime/backend/devices.js';
import { loadLlamaLibrary } from '../../runtime/backend/library.js';
import { LlamaModel } from '../../runtime/backend/model.js';
import { Admission, isAdmissionError } from '../../runtime/engine/worker/admission.js';
import type { RequestState } from '../../runtime/engine/worker/sequence.js';
import { grammarVocabulary } from '../../runtime/engine/worker/grammar-vocabulary.js';
import { GrammarPool } from '../../runtime/grammar-service/grammar-pool.js';
import { GrammarService } from '../../runtime/grammar-service/grammar-service.js';
import type { GrammarSpec } from '../../runtime/grammar-service/grammar-spec.js';
import { tinyModelPath } from '../../fixtures/paths.js';

/** Distinct small schemas, so that none is a cache hit. */
function schema(i: number): GrammarSpec {
  return { kind: 'json_schema', schema: { type: 'object', properties: { [`field${i}`]: { type: 'integer' }, [`name${i}`]: { type: 'string', maxLength: 10 + i } }, required: [`field${i}`] } };
}

const test = suite<{ model: LlamaModel; info: TokenizerInfo }>('cache bounds');

test.before(async (context) => {
  const { api } = loadLlamaLibrary({ kinds: ['cpu'] });
  context.model = await LlamaModel.create(api, { path: tinyModelPath, devices: listDevices(api).filter((d) => d.kind === 'cpu'), vocabOnly: true });
  context.info = grammarVocabulary(context.model.vocabulary);
});
test.after(({ model }) => model.dispose());

test('an artifact from the compile workers carries its first token mask: the engine computes none to start', async ({ info }) => {
  const service = new GrammarService({ tokenTexts: [], vocabulary: info.toCacheBytes(), timeoutMs: 60_000, workers: 1 });
  try {
    const artifact = await service.compile({ kind: 'json_schema', schema: { type: 'string', enum: Array.from({ length: 300 }, (_, i) => `choice-${i}`) } });
    const compiled = deserializeCompiledGrammar(artifact, info);
    new GrammarMatcher(compiled).fillNextTokenBitmask(new Uint32Array(info.normalMask.length));
    assert.is(compiled.masks!.computed, 0, 'the first mask came with the artifact');
    assert.ok(compiled.masks!.maskBytes > 0);
  } finally {
    await service.dispose();
  }
});

test('the artifact cache in memory keeps at most its bytes, dropping the least recently used', async () => {
  const service = new GrammarService({ tokenTexts: [], timeoutMs: 60_000, workers: 1, memoryCacheBytes: 1 });
  const probe = await service.compile(schema(0));
  await service.dispose();
  // Room for two artifacts of that size, not three.
  const bound = Math.floor(probe.byteLength * 2.5);
  const bounded = new GrammarService({ tokenTexts: [], timeoutMs: 60_000, workers: 1, memoryCacheBytes: bound });
  try {
    for (let i = 0; i < 5; i++) {
      await bounded.compile(schema(i));
      assert.ok(bounded.cacheBytes <= bound, `${bounded.cacheBytes} bytes cached, bound ${bound}`);
    }
    assert.ok(bounded.cacheBytes > 0);
    await bounded.compile(schema(4));
    assert.is(bounded.cacheCounts.hits, 1, 'the latest is kept');
    await bounded.compile(schema(0));
    assert.is(bounded.cacheCounts.compiled, 6, 'the oldest was dropped and compiles again');
  } finally {
    await bounded.dispose();
  }
});

test('a compile worker whose heap a compile grew past the bound is replaced after it; small compiles keep it', async () => {
  const pool = new GrammarPool({ tokenTexts: [], timeoutMs: 60_000, workers: 1 });
  try {
    await pool.warmUp();
    for (let i = 0; i < 3; i++) await pool.compile(schema(i));
    assert.is(pool.recycled, 0, 'small schemas leave the heap small');
    // ~90 MiB of heap after it, past the 64 MiB bound.
    await pool.compile({ kind: 'json_schema', schema: { type: 'string', enum: Array.from({ length: 3000 }, (_, i) => `value-${i}-${(i * 7919).toString(36)}`) } });
    assert.is(pool.recycled, 1);
    assert.is(pool.workersStarted, 2, 'a fresh worker in its place');
    assert.instance(await pool.compile(schema(9)), Uint8Array);
  } finally {
    await pool.dispose();
  }
});

test("a request's prediction is tokenized only where drafts are made, and only as far as max_tokens reaches", ({ model }) => {
  const prediction = 'the quick brown fox jumps over the lazy dog '.repeat(40);
  const admit = (draftsPredictions: boolean, maxTokens?: number) => {
    const admission = new Admission(model.vocabulary, model.vocabulary.size, { maxNumSequence: 4, lengthLimit: 256 }, { draftsPredictions });
    const state = admission.admit(1, { prompt: 'Hello', prediction, ...(maxTokens ? { maxTokens } : {}) });
    assert.not.ok(isAdmissionError(state));
    return (state as RequestState).predicted!;
  };
  assert.equal(admit(false), [], 'no speculative decoding: nothing to draft it for');
  const whole = admit(true);
  assert.ok(whole.length > 200 && whole.length < 256, `the context's room after the prompt: ${whole.length}`);
  assert.is(admit(true, 12).length, 12, 'max_tokens: 12');
  assert.equal(admit(true, 12), whole.slice(0, 12));
});

test('the engine keeps deserialized grammars and their masks within its bound', ({ model }) => {
  const compiler = new GrammarCompiler({ cache: false });
  const artifacts = Array.from({ length: 6 }, (_, i) => serializeCompiledGrammar(compiler.compile(Grammar.fromRegex(`[a-z]{${i + 1},${i + 20}}-${i}`)), { withMasks: false }));
  // Room for three of the six artifacts, fewer once their masks are counted.
  const bound = 3 * Math.max(...artifacts.map((a) => a.byteLength));
  assert.ok(artifacts.reduce((sum, a) => sum + a.byteLength, 0) > bound);
  const admission = new Admission(model.vocabulary, model.vocabulary.size, { maxNumSequence: 4, lengthLimit: 256 }, { grammarCacheBytes: bound });
  for (const [i, grammar] of artifacts.entries()) {
    const state = admission.admit(i, { prompt: 'hello', maxTokens: 4, grammar });
    assert.ok(!isAdmissionError(state), isAdmissionError(state) ? state.message : '');
    assert.ok(admission.cachedGrammarBytes <= bound, `${admission.cachedGrammarBytes} bytes kept after ${i + 1} grammars, bound ${bound}`);
    // Masks computed while the request runs count too, from the next admission on.
    for (const sequence of (state as RequestState).sequences) sequence.grammar!.refresh();
  }
  admission.admit(99, { prompt: 'hello', maxTokens: 4, grammar: artifacts[0]! });
  assert.ok(admission.cachedGrammarBytes <= bound, `${admission.cachedGrammarBytes} bytes kept, bound ${bound}`);
});

test("the vocabulary's token sets by byte set keep the latest WITHIN_CACHE_ENTRIES", ({ info }) => {
  const words = Math.ceil(info.sorted.length / 32);
  for (let i = 0; i < TokenizerInfo.WITHIN_CACHE_ENTRIES + 50; i++) {
    const set = new Uint8Array(256);
    for (let b = 0; b < 256; b++) if ((b * 7 + i) % 3 === 0 || b === (i & 255)) set[b] = 1;
    set[(i * 13) & 255] = 1 - set[(i * 13) & 255]!;
    set[(i >> 8) + 200] = 1;
    info.tokensWithin(set);
  }
  assert.ok(info.withinCacheBytes > 0);
  assert.ok(info.withinCacheBytes <= TokenizerInfo.WITHIN_CACHE_ENTRIES * words * 4, `${info.withinCacheBytes} bytes`);
});

test.run();
