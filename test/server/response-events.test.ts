// ResponseEvents on its own: chat chunks in, Responses events out. An answer that thinks, says
// something and makes two calls becomes a reasoning item, a message and two function_call items,
// in that order, each opened and closed by the events the official SDK's accumulator accepts;
// logprobs go to the answer's text only.
import { accumulateResponse } from 'openai/lib/responses/ResponseAccumulator';
import type { Response, ResponseStreamEvent } from 'openai/resources/responses/responses';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ChatChunk, ChatChunkChoice } from '../../runtime/api/chat-completions/chat-chunks.js';
import { ResponseEvents } from '../../runtime/api/responses/response-events.js';
import { responseSettings } from '../../runtime/api/responses/response-object.js';
import { usageOf } from '../../runtime/api/usage.js';

const test = suite('response events');

const frame = { id: 'resp_abc', created: 0, model: 'm', system_fingerprint: 'f' };
const chunk = (delta: ChatChunkChoice['delta'], extra: Partial<ChatChunkChoice> = {}): ChatChunk => ({
  ...frame,
  object: 'chat.completion.chunk',
  choices: [{ index: 0, delta, logprobs: null, finish_reason: null, ...extra }],
});
const logprob = (token: string) => ({ token, logprob: -0.5, bytes: [...Buffer.from(token)], top_logprobs: [] });

function run(chunks: ChatChunk[], logprobs = false): { events: ResponseStreamEvent[]; response: Response } {
  const builder = new ResponseEvents(responseSettings({ model: 'm', input: 'hi' }, 'resp_abc', 'm', false), logprobs);
  const events = [...builder.opening(), ...chunks.flatMap((c) => builder.add(c)), ...builder.closing(usageOf(3, 9, 0))] as unknown as ResponseStreamEvent[];
  let snapshot: Response | undefined;
  for (const event of events) snapshot = accumulateResponse(event, snapshot);
  return { events, response: snapshot! };
}

test('thinking, text and two calls: four items in order, each closed before the next opens', () => {
  const { events, response } = run([
    chunk({ role: 'assistant', content: '', refusal: null }),
    chunk({ reasoning_content: 'Let me ' }),
    chunk({ reasoning_content: 'think.' }),
    chunk({ content: 'Calling.' }),
    chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'f', arguments: '' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '{"a":1}' } }] }),
    chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'g', arguments: '{}' } }] }),
    chunk({}, { finish_reason: 'tool_calls' }),
  ]);
  assert.equal(events.map((event) => event.sequence_number), events.map((_, i) => i));
  assert.equal(events.map((event) => event.type), [
    'response.created',
    'response.in_progress',
    'response.output_item.added',
    'response.content_part.added',
    'response.reasoning_text.delta',
    'response.reasoning_text.delta',
    'response.reasoning_text.done',
    'response.content_part.done',
    'response.output_item.done',
    'response.output_item.added',
    'response.content_part.added',
    'response.output_text.delta',
    'response.output_text.done',
    'response.content_part.done',
    'response.output_item.done',
    'response.output_item.added',
    'response.function_call_arguments.delta',
    'response.function_call_arguments.done',
    'response.output_item.done',
    'response.output_item.added',
    'response.function_call_arguments.delta',
    'response.function_call_arguments.done',
    'response.output_item.done',
    'response.completed',
  ]);
  assert.is(response.status, 'completed');
  assert.equal(response.output, [
    { id: 'rs_abc_0', type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: 'Let me think.' }] },
    { id: 'msg_abc_1', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Calling.', annotations: [] }] },
    { id: 'fc_abc_2', type: 'function_call', status: 'completed', call_id: 'call_a', name: 'f', arguments: '{"a":1}' },
    { id: 'fc_abc_3', type: 'function_call', status: 'completed', call_id: 'call_b', name: 'g', arguments: '{}' },
  ]);
  assert.equal(response.usage, { input_tokens: 3, input_tokens_details: { cached_tokens: 0 }, output_tokens: 9, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 12 });
});

test("logprobs: the answer's tokens, those held back included; the thinking's left out", () => {
  const { response } = run(
    [
      chunk({ reasoning_content: 'hm' }, { logprobs: { content: [logprob('hm')], refusal: null } }),
      chunk({}, { logprobs: { content: [logprob('Hel')], refusal: null } }),
      chunk({ content: 'Hello' }, { logprobs: { content: [logprob('lo')], refusal: null } }),
      chunk({}, { logprobs: { content: [logprob('!')], refusal: null } }),
      chunk({}, { finish_reason: 'length' }),
    ],
    true,
  );
  assert.is(response.status, 'incomplete');
  assert.equal(response.incomplete_details, { reason: 'max_output_tokens' });
  const message = response.output[1]!;
  if (message.type !== 'message' || message.content[0]!.type !== 'output_text') return assert.unreachable();
  assert.is(message.status, 'incomplete');
  assert.equal(message.content[0]!.logprobs!.map((entry) => entry.token), ['Hel', 'lo', '!']);
});

test.run();
