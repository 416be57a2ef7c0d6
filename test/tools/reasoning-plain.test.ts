// Answers without tools on a reasoning model: the thinking goes to reasoning_content and the
// rest to content, exactly as the raw tokens split at `</think>`; a response_format holds for
// the answer alone; `--reasoning off` (the server option) and a template without </think> leave
// the text whole in content.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CLOSE_THINKING_BIAS, rawText, startThinkServer } from './reasoning-helpers.js';
import { post, startTinyServer, TINY_MODEL_ID } from '../helpers/tiny-server.js';

const test = suite('reasoning without tools');
const request = (seed: number, extra: object = {}) => ({
  model: TINY_MODEL_ID, messages: [{ role: 'user', content: 'Hi' }], seed, max_tokens: 150, logprobs: true, logit_bias: CLOSE_THINKING_BIAS, ...extra,
});

test('reasoning_content and content are the raw text split at </think>', async () => {
  const s = await startThinkServer();
  try {
    for (let seed = 1; seed <= 4; seed++) {
      const choice = (await post(`${s.url}/v1/chat/completions`, request(seed))).json.choices[0];
      const raw = rawText(choice);
      const close = raw.indexOf('</think>');
      assert.ok(close >= 0, `seed ${seed}: the thinking ended`);
      assert.is(choice.message.reasoning_content, raw.slice(0, close).trim(), `seed ${seed}`);
      assert.is(choice.message.content, raw.slice(close + '</think>'.length).trimStart(), `seed ${seed}`);
    }
    const schema = { type: 'object', properties: { n: { type: 'integer', minimum: 0, maximum: 99 } }, required: ['n'], additionalProperties: false };
    for (let seed = 1; seed <= 3; seed++) {
      const body = request(seed, { max_tokens: 250, response_format: { type: 'json_schema', json_schema: { name: 'n', schema } } });
      const choice = (await post(`${s.url}/v1/chat/completions`, body)).json.choices[0];
      assert.is(choice.finish_reason, 'stop', `seed ${seed}: ${JSON.stringify(choice.message)}`);
      assert.type(JSON.parse(choice.message.content).n, 'number', 'the answer alone follows the schema');
      assert.ok(choice.message.reasoning_content.length > 0 || rawText(choice).startsWith('</think>'));
    }
  } finally {
    await s.close();
  }
});

test('reasoning off, or a template without </think>: no reasoning_content, all text in content', async () => {
  for (const s of [await startThinkServer({ reasoning: 'off' }), await startTinyServer()]) {
    try {
      const choice = (await post(`${s.url}/v1/chat/completions`, request(1, { max_tokens: 40 }))).json.choices[0];
      assert.not.ok('reasoning_content' in choice.message);
      assert.is(choice.message.content, rawText(choice));
    } finally {
      await s.close();
    }
  }
});

/** Tokens of the raw output up to the one whose bytes complete `</think>` (all of them when it never closes). */
function thinkingTokens(choice: { logprobs?: { content?: { bytes?: number[] | null }[] | null } | null }): number {
  const entries = choice.logprobs?.content ?? [];
  const bytes: number[] = [];
  for (const [i, entry] of entries.entries()) {
    bytes.push(...(entry.bytes ?? []));
    if (Buffer.from(bytes).toString('utf8').includes('</think>')) return i + 1;
  }
  return entries.length;
}

test('usage counts the thinking tokens (completion_tokens_details.reasoning_tokens), whole, streamed and in the Responses API', async () => {
  const s = await startThinkServer();
  try {
    for (let seed = 1; seed <= 3; seed++) {
      const whole = (await post(`${s.url}/v1/chat/completions`, request(seed))).json;
      const choice = whole.choices[0];
      const expected = thinkingTokens(choice);
      assert.ok(expected > 0 && expected < whole.usage.completion_tokens, `seed ${seed}: the thinking ended before the answer did`);
      assert.is(whole.usage.completion_tokens_details.reasoning_tokens, expected, `seed ${seed}`);
      const stream = await post(`${s.url}/v1/chat/completions`, request(seed, { stream: true, stream_options: { include_usage: true } }));
      const usage = stream.text.split('\n').filter((line) => line.startsWith('data: {')).map((line) => JSON.parse(line.slice(6))).findLast((chunk) => chunk.usage)?.usage;
      // The same answer streamed (its prompt now taken from the prefix cache).
      assert.equal([usage.completion_tokens, usage.completion_tokens_details], [whole.usage.completion_tokens, whole.usage.completion_tokens_details], `seed ${seed}: streamed`);
    }
    // The Responses API reports the same count, for the same greedy answer.
    const chat = (await post(`${s.url}/v1/chat/completions`, { model: TINY_MODEL_ID, messages: [{ role: 'user', content: 'Hi' }], temperature: 0, max_tokens: 30 })).json;
    const response = (await post(`${s.url}/v1/responses`, { model: TINY_MODEL_ID, input: 'Hi', temperature: 0, max_output_tokens: 30 })).json;
    assert.ok(chat.usage.completion_tokens_details.reasoning_tokens > 0);
    assert.is(response.usage.output_tokens_details.reasoning_tokens, chat.usage.completion_tokens_details.reasoning_tokens);
  } finally {
    await s.close();
  }
  // A model that does not think has no details to give.
  const plain = await startTinyServer();
  try {
    const usage = (await post(`${plain.url}/v1/chat/completions`, request(1, { max_tokens: 5 }))).json.usage;
    assert.is(usage.completion_tokens_details, undefined);
  } finally {
    await plain.close();
  }
});

test.run();
