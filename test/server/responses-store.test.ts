// Stored responses (Responses API `store`, default true) through the official `openai` client on
// the tiny model: previous_response_id goes on from a stored response exactly as if its
// conversation and output were sent again in input (the same prompt tokens and greedy text),
// without its instructions; a call in its output is answered by a function_call_output in the
// next input; GET and DELETE /v1/responses/{id} and its input_items; store: false keeps nothing; the store's byte
// budget lets the oldest go; and what is not stored is a 404 naming the field.
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertEnvelope } from '../helpers/api-errors.js';
import { post, startTinyServer, TINY_MODEL_ID, type TinyServer } from '../helpers/tiny-server.js';

const test = suite<{ s: TinyServer; small: TinyServer; none: TinyServer }>('stored responses');

test.before(async (context) => {
  context.s = await startTinyServer();
  // Room for two or three short responses (about 1.2 KB each, conversation and all).
  context.small = await startTinyServer({ server: { responsesStoreMaxBytes: 3_000 } });
  context.none = await startTinyServer({ server: { responsesStoreMaxBytes: 0 } });
});
test.after(async ({ s, small, none }) => {
  await s.close();
  await small.close();
  await none.close();
});

const model = TINY_MODEL_ID;
const greedy = { model, temperature: 0, max_output_tokens: 8 } as const;

async function request(s: TinyServer, method: string, path: string): Promise<{ status: number; json: any; text: string }> {
  const response = await fetch(`${s.url}${path}`, { method });
  const text = await response.text();
  return { status: response.status, json: JSON.parse(text), text };
}

/** An OpenAI error envelope with this status, naming `param` (and `code`, when given). */
function refused(response: { status: number; json: any; text: string }, status: number, param: string, code?: string): string {
  const error = assertEnvelope(response, status);
  assert.is(error.param, param, response.text);
  if (code !== undefined) assert.is(error.code, code, response.text);
  return error.message;
}

test('previous_response_id: the stored conversation and output come before input, as if sent again; instructions are not carried over', async ({ s }) => {
  const first = await s.client.responses.create({ ...greedy, input: 'My name is Ada.', instructions: 'Answer briefly.' });
  assert.is((first as { store?: boolean }).store, true);
  const next = await s.client.responses.create({ ...greedy, input: 'What is my name?', previous_response_id: first.id });
  assert.is(next.previous_response_id, first.id);
  // The same conversation sent whole: the first turn, the reply as it came, the new message.
  const whole = await s.client.responses.create({ ...greedy, input: [{ role: 'user', content: 'My name is Ada.' }, ...(first.output as ResponseInputItem[]), { role: 'user', content: 'What is my name?' }] });
  assert.is(next.usage!.input_tokens, whole.usage!.input_tokens);
  assert.is(next.output_text, whole.output_text);
  assert.ok(next.usage!.input_tokens > first.usage!.input_tokens + first.usage!.output_tokens - 20, 'the earlier turn is in the prompt');
  // With the first instructions sent again, the prompt grows by them: they were not carried over.
  const instructed = await s.client.responses.create({ ...greedy, input: 'What is my name?', previous_response_id: first.id, instructions: 'Answer briefly.' });
  assert.ok(instructed.usage!.input_tokens > next.usage!.input_tokens);
  // A chain: the third turn goes on from the second, which holds the first.
  const third = await s.client.responses.create({ ...greedy, input: 'And again?', previous_response_id: next.id });
  assert.ok(third.usage!.input_tokens > next.usage!.input_tokens + next.usage!.output_tokens);
});

test('GET returns the stored response as answered, streamed ones too; DELETE removes it; store: false keeps nothing', async ({ s }) => {
  // Compared as JSON: the client adds output_text to what it returns.
  const whole = (await post(`${s.url}/v1/responses`, { ...greedy, input: 'Tell me about foxes.', metadata: { run: 'get' } })).json;
  assert.equal((await request(s, 'GET', `/v1/responses/${whole.id}`)).json, whole);
  assert.is((await s.client.responses.retrieve(whole.id)).id, whole.id, 'the official client retrieves it');
  let last: any;
  for await (const event of await s.client.responses.create({ ...greedy, input: 'Tell me about owls.', stream: true })) {
    if (event.type === 'response.completed' || event.type === 'response.incomplete') last = event.response;
  }
  assert.ok(last);
  assert.equal((await request(s, 'GET', `/v1/responses/${last.id}`)).json, last);
  const deleted = await request(s, 'DELETE', `/v1/responses/${whole.id}`);
  assert.equal([deleted.status, deleted.json], [200, { id: whole.id, object: 'response', deleted: true }]);
  refused(await request(s, 'GET', `/v1/responses/${whole.id}`), 404, 'response_id', 'not_found');
  assert.is((await request(s, 'DELETE', `/v1/responses/${whole.id}`)).status, 404);
  const unkept = await s.client.responses.create({ ...greedy, input: 'Forget this.', store: false });
  assert.is((unkept as { store?: boolean }).store, false);
  assert.is((await request(s, 'GET', `/v1/responses/${unkept.id}`)).status, 404);
  const after = await post(`${s.url}/v1/responses`, { ...greedy, input: 'hi', previous_response_id: unkept.id });
  assert.match(refused(after, 404, 'previous_response_id', 'previous_response_not_found'), /not found/);
});

