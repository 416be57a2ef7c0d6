// lmforge/grammar is pure (DESIGN.md): bundled for a browser it needs no Node built-in, and
// the bundle runs in a bare JavaScript realm holding only what browsers also have, where it
// compiles grammars, builds a vocabulary and fills token masks.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { runInNewContext } from 'node:vm';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type * as GrammarModule from '../../compiler/index.js';

const test = suite('lmforge/grammar is pure');
const entry = fileURLToPath(new URL('../../compiler/index.ts', import.meta.url));

async function browserBundle(): Promise<string> {
  // platform 'browser' fails on any import of a Node built-in, ours or a dependency's.
  const result = await build({ entryPoints: [entry], bundle: true, write: false, platform: 'browser', format: 'iife', globalName: 'lmforgeGrammar', logLevel: 'silent' }).catch((error: Error) => {
    throw new Error(`lmforge/grammar does not bundle for a browser:\n${error.message}`);
  });
  return result.outputFiles[0]!.text;
}

test('it bundles for a browser, and the bundle compiles, matches and masks in a realm without Node', async () => {
  const code = await browserBundle();
  // No process, Buffer, require or module: a browser has none of them.
  const realm: Record<string, unknown> = { TextEncoder, TextDecoder, console };
  runInNewContext(`${code}\nglobalThis.lmforgeGrammar = lmforgeGrammar;`, realm);
  const { Grammar, GrammarCompiler, GrammarMatcher, TokenizerInfo } = realm.lmforgeGrammar as typeof GrammarModule;

  const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
  const compiled = new GrammarCompiler().compile(Grammar.fromJSONSchema(schema));
  assert.match(compiled.hash, /^[0-9a-f]{64}$/);
  const matcher = new GrammarMatcher(compiled);
  assert.ok(matcher.acceptString('{"city": "Paris"}'));
  assert.ok(matcher.isCompleted());
  assert.not.ok(new GrammarMatcher(compiled).acceptString('{"town"'));

  const utf8 = new TextEncoder();
  const texts = ['a', 'b', 'ab', '<eos>'];
  const info = TokenizerInfo.fromTokenBytes({ tokens: texts.map((t) => utf8.encode(t)), stop: [3] });
  const masked = new GrammarMatcher(new GrammarCompiler(info).compile(Grammar.fromRegex('a+')));
  const mask = new Uint32Array(1);
  masked.fillNextTokenBitmask(mask);
  assert.is(mask[0], 0b0001, 'only "a" may start');
  assert.ok(masked.acceptToken(0));
  masked.fillNextTokenBitmask(mask);
  assert.is(mask[0], 0b1001, '"a" again, or stop');
});

test.run();
