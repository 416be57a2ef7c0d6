// llama.cpp's penalties link in the graph (CPU backend, tiny model) with a window longer than the
// vocabulary, as a device chain has when a model's context is longer than its vocabulary (the
// engine's window for OpenAI's penalties is the whole sequence): every token of the window is
// counted, however long, and the logits left are the host's rule applied to exactly those counts.
// The link's tensors hold at most a vocabulary of distinct tokens, which is all a window can hold.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cpuBackend, decodeWithChains } from '../helpers/chain-rows.js';

const test = suite('penalties in the graph');
const { calls, tiny } = await cpuBackend();
const vocabSize = tiny.vocabulary.size;

const REPEAT = 1.6;
const FREQUENCY = 0.4;
const PRESENCE = 0.3;

/**
 * More tokens than the vocabulary has: 500 tokens once each, then ids 1000..1099 in turn; a
 * window of the vocabulary's length has let the first 500 go, a longer one keeps them.
 */
const history = [...Array.from({ length: 500 }, (_, i) => i), ...Array.from({ length: vocabSize }, (_, i) => 1000 + (i % 100))];

/** The host's rule (token-sampler.ts) in float32: repetition, then count × frequency + presence. */
function penalised(raw: Float32Array, window: number): Float32Array {
  const counts = new Map<number, number>();
  for (const token of history.slice(-window)) counts.set(token, (counts.get(token) ?? 0) + 1);
  const expected = raw.slice();
  for (const [token, count] of counts) {
    const x = raw[token]!;
    const repeated = Math.fround(x > 0 ? x * Math.fround(1 / REPEAT) : x * Math.fround(REPEAT));
    expected[token] = Math.fround(Math.fround(repeated - Math.fround(count * Math.fround(FREQUENCY))) - Math.fround(PRESENCE));
  }
  return expected;
}

test('a window longer than the vocabulary counts every token in it; one of the vocabulary\'s length drops the oldest', () => {
  const windows = [vocabSize + 1000, vocabSize];
  const chains = windows.map((window) => {
    const chain = calls.chain(calls.llama_sampler_init_penalties(vocabSize, window, REPEAT, FREQUENCY, PRESENCE), calls.llama_sampler_init_greedy());
    for (const token of history) calls.llama_sampler_accept(chain, token);
    return chain;
  });
  const rows = decodeWithChains(tiny, calls, chains);
  rows.forEach(({ left, logits }, i) => {
    const expected = penalised(logits, windows[i]!);
    assert.is(left.length, vocabSize, `window ${windows[i]}: a whole row`);
    let changed = 0;
    for (let token = 0; token < vocabSize; token++) {
      if (left[token] !== logits[token]) changed++;
      if (Math.abs(left[token]! - expected[token]!) > 1e-6 * Math.max(1, Math.abs(expected[token]!))) {
        assert.unreachable(`window ${windows[i]}, token ${token}: ${left[token]} against ${expected[token]}`);
      }
    }
    // The oldest 500 tokens are penalised only while the window reaches back to them.
    assert.is(changed, i === 0 ? 600 : 100, `window ${windows[i]}: tokens penalised`);
  });
});

test.run();
