// The template a server renders with, through the real engine and the official client: plain
// text turns for a model without a template or turn tokens (its stops cut the next turn), a
// template given in place of the model's own (one that demands alternating roles takes two tool
// results in a row), and on Gemma 3 270M, when it has been pulled, Gemma's turns as tokens.
import { existsSync } from 'node:fs';
import type OpenAI from 'openai';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tinyUntemplatedModelPath } from '../../fixtures/paths.js';
import { listDevices } from '../../runtime/backend/devices.js';
import { loadLlamaLibrary } from '../../runtime/backend/library.js';
import { LlamaModel } from '../../runtime/backend/model.js';
import { BUILTIN_TEMPLATES } from '../../runtime/chat-format/builtin-templates.js';
import { modelCachePath } from '../../runtime/models/pull-model.js';
import { alternatingTemplate, twoResultsInARow } from '../chat/strict-templates.js';
import { startTinyServer, TINY_MODEL_ID, type TinyServer } from '../helpers/tiny-server.js';

const test = suite('chat templates in the server');

/** Output forced by a regex, so a random-weight model writes the turn the stops must cut. */
const forced = (pattern: string) => ({ type: 'regex', pattern }) as unknown as OpenAI.ResponseFormatText;

async function withServer(options: Parameters<typeof startTinyServer>[0], run: (s: TinyServer) => Promise<void>): Promise<void> {
  const s = await startTinyServer(options);
  try {
    await run(s);
  } finally {
    await s.close();
  }
}

test('a model with no template and no turn tokens gets plain turns, cut where the next turn starts', async () => {
  await withServer({ engine: { modelPath: tinyUntemplatedModelPath } }, async (s) => {
    assert.match(s.server.templateNote, /^plain, built in: the model has none and its vocabulary no known turn tokens/);
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Capital of France?' }];
    const whole = await s.client.chat.completions.create({ model: TINY_MODEL_ID, messages, response_format: forced('Paris\\.\\n\\nUser: and Rome\\?') });
    assert.is(whole.choices[0]!.message.content, 'Paris.');
    assert.is(whole.choices[0]!.finish_reason, 'stop');
    // "User: Capital of France?\n\nAssistant:" in GPT-2 tokens: User, :, ĠCapital, Ġof, ĠFrance, ?, ĊĊ, Ass, istant, :
    assert.is(whole.usage!.prompt_tokens, 10);
    const stream = await s.client.chat.completions.create({ model: TINY_MODEL_ID, messages, stream: true, response_format: forced('Paris\\.\\nAssistant: more') });
    let text = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    assert.equal([text, finish], ['Paris.', 'stop']);
    // The request's own stops still apply beside the template's.
    const own = await s.client.chat.completions.create({ model: TINY_MODEL_ID, messages, stop: ['is'], response_format: forced('Paris\\.\\n\\nUser: x') });
    assert.is(own.choices[0]!.message.content, 'Par');
  });
});

test('a given template replaces the model\'s own; one that demands alternating roles takes two tool results in a row', async () => {
  const chatTemplate = { source: alternatingTemplate, stop: [], label: 'alternating.jinja' };
  await withServer({ server: { chatTemplate } }, async (s) => {
    assert.is(s.server.templateNote, 'alternating.jinja (--chat-template)');
    const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }];
    const completion = await s.client.chat.completions.create({
      model: TINY_MODEL_ID,
      tools,
      max_tokens: 3,
      messages: twoResultsInARow,
    });
    assert.ok(completion.choices[0]!.finish_reason, 'answered, not refused as roles out of order');
  });
});

// Gemma 3 270M is pulled by `lmforge pull gemma3-270m`, not by `npm run fixtures` (253 MB): where
// it is absent these checks are skipped, and said so.
const gemmaPath = modelCachePath('gemma3-270m');
const gemmaQuestion: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'What is the capital of France?' }];

test('Gemma 3 270M (no template, a gemma3 vocabulary) gets Gemma\'s turns as its control tokens', async () => {
  if (!existsSync(gemmaPath)) {
    console.log(`  skipped: ${gemmaPath} is not pulled (lmforge pull gemma3-270m)`);
    return;
  }
  const { api } = loadLlamaLibrary({ kinds: ['cpu'] });
  const vocabulary = await LlamaModel.create(api, { path: gemmaPath, devices: listDevices(api).filter((d) => d.kind === 'cpu').slice(0, 1), vocabOnly: true });
  const expected = '<bos><start_of_turn>user\nWhat is the capital of France?<end_of_turn>\n<start_of_turn>model\n';
  const promptTokens = vocabulary.vocabulary.tokenize(expected, { parseSpecial: true }).length;
  vocabulary.dispose();
  await withServer({ engine: { modelPath: gemmaPath, threads: undefined } }, async (s) => {
    assert.match(s.server.templateNote, /^gemma, built in: the model has none, and its vocabulary has <start_of_turn> and <end_of_turn> \(gemma3\)/);
    const completion = await s.client.chat.completions.create({ model: TINY_MODEL_ID, messages: gemmaQuestion, max_tokens: 8, temperature: 0 });
    // Each marker is one token: written as text they would take several each.
    assert.is(completion.usage!.prompt_tokens, promptTokens);
    assert.ok(promptTokens < 20, `${promptTokens} tokens`);
    assert.not.match(completion.choices[0]!.message.content ?? '', /<start_of_turn>|<end_of_turn>|<\|im_/);
  });
});

test('Gemma 3 270M, a base model, answers in plain turns and stops at the next one', async () => {
  if (!existsSync(gemmaPath)) {
    console.log(`  skipped: ${gemmaPath} is not pulled (lmforge pull gemma3-270m)`);
    return;
  }
  const chatTemplate = { ...BUILTIN_TEMPLATES.plain, label: 'plain, built in' };
  await withServer({ server: { chatTemplate }, engine: { modelPath: gemmaPath, threads: undefined } }, async (s) => {
    const completion = await s.client.chat.completions.create({ model: TINY_MODEL_ID, messages: gemmaQuestion, max_tokens: 40, temperature: 0 });
    // The space after 'Assistant:' parts the label from the answer: not content (plain-template.ts).
    assert.is(completion.choices[0]!.message.content, 'The capital of France is Paris.');
    assert.is(completion.choices[0]!.finish_reason, 'stop');
  });
});

test.run();