test('input_items: the items a response was generated from, each with an id, newest first, in pages; the official client pages through them', async ({ s }) => {
  const first = await s.client.responses.create({ ...greedy, input: [{ role: 'user', content: 'One.' }, { role: 'user', content: [{ type: 'input_text', text: 'Two.' }] }] });
  const second = await s.client.responses.create({ ...greedy, input: 'Three.', previous_response_id: first.id });
  const all = (await request(s, 'GET', `/v1/responses/${second.id}/input_items?order=asc&limit=100`)).json;
  // One, Two, the first reply (its own id), Three.
  assert.equal(all.data.map((item: any) => [item.type, item.role, item.content[0].type, item.content[0].text]), [
    ['message', 'user', 'input_text', 'One.'],
    ['message', 'user', 'input_text', 'Two.'],
    ['message', 'assistant', 'output_text', first.output_text],
    ['message', 'user', 'input_text', 'Three.'],
  ]);
  assert.is(all.data[2].id, first.output[0]!.id);
  assert.is(new Set(all.data.map((item: any) => item.id)).size, 4);
  assert.equal([all.first_id, all.last_id, all.has_more], [all.data[0].id, all.data[3].id, false]);
  // The same items listed by the first response keep their ids.
  const earlier = (await request(s, 'GET', `/v1/responses/${first.id}/input_items?order=asc`)).json;
  assert.equal(earlier.data, all.data.slice(0, 2));
  // Newest first by default; pages of 3 after an id.
  const page = (await request(s, 'GET', `/v1/responses/${second.id}/input_items?limit=3`)).json;
  assert.equal([page.data.map((item: any) => item.id), page.has_more], [all.data.slice(1).reverse().map((item: any) => item.id), true]);
  const next = (await request(s, 'GET', `/v1/responses/${second.id}/input_items?limit=3&after=${page.last_id}`)).json;
  assert.equal([next.data.map((item: any) => item.id), next.has_more], [[all.data[0].id], false]);
  const listed: string[] = [];
  for await (const item of s.client.responses.inputItems.list(second.id, { limit: 2 })) listed.push(item.id!);
  assert.equal(listed, all.data.map((item: any) => item.id).reverse());
  for (const [query, param] of [['limit=0', 'limit'], ['limit=101', 'limit'], ['order=up', 'order'], ['after=nope', 'after'], ['include=x', 'include'], ['limit=1&limit=2', 'limit']] as const) {
    refused(await request(s, 'GET', `/v1/responses/${second.id}/input_items?${query}`), 400, param);
  }
  refused(await request(s, 'GET', '/v1/responses/resp_nope/input_items'), 404, 'response_id', 'not_found');
});

test('a function call in the stored output is answered by a function_call_output in the next input; one left unanswered is a 400', async ({ s }) => {
  const tools = [{ type: 'function' as const, name: 'get_weather', parameters: { type: 'object', properties: { city: { enum: ['Paris', 'Rome'] } }, required: ['city'], additionalProperties: false }, strict: true }];
  const called = await s.client.responses.create({ ...greedy, max_output_tokens: 40, input: 'Weather in Paris?', tools, tool_choice: 'required' });
  const call = called.output.find((item) => item.type === 'function_call');
  assert.ok(call && call.type === 'function_call', JSON.stringify(called.output));
  const answered = await s.client.responses.create({ ...greedy, tools, previous_response_id: called.id, input: [{ type: 'function_call_output', call_id: call.call_id, output: '21 C, sunny' }] });
  assert.ok(answered.status !== 'failed' && answered.output.length > 0, JSON.stringify(answered));
  const unanswered = await post(`${s.url}/v1/responses`, { ...greedy, tools, previous_response_id: called.id, input: 'and Rome?' });
  assert.match(refused(unanswered, 400, 'input'), /previous response's function_call/);
  const stray = await post(`${s.url}/v1/responses`, { ...greedy, previous_response_id: called.id, input: [{ type: 'function_call_output', call_id: call.call_id, output: 'x' }, { type: 'function_call_output', call_id: 'nope', output: 'y' }] });
  refused(stray, 400, 'input[1].call_id');
});

test('the store keeps the newest within its byte budget; a server started with 0 stores nothing and refuses store: true', async ({ small, none }) => {
  const ids: string[] = [];
  let bytes = 0;
  for (const topic of ['foxes', 'owls', 'bears', 'wolves']) {
    const response = await small.client.responses.create({ ...greedy, input: `Tell me about ${topic}.` });
    ids.push(response.id);
    bytes += JSON.stringify(response).length;
  }
  assert.ok(bytes > 3_000 && bytes / 4 < 1_400, `4 responses of ${bytes} bytes: more than the budget, each well within it`);
  const kept = await Promise.all(ids.map(async (id) => (await request(small, 'GET', `/v1/responses/${id}`)).status));
  assert.equal(kept.slice(-2), [200, 200], 'the newest are kept');
  assert.is(kept[0], 404, 'the oldest made room');
  const plain = await none.client.responses.create({ ...greedy, input: 'hi' });
  assert.is((plain as { store?: boolean }).store, false);
  assert.is((await request(none, 'GET', `/v1/responses/${plain.id}`)).status, 404);
  refused(await post(`${none.url}/v1/responses`, { ...greedy, input: 'hi', store: true }), 400, 'store');
});

test.run();
