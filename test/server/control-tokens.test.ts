// Control tokens the model writes on its own are markup, not content: their text stays out
// unless the request asks for it (skip_special_tokens: false), and one that opens a new turn
// (SmolLM2 writing <|im_start|> after its answer) ends the choice. A grammar that names a
// control token keeps it. On the default model, whose template and special tokens are real.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startDefaultModelServer, type TinyServer } from '../helpers/tiny-server.js';

const test = suite<{ s: TinyServer; id: (text: string) => number }>('control tokens');

test.before(async (context) => {
  context.s = await startDefaultModelServer();
  const texts = context.s.engine.info.tokenTexts;
  context.id = (text) => {
    const id = texts.indexOf(text);
    assert.ok(id >= 0, text);
    return id;
  };
});
test.after(async (context) => {
  await context.s.close();
});

const messages = [{ role: 'user' as const, content: 'Say hi.' }];

async function complete(s: TinyServer, extra: Record<string, unknown>) {
  const body = { model: 'smollm2', messages, temperature: 0, max_tokens: 4, ...extra };
  return (await s.client.chat.completions.create(body as never)) as any;
}

test('a turn-opening control token ends the choice and is not content', async ({ s, id }) => {
  for (const skip of [true, false]) {
    const reply = await complete(s, { logit_bias: { [id('<|im_start|>')]: 100 }, skip_special_tokens: skip });
    assert.is(reply.choices[0].message.content, '');
    assert.is(reply.choices[0].finish_reason, 'stop');
    assert.is(reply.usage.completion_tokens, 1);
  }
  // Streamed the same way.
  const stream = await s.client.chat.completions.create({ model: 'smollm2', messages, max_tokens: 4, logit_bias: { [id('<|im_start|>')]: 100 }, stream: true });
  let text = '';
  let finish: string | null | undefined;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta.content ?? '';
    finish = chunk.choices[0]?.finish_reason ?? finish;
  }
  assert.is(text, '');
  assert.is(finish, 'stop');
});

test('other control tokens are left out of content unless skip_special_tokens is false', async ({ s, id }) => {
  const bias = { [id('<repo_name>')]: 100 };
  const skipped = await complete(s, { logit_bias: bias });
  assert.is(skipped.choices[0].message.content, '');
  assert.is(skipped.choices[0].finish_reason, 'length');
  assert.is(skipped.usage.completion_tokens, 4);
  const kept = await complete(s, { logit_bias: bias, skip_special_tokens: false });
  assert.is(kept.choices[0].message.content, '<repo_name>'.repeat(4));
});

test('a grammar that names a control token keeps its text', async ({ s }) => {
  const format = { type: 'structural_tag', format: { type: 'sequence', elements: [{ type: 'token', token: '<repo_name>' }, { type: 'const_string', value: 'lmforge' }] } };
  const reply = await complete(s, { response_format: format, max_tokens: 16 });
  assert.is(reply.choices[0].message.content, '<repo_name>lmforge');
  assert.is(reply.choices[0].finish_reason, 'stop');
});

test('skip_special_tokens must be a boolean', async ({ s }) => {
  const response = await fetch(`${s.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'smollm2', messages, skip_special_tokens: 'no' }),
  });
  assert.is(response.status, 400);
  assert.is(((await response.json()) as any).error.param, 'skip_special_tokens');
});

test.run();
