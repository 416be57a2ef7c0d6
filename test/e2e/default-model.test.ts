// The default model (SmolLM2-135M-Instruct, pulled by `npm run fixtures` exactly as `lmforge pull`
// does) end to end: real template, real server, official client, a stable greedy answer.
import { Ajv } from 'ajv';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startDefaultModelServer, type TinyServer } from '../helpers/tiny-server.js';

const test = suite<{ s: TinyServer }>('default model');

test.before(async (context) => {
  context.s = await startDefaultModelServer();
});
test.after(async (context) => {
  await context.s.close();
});

const messages = [
  { role: 'system' as const, content: 'You are a helpful assistant.' },
  { role: 'user' as const, content: 'What is the capital of France?' },
];

test('a greedy answer to a fixed prompt is stable text, whole and streamed', async ({ s }) => {
  const whole = await s.client.chat.completions.create({ model: 'smollm2', messages, temperature: 0, max_tokens: 32 });
  assert.is(whole.choices[0]!.message.content, 'The capital of France is Paris.');
  assert.is(whole.choices[0]!.finish_reason, 'stop');
  const stream = await s.client.chat.completions.create({ model: 'smollm2', messages, temperature: 0, max_tokens: 32, stream: true });
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
  assert.is(text, 'The capital of France is Paris.');
});

test('the model\'s own chat template and end-of-turn token are used', async ({ s }) => {
  const info = s.engine.info;
  assert.match(info.chatTemplate!, /<\|im_start\|>/);
  assert.ok(info.endOfGeneration.length > 0);
  assert.is(info.architecture, 'llama');
  assert.is(info.contextLength, 8192);
});

test.run();

const json = suite<{ s: TinyServer }>('default model with a JSON schema');

json.before(async (context) => {
  context.s = await startDefaultModelServer();
});
json.after(async (context) => {
  await context.s.close();
});

json('answers a JSON-schema request with valid JSON', async ({ s }) => {
  const schema = {
    type: 'object',
    properties: { city: { type: 'string', maxLength: 40 }, country: { type: 'string', maxLength: 40 }, population_millions: { type: 'number', minimum: 0, maximum: 100 } },
    required: ['city', 'country', 'population_millions'],
    additionalProperties: false,
  };
  const completion = await s.client.chat.completions.create({
    model: 'smollm2',
    messages: [{ role: 'user', content: 'Give the capital of France as JSON with city, country and population in millions.' }],
    temperature: 0,
    max_tokens: 120,
    response_format: { type: 'json_schema', json_schema: { name: 'capital', schema, strict: true } },
  });
  const text = completion.choices[0]!.message.content!;
  assert.is(completion.choices[0]!.finish_reason, 'stop', text);
  const value = JSON.parse(text);
  assert.ok(new Ajv().compile(schema)(value), text);
  assert.type(value.city, 'string');
});

json('a pydantic model\'s schema and JSON mode end with the value, not with newlines until max_tokens', async ({ s }) => {
  // What `client.chat.completions.parse(..., response_format=CalendarEvent)` sends. Seed 11
  // completed the object in ~40 tokens, then wrote "\n" and "\t" up to max_tokens.
  const schema = {
    properties: { name: { title: 'Name', type: 'string' }, date: { title: 'Date', type: 'string' }, participants: { items: { type: 'string' }, title: 'Participants', type: 'array' } },
    required: ['name', 'date', 'participants'],
    title: 'CalendarEvent',
    type: 'object',
    additionalProperties: false,
  };
  const messages = [
    { role: 'system' as const, content: 'Extract the event information.' },
    { role: 'user' as const, content: 'Alice and Bob are going to a science fair on Friday.' },
  ];
  // Sampled at temperature 1, a 135M model may also ramble inside a value until max_tokens (seed
  // 13 in JSON mode does on some CPUs, whose kernels round differently): that is the model's
  // choice, not the grammar's. What must never happen is a value that is complete and then
  // padded: so an answer cut by max_tokens must still be an unfinished value without a long
  // whitespace run, and most answers must end by themselves. How long an answer that ends runs
  // is the model's choice too (196 tokens for one of these on an AMX Xeon, whose kernels round
  // otherwise than AVX2's): padding shows as whitespace, which the checks below bound.
  let ended = 0;
  for (const response_format of [{ type: 'json_schema', json_schema: { name: 'CalendarEvent', schema, strict: true } }, { type: 'json_object' }]) {
    for (const seed of [11, 12, 13]) {
      const completion = await s.client.chat.completions.create({ model: 'smollm2', messages, seed, max_tokens: 300, response_format: response_format as never });
      const text = completion.choices[0]!.message.content!;
      const where = `${response_format.type} seed ${seed}: ${JSON.stringify(text)}`;
      assert.ok(!/\n[ \t]{21}|[ \t]\n|\n\n/.test(text), `a whitespace run past the bound: ${where}`);
      if (completion.choices[0]!.finish_reason === 'stop') {
        ended++;
        assert.is(text, text.trimEnd(), 'nothing after the value');
        JSON.parse(text);
      } else {
        assert.is(completion.choices[0]!.finish_reason, 'length', where);
        assert.throws(() => JSON.parse(text), undefined, `a complete value that did not end the answer: ${where}`);
      }
    }
  }
  assert.ok(ended >= 4, `only ${ended} of 6 answers ended by themselves`);
});

json.run();
