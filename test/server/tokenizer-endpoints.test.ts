// The tokenizer endpoints in vLLM's shapes (POST /tokenize, POST /detokenize, GET
// /tokenizer_info) on the tiny model, and the loglikelihood request lm-evaluation-harness's
// `local-completions` builds from them: its remote tokenizer encodes context and continuation
// here, sends the joined token ids with echo, max_tokens 1 and logprobs 1, and reads the
// continuation's part of the lists.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { post, startTinyServer, TINY_MODEL_ID, type TinyServer } from '../helpers/tiny-server.js';

const test = suite<{ s: TinyServer }>('tokenizer endpoints');

test.before(async (context) => {
  context.s = await startTinyServer();
});
test.after(async ({ s }) => {
  await s.close();
});

const model = TINY_MODEL_ID;
const text = 'Once upon a time there was a fox';

test('tokenize gives the tokens a prompt is computed from: sent back as token ids they complete as the text does', async ({ s }) => {
  const tokenized = await post(`${s.url}/tokenize`, { model, prompt: text });
  assert.is(tokenized.status, 200, tokenized.text);
  const { tokens, count, max_model_len, token_strs } = tokenized.json;
  assert.is(count, tokens.length);
  assert.is(max_model_len, s.engine.info.config.contextWindowSize);
  assert.is(token_strs, null);
  const fromText = await s.client.completions.create({ model, prompt: text, max_tokens: 6, temperature: 0 });
  const fromTokens = await s.client.completions.create({ model, prompt: tokens, max_tokens: 6, temperature: 0 });
  assert.is(fromText.usage!.prompt_tokens, count);
  assert.is(fromTokens.choices[0]!.text, fromText.choices[0]!.text);
});

test('token texts join to the text; detokenize gives it back; special-token text is its token', async ({ s }) => {
  const { json } = await post(`${s.url}/tokenize`, { prompt: text, add_special_tokens: false, return_token_strs: true });
  assert.is(json.token_strs.length, json.tokens.length);
  assert.is(json.token_strs.join(''), text);
  const back = await post(`${s.url}/detokenize`, { model, tokens: json.tokens });
  assert.equal([back.status, back.json], [200, { prompt: text }]);
  const info = (await (await fetch(`${s.url}/tokenizer_info`)).json()) as { eos_token: string };
  // lm-evaluation-harness takes the EOS id as the first token of the EOS text.
  const eos = await post(`${s.url}/tokenize`, { prompt: info.eos_token, add_special_tokens: false });
  assert.equal(eos.json.tokens, [s.engine.info.endOfGeneration.includes(eos.json.tokens[0]) ? eos.json.tokens[0] : -1]);
});

test('tokenizer_info: the facts in a Hugging Face config\'s keys, the chat template requests are rendered with', async ({ s }) => {
  const response = await fetch(`${s.url}/tokenizer_info`);
  assert.is(response.status, 200);
  const info = (await response.json()) as Record<string, any>;
  assert.is(info.model_max_length, s.engine.info.config.contextWindowSize);
  assert.is(info.eos_token, s.engine.info.eosText);
  assert.is(info.add_bos_token, s.engine.info.addBos);
  assert.type(info.chat_template, 'string');
  assert.ok(info.chat_template.includes('{%') || info.chat_template.includes('{{'), 'a Jinja template');
  assert.ok('pad_token' in info && 'bos_token' in info);
});

test('the loglikelihood request lm-evaluation-harness builds: the continuation\'s logprobs and whether it is greedy', async ({ s }) => {
  const encode = async (piece: string) => (await post(`${s.url}/tokenize`, { prompt: piece, add_special_tokens: false })).json.tokens as number[];
  const context = await encode('The capital of France is');
  const continuation = await encode(' Paris');
  const response = await post(`${s.url}/v1/completions`, { model, prompt: [[...context, ...continuation], context], temperature: 0, max_tokens: 1, logprobs: 1, seed: 1234, echo: true });
  assert.is(response.status, 200, response.text);
  const [first, second] = response.json.choices;
  assert.is(first.logprobs.tokens.length, context.length + continuation.length + 1);
  assert.is(second.logprobs.tokens.length, context.length + 1);
  // What the harness sums: the continuation's part, the generated token left off.
  const scores: number[] = first.logprobs.token_logprobs.slice(context.length, -1);
  const tops: Record<string, number>[] = first.logprobs.top_logprobs.slice(context.length, -1);
  assert.is(scores.length, continuation.length);
  for (const [i, score] of scores.entries()) {
    assert.ok(score < 0 && Number.isFinite(score), String(score));
    assert.ok(Math.max(...Object.values(tops[i]!)) >= score, JSON.stringify(tops[i]));
  }
  // The context scores the same alone as in front of the continuation (both computed whole).
  first.logprobs.token_logprobs.slice(1, context.length).forEach((score: number, i: number) => assert.ok(Math.abs(score - second.logprobs.token_logprobs[i + 1]) <= 1e-2, `position ${i + 1}`));
});

