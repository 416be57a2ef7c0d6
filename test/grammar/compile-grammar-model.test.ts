// `lmforge compile-grammar --model MODEL`: the vocabulary comes from the model's GGUF (here the
// GPT-2 vocabulary-only GGUF, named by path as MODEL may be), and the artifact carries every
// token mask, under a name that includes the vocabulary's fingerprint.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { modelVocabulary, runCompileGrammar } from '../../cli/compile-grammar.js';
import { ARTIFACT_FORMAT_VERSION, Grammar, GrammarCompiler, GrammarMatcher } from '../../compiler/index.js';
import { GrammarCache } from '../../compiler/node.js';
import { vocabularyPath } from '../../fixtures/vocabularies.js';
import { differences, fastMask } from './token-oracle.js';

const test = suite('compile-grammar --model');

test('writes artifacts with every mask for the model vocabulary', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmforge-cgm-'));
  try {
    const info = await modelVocabulary(await vocabularyPath('gpt-2'), { LMFORGE_HOME: join(dir, 'home') });
    assert.is(info.numTokens, 50257);
    writeFileSync(join(dir, 'tool.json'), JSON.stringify({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }));
    const out = join(dir, 'out');
    const lines: string[] = [];
    const status = runCompileGrammar([join(dir, 'tool.json')], { out }, { log: (l) => lines.push(l), error: (l) => lines.push(l) }, info);
    assert.is(status, 0, lines.join('\n'));
    const files = readdirSync(out);
    const expected = new GrammarCompiler(info).compile(Grammar.fromJSONSchema({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }));
    assert.equal(files, [`v${ARTIFACT_FORMAT_VERSION}-${expected.hash}-${info.fingerprint.slice(0, 16)}.lmgrammar`]);
    const loaded = new GrammarCache(out).read(expected.hash, info);
    assert.ok(loaded, 'found by grammar hash and vocabulary');
    const a = new GrammarMatcher(loaded!);
    const b = new GrammarMatcher(expected);
    for (const text of ['{', '"city"', ': "', 'Par', 'is', '"}']) {
      assert.equal(differences(fastMask(a, info), fastMask(b, info)), [], `before ${text}`);
      assert.ok(a.acceptString(text) && b.acceptString(text));
    }
    assert.is(loaded!.masks!.computed, 0, 'every mask came from the artifact');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
