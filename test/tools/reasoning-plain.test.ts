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

test.run();
