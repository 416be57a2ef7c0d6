// On a reasoning model, the stream accumulates to exactly the whole response for the same seed:
// reasoning_content, content, calls and finish reason, with and without tools, under a
// response_format, and when max_tokens cuts the thinking short.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CLOSE_THINKING_BIAS, startThinkServer } from './reasoning-helpers.js';
import { post, TINY_MODEL_ID, type TinyServer } from '../helpers/tiny-server.js';

const test = suite<{ s: TinyServer }>('reasoning streamed equals whole');

test.before(async (context) => {
  context.s = await startThinkServer();
});
test.after(async (context) => {
  await context.s.close();
});

const tools = [{ type: 'function', function: { name: 'note', parameters: { type: 'object', properties: { text: { type: 'string', maxLength: 16 } }, required: ['text'] } } }];
const CASES: { label: string; body: object }[] = [
  { label: 'required', body: { tools, tool_choice: 'required', max_tokens: 200 } },
  { label: 'named', body: { tools, tool_choice: { type: 'function', function: { name: 'note' } }, max_tokens: 200 } },
  { label: 'auto', body: { tools, max_tokens: 120 } },
  { label: 'no tools', body: { max_tokens: 120 } },
  { label: 'json_schema', body: { max_tokens: 200, response_format: { type: 'json_schema', json_schema: { name: 'n', schema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } } } } },
  { label: 'cut while thinking', body: { tools, tool_choice: 'required', max_tokens: 6 } },
];

interface Accumulated {
  reasoning_content: string;
  content: string;
  calls: { id: string; name: string; arguments: string }[];
  finish: string | null;
}

/** Reads the SSE stream and accumulates the deltas the way a client does. */
async function streamed(url: string, body: object): Promise<Accumulated> {
  const response = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...body, stream: true }) });
  const out: Accumulated = { reasoning_content: '', content: '', calls: [], finish: null };
  for (const line of (await response.text()).split('\n')) {
    if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
    const choice = JSON.parse(line.slice(6)).choices[0];
    if (!choice) continue;
    out.reasoning_content += choice.delta.reasoning_content ?? '';
    out.content += choice.delta.content ?? '';
    for (const call of choice.delta.tool_calls ?? []) {
      const entry = (out.calls[call.index] ??= { id: '', name: '', arguments: '' });
      entry.id += call.id ?? '';
      entry.name += call.function?.name ?? '';
      entry.arguments += call.function?.arguments ?? '';
    }
    out.finish = choice.finish_reason ?? out.finish;
  }
  return out;
}

test('streamed and whole agree for every mode and several seeds', async ({ s }) => {
  for (const { label, body } of CASES) {
    for (let seed = 1; seed <= 3; seed++) {
      const request = { model: TINY_MODEL_ID, messages: [{ role: 'user', content: 'Take a note.' }], seed, logit_bias: CLOSE_THINKING_BIAS, ...body };
      const whole = (await post(`${s.url}/v1/chat/completions`, request)).json.choices[0];
      const stream = await streamed(s.url, request);
      const at = `${label}, seed ${seed}`;
      assert.type(whole.message.reasoning_content, 'string', at);
      assert.is(stream.reasoning_content, whole.message.reasoning_content, at);
      assert.is(stream.content, whole.message.content ?? '', at);
      assert.is(stream.finish, whole.finish_reason, at);
      // Ids name the completion, so they differ between the two requests.
      const calls = (whole.message.tool_calls ?? []).map((call: any) => ({ name: call.function.name, arguments: JSON.stringify(call.function.arguments) }));
      const streamedCalls = stream.calls.slice(0, calls.length).map((call) => ({ name: call.name, arguments: JSON.stringify(JSON.parse(call.arguments)) }));
      assert.equal(streamedCalls, calls, at);
      assert.not.ok(whole.message.reasoning_content.includes('</think>'), `${at}: no marker in the reasoning`);
    }
  }
});

test.run();
