// vLLM's chat-template fields: `continue_final_message` (with `add_generation_prompt: false`)
// goes on writing the last assistant message, and `chat_template_kwargs` gives the template more
// variables. The reference is the text completion of the prompt the template should have
// rendered: greedy decoding from the same prompt gives the same tokens, so a chat answer equal to
// it (and the same prompt_tokens) shows the prompt was exactly that text.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { makeTinyModel } from '../../fixtures/tiny-model.js';
import { post, startTinyServer, TINY_MODEL_ID, type TinyServer } from '../helpers/tiny-server.js';

const test = suite<{ s: TinyServer; greeting: TinyServer; dir: string }>('chat template fields');

/** ChatML turns, with a first line from the `greeting` variable when a request gives one. */
const GREETING_TEMPLATE =
  "{%- if greeting is defined %}{{- greeting + '\\n' }}{%- endif %}{%- for m in messages %}{{- '<|im_start|>' + m.role + '\\n' + m.content + '<|im_end|>\\n' }}{%- endfor %}{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}";

test.before(async (context) => {
  context.dir = mkdtempSync(join(tmpdir(), 'lmforge-template-fields-'));
  context.s = await startTinyServer();
  context.greeting = await startTinyServer({ engine: { modelPath: await makeTinyModel({ out: join(context.dir, 'tiny-greeting.gguf'), chatTemplate: GREETING_TEMPLATE }) } });
});
test.after(async (context) => {
  await context.s.close();
  await context.greeting.close();
  rmSync(context.dir, { recursive: true, force: true });
});

const model = TINY_MODEL_ID;
const greedy = { model, max_tokens: 8, temperature: 0, ignore_eos: true };

/** The chat answer and its prompt's length, and the same for `text` sent as a raw prompt. */
async function chatAndText(s: TinyServer, chat: object, text: string) {
  const answer = await post(`${s.url}/v1/chat/completions`, { ...greedy, ...chat });
  assert.is(answer.status, 200, answer.text);
  const reference = await s.client.completions.create({ ...greedy, prompt: text });
  return { chat: answer.json.choices[0].message.content as string, chatPrompt: answer.json.usage.prompt_tokens as number, text: reference.choices[0]!.text, textPrompt: reference.usage!.prompt_tokens };
}

test('continue_final_message: the prompt ends with the last message\'s text (no end of turn, no new turn), and the answer goes on from it, whole and streamed', async ({ s }) => {
  const messages = [
    { role: 'user', content: 'Name a colour.' },
    { role: 'assistant', content: 'My favourite colour is' },
  ];
  const rendered = '<|im_start|>user\nName a colour.<|im_end|>\n<|im_start|>assistant\nMy favourite colour is';
  for (const fields of [{ continue_final_message: true, add_generation_prompt: false }, { continue_final_message: true }]) {
    const run = await chatAndText(s, { messages, ...fields }, rendered);
    assert.is(run.chatPrompt, run.textPrompt);
    assert.is(run.chat, run.text);
    assert.ok(run.chat.length > 0);
  }
  // Without it the conversation gets a new assistant turn after the message, as OpenAI's does.
  const newTurn = await chatAndText(s, { messages }, `${rendered}<|im_end|>\n<|im_start|>assistant\n`);
  assert.equal([newTurn.chatPrompt, newTurn.chat], [newTurn.textPrompt, newTurn.text]);
  let streamed = '';
  for await (const chunk of await s.client.chat.completions.create({ ...greedy, messages, continue_final_message: true, stream: true } as never) as unknown as AsyncIterable<{ choices: { delta: { content?: string } }[] }>) {
    streamed += chunk.choices[0]?.delta.content ?? '';
  }
  assert.is(streamed, (await chatAndText(s, { messages, continue_final_message: true }, rendered)).chat);
});

test('chat_template_kwargs: the template reads the variables it is given', async ({ greeting }) => {
  const messages = [{ role: 'user', content: 'Hi' }];
  const turns = '<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n';
  const given = await chatAndText(greeting, { messages, chat_template_kwargs: { greeting: 'Good morning', unread: [1, { a: null }] } }, `Good morning\n${turns}`);
  assert.equal([given.chatPrompt, given.chat], [given.textPrompt, given.text]);
  const plain = await chatAndText(greeting, { messages }, turns);
  assert.equal([plain.chatPrompt, plain.chat], [plain.textPrompt, plain.text]);
  assert.ok(given.chatPrompt > plain.chatPrompt);
});

test('what these fields cannot do is a 400 naming the field', async ({ s }) => {
  const user = { role: 'user', content: 'Hi' };
  const prefill = { role: 'assistant', content: 'Sure:' };
  const cases: [object, string, RegExp][] = [
    [{ messages: [user], continue_final_message: true }, 'continue_final_message', /last message to be the assistant's/],
    [{ messages: [user, { role: 'assistant', content: ' ' }], continue_final_message: true }, 'continue_final_message', /no text to continue/],
    [{ messages: [user, prefill], continue_final_message: true, add_generation_prompt: true }, 'add_generation_prompt', /opens a new assistant turn/],
    [{ messages: [user], add_generation_prompt: false }, 'add_generation_prompt', /only with continue_final_message/],
    [{ messages: [user, prefill], continue_final_message: true, response_format: { type: 'json_object' } }, 'continue_final_message', /output format/],
    [{ messages: [user, prefill], continue_final_message: true, guided_regex: 'a+' }, 'continue_final_message', /output format/],
    [{ messages: [user, prefill], continue_final_message: true, tools: [{ type: 'function', function: { name: 'f' } }] }, 'continue_final_message', /tools/],
    [{ messages: [user], chat_template_kwargs: { messages: [] } }, 'chat_template_kwargs.messages', /sets 'messages'/],
    [{ messages: [user], chat_template_kwargs: { add_generation_prompt: false } }, 'chat_template_kwargs.add_generation_prompt', /sets/],
    [{ messages: [user], chat_template_kwargs: 'x' }, 'chat_template_kwargs', /object/],
  ];
  for (const [fields, param, message] of cases) {
    const response = await post(`${s.url}/v1/chat/completions`, { model, max_tokens: 2, ...fields });
    assert.is(response.status, 400, `${JSON.stringify(fields)}: ${response.text}`);
    assert.is(response.json.error.param, param, response.text);
    assert.match(response.json.error.message, message);
  }
});

test.run();