test("vLLM's chat form: a conversation's tokens are those its chat completion computes (template, tools, continuation and generation prompt as sent)", async ({ s }) => {
  const tokenize = async (body: object) => {
    const reply = await post(`${s.url}/tokenize`, body);
    assert.is(reply.status, 200, reply.text);
    return reply.json as { count: number; tokens: number[]; token_strs: string[] | null };
  };
  const turns = (...parts: [string, string][]) => parts.map(([role, content]) => `<|im_start|>${role}\n${content}<|im_end|>\n`).join('');
  const messages = [{ role: 'user', content: 'Hello there' }, { role: 'assistant', content: 'Hi! How can I help?' }, { role: 'user', content: 'Tell me a story.' }];
  const history = turns(['user', 'Hello there'], ['assistant', 'Hi! How can I help?'], ['user', 'Tell me a story.']);
  const asked = await tokenize({ messages, return_token_strs: true });
  assert.equal(asked.tokens, (await tokenize({ prompt: `${history}<|im_start|>assistant\n` })).tokens);
  assert.is(asked.token_strs!.join(''), `${history}<|im_start|>assistant\n`);
  const chat = await s.client.chat.completions.create({ model, messages: messages as never, max_tokens: 1 });
  assert.is(asked.count, chat.usage!.prompt_tokens);
  assert.equal((await tokenize({ messages, add_generation_prompt: false })).tokens, (await tokenize({ prompt: history })).tokens);
  const prefill = [...messages, { role: 'assistant', content: 'Once upon' }];
  assert.equal((await tokenize({ messages: prefill, continue_final_message: true })).tokens, (await tokenize({ prompt: `${history}<|im_start|>assistant\nOnce upon` })).tokens);
  const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
  const withTools = await tokenize({ messages, tools });
  const toolChat = await s.client.chat.completions.create({ model, messages: messages as never, tools: tools as never, max_tokens: 1 });
  assert.is(withTools.count, toolChat.usage!.prompt_tokens);
  assert.ok(withTools.count > asked.count, 'the tools are in the prompt');
});

test('refusals name the field, with the right status', async ({ s }) => {
  const refused = async (path: string, body: object, status: number, param: string | null, pattern?: RegExp) => {
    const response = await post(`${s.url}${path}`, body);
    assert.is(response.status, status, `${path} ${JSON.stringify(body)}: ${response.text}`);
    assert.is(response.json.error.param, param, response.text);
    if (pattern) assert.match(response.json.error.message, pattern);
  };
  await refused('/tokenize', {}, 400, 'prompt', /Missing required parameter/);
  await refused('/tokenize', { prompt: 5 }, 400, 'prompt');
  await refused('/tokenize', { prompt: text, messages: [] }, 400, 'messages');
  await refused('/tokenize', { prompt: 'x '.repeat(600) }, 400, 'prompt', /maximum context length is 512 tokens/);
  await refused('/tokenize', { model: 'other', prompt: text }, 404, 'model');
  await refused('/detokenize', { tokens: [1, 60000] }, 400, 'tokens[1]', /vocabulary has tokens 0 to/);
  await refused('/detokenize', { tokens: [1, -1] }, 400, 'tokens[1]');
  await refused('/detokenize', { model: 'other', tokens: [1] }, 404, 'model');
  for (const [body, param] of [
    [{ prompt: text, messages: [{ role: 'user', content: 'x' }] }, 'messages'],
    [{ prompt: text, chat_template_kwargs: { a: 1 } }, 'chat_template_kwargs'],
    [{ messages: [{ role: 'user', content: 'x' }], add_special_tokens: false }, 'add_special_tokens'],
    [{ messages: [{ role: 'tool', content: 'x' }] }, 'messages[0].tool_call_id'],
    [{ messages: [{ role: 'user', content: 'x' }], continue_final_message: true }, 'continue_final_message'],
    [{ messages: [{ role: 'user', content: 'x '.repeat(600) }] }, 'messages'],
  ] as const) {
    const refused = await post(`${s.url}/tokenize`, body);
    assert.is(refused.status, 400, refused.text);
    assert.is(refused.json.error.param, param, refused.text);
  }
  // The server keeps serving.
  assert.is((await post(`${s.url}/tokenize`, { prompt: text })).status, 200);
});

test.run();
