// Output constrained by response_format, end to end: a tiny random-weight model (whose
// preferences are arbitrary) behind the real server, driven by the official client.
import { Ajv, type ValidateFunction } from 'ajv';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Grammar, GrammarCompiler, GrammarMatcher } from '../../compiler/index.js';
import { post, startTinyServer, TINY_MODEL_ID, type TinyServer } from '../helpers/tiny-server.js';
import { DISTINCT_ITEMS_SCHEMA } from '../helpers/distinct-items-schema.js';

const test = suite<{ s: TinyServer }>('constrained output');

test.before(async (context) => {
  context.s = await startTinyServer();
});
test.after(async (context) => {
  await context.s.close();
});

const messages = [{ role: 'user' as const, content: 'Describe a person.' }];
const person = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 10 },
    age: { type: 'integer', minimum: 0, maximum: 120 },
    tags: { type: 'array', items: { enum: ['a', 'b', 'c'] }, maxItems: 3 },
  },
  required: ['name', 'age'],
  additionalProperties: false,
};
const validPerson = new Ajv().compile(person);

/** A choice under `schema` for each seed (temperature 1), checked to end with the grammar and to validate. */
async function eachSeedValidates(s: TinyServer, schema: object, validate: ValidateFunction, seeds: number, maxTokens: number): Promise<unknown[]> {
  const values: unknown[] = [];
  for (let seed = 1; seed <= seeds; seed++) {
    const completion = await s.client.chat.completions.create({
      model: TINY_MODEL_ID,
      messages,
      max_tokens: maxTokens,
      seed,
      temperature: 1,
      response_format: { type: 'json_schema', json_schema: { name: 'checked', schema: schema as Record<string, unknown>, strict: true } },
    });
    const choice = completion.choices[0]!;
    assert.is(choice.finish_reason, 'stop', `seed ${seed}: the grammar's end finishes the choice (${choice.message.content})`);
    const value = JSON.parse(choice.message.content!);
    assert.ok(validate(value), `seed ${seed}: ${choice.message.content} (${JSON.stringify(validate.errors)})`);
    values.push(value);
  }
  return values;
}

test('every output under a JSON schema validates with ajv, for many seeds', async ({ s }) => {
  await eachSeedValidates(s, person, validPerson, 6, 200);
});

test('uniqueItems over an Enum (as pydantic writes a set of one) is served and enforced: every seed writes distinct items', async ({ s }) => {
  const schema = {
    $defs: { Color: { title: 'Color', type: 'string', enum: ['red', 'green', 'blue', 'cyan'] } },
    type: 'object',
    properties: { colors: { type: 'array', items: { $ref: '#/$defs/Color' }, uniqueItems: true, minItems: 2 } },
    required: ['colors'],
    additionalProperties: false,
  };
  const valid = new Ajv().compile(schema);
  for (const value of (await eachSeedValidates(s, schema, valid, 6, 100)) as { colors: string[] }[]) {
    assert.is(new Set(value.colors).size, value.colors.length, JSON.stringify(value));
  }
});

test('uniqueItems over free strings and numbers (a Set[str], a Set[int]) is served and held by the matcher: every seed writes distinct items', async ({ s }) => {
  const schema = {
    ...DISTINCT_ITEMS_SCHEMA,
    properties: { ...DISTINCT_ITEMS_SCHEMA.properties, tags: { type: 'array', items: { type: 'string', maxLength: 3 }, uniqueItems: true, maxItems: 4 } },
    required: [...DISTINCT_ITEMS_SCHEMA.required, 'tags'],
  };
  const valid = new Ajv().compile(schema);
  await eachSeedValidates(s, schema, valid, 6, 200);
});

test('a uniqueItems array that needs more items than its items can differ in fails the request as its own fault (400; the stream an error event), never ends it as if complete', async ({ s }) => {
  // Two strings under the pattern, three wanted: no count the compiler could make up front.
  const letters = { type: 'array', items: { type: 'string', pattern: '^[ab]$' }, uniqueItems: true, minItems: 3 };
  const body = { model: TINY_MODEL_ID, messages, max_tokens: 400, seed: 1, response_format: { type: 'json_schema', json_schema: { name: 'd', schema: letters } } };
  const whole = await post(`${s.url}/v1/chat/completions`, body);
  assert.is(whole.status, 400, JSON.stringify(whole.json));
  assert.is(whole.json.error.type, 'invalid_request_error');
  assert.match(whole.json.error.message, /the output format leaves no way on: every item its 'uniqueItems' arrays still need would repeat one already written/);
  const streamed = await fetch(`${s.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...body, stream: true }) });
  const events = await streamed.text();
  assert.match(events, /"error":\{"message":"generation failed: the output format leaves no way on[^"]*","type":"invalid_request_error"/);
  // Before the error, the two values each once.
  const written = [...events.matchAll(/"content":"((?:[^"\\]|\\.)*)"/g)].map((m) => JSON.parse(`"${m[1]}"`) as string).join('');
  assert.equal(written.match(/[ab]/g)?.sort(), ['a', 'b'], written);
  const counted = await post(`${s.url}/v1/chat/completions`, { ...body, response_format: { type: 'json_schema', json_schema: { name: 'd', schema: { type: 'array', items: { type: 'integer', minimum: 0, maximum: 3 }, uniqueItems: true, minItems: 5 } } } });
  assert.is(counted.status, 400, 'integers 0 to 3 hold only four: refused before any output');
  assert.match(counted.json.error.message, /'minItems' is 5, but with 'uniqueItems' the items take at most 4 distinct values/);
});

test("OpenAPI's formats, as pydantic and OpenAPI-made tools write them, are served and enforced: outputs validate with ajv-formats", async ({ s }) => {
  const { default: addFormats } = await import('ajv-formats');
  const record = {
    type: 'object',
    properties: {
      id: { type: 'integer', format: 'int64' },
      count: { type: 'number', format: 'int32' },
      ratio: { type: 'number', format: 'double' },
      blob: { type: 'string', format: 'binary', maxLength: 8 },
      secret: { type: 'string', format: 'password', writeOnly: true, maxLength: 8 },
      data: { type: 'string', format: 'byte', maxLength: 12 },
    },
    required: ['id', 'count', 'ratio', 'blob', 'secret', 'data'],
    additionalProperties: false,
  };
  const valid = (addFormats as unknown as (ajv: Ajv) => Ajv)(new Ajv()).compile(record);
  for (const value of (await eachSeedValidates(s, record, valid, 3, 300)) as { count: number }[]) {
    assert.ok(Number.isInteger(value.count) && Math.abs(value.count) <= 2 ** 31, `count ${value.count} is an int32`);
  }
});

test('json_object gives a JSON object; a schema given with it (as JSON text) is enforced', async ({ s }) => {
  for (let seed = 1; seed <= 3; seed++) {
    const free = await post(`${s.url}/v1/chat/completions`, { model: TINY_MODEL_ID, messages, max_tokens: 300, seed, response_format: { type: 'json_object' } });
    assert.is(free.status, 200);
    if (free.json.choices[0].finish_reason === 'stop') {
      const value = JSON.parse(free.json.choices[0].message.content);
      assert.ok(typeof value === 'object' && value !== null && !Array.isArray(value));
    } else {
      assert.match(free.json.choices[0].message.content, /^\s*\{/, 'cut by max_tokens, but an object so far');
    }
    const withSchema = await post(`${s.url}/v1/chat/completions`, { model: TINY_MODEL_ID, messages, max_tokens: 200, seed, response_format: { type: 'json_object', schema: JSON.stringify(person) } });
    assert.ok(validPerson(JSON.parse(withSchema.json.choices[0].message.content)));
  }
});

test('regex and EBNF grammar formats are followed exactly', async ({ s }) => {
  const pattern = '[A-Z][a-z]{2,5}-(19|20)\\d\\d';
  const ebnf = 'root ::= greeting " " name "!"\ngreeting ::= "hi" | "hello"\nname ::= [a-z]+';
  for (let seed = 1; seed <= 3; seed++) {
    const byRegex = await post(`${s.url}/v1/chat/completions`, { model: TINY_MODEL_ID, messages, max_tokens: 40, seed, response_format: { type: 'regex', pattern } });
    assert.match(byRegex.json.choices[0].message.content, new RegExp(`^(?:${pattern})$`));
    assert.is(byRegex.json.choices[0].finish_reason, 'stop');
    const byGrammar = await post(`${s.url}/v1/chat/completions`, { model: TINY_MODEL_ID, messages, max_tokens: 40, seed, response_format: { type: 'grammar', grammar: ebnf } });
    const text = byGrammar.json.choices[0].message.content;
    if (byGrammar.json.choices[0].finish_reason === 'stop') assert.match(text, /^(hi|hello) [a-z]+!$/);
    else assert.match(text, /^(hi|hello) [a-z]*$/, 'a prefix when max_tokens cuts it');
  }
});

test('every output under a structural tag is accepted by a fresh matcher', async ({ s }) => {
  const format = {
    type: 'sequence',
    elements: [
      { type: 'const_string', value: 'Answer: ' },
      { type: 'tag', begin: '<json>', content: { type: 'json_schema', json_schema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } }, end: '</json>' },
    ],
  };
  const matcherFor = () => new GrammarMatcher(new GrammarCompiler().compile(Grammar.fromStructuralTag({ type: 'structural_tag', format })));
  for (let seed = 1; seed <= 4; seed++) {
    const response = await post(`${s.url}/v1/chat/completions`, { model: TINY_MODEL_ID, messages, max_tokens: 120, seed, response_format: { type: 'structural_tag', format } });
    assert.is(response.status, 200, response.text);
    const text = response.json.choices[0].message.content;
    const matcher = matcherFor();
    assert.ok(matcher.acceptString(text), `seed ${seed}: ${JSON.stringify(text)}`);
    assert.ok(matcher.isCompleted(), `seed ${seed}: complete`);
  }
  // The spec's default: a response_format with a format and no type is a structural tag (a 400 before).
  const untyped = await post(`${s.url}/v1/chat/completions`, { model: TINY_MODEL_ID, messages, max_tokens: 120, seed: 1, response_format: { format } });
  assert.is(untyped.status, 200, untyped.text);
  const matcher = matcherFor();
  assert.ok(matcher.acceptString(untyped.json.choices[0].message.content) && matcher.isCompleted(), untyped.text);
  const noType = await post(`${s.url}/v1/chat/completions`, { model: TINY_MODEL_ID, messages, response_format: { schema: {} } });
  assert.is(noType.status, 400, 'without a format, type is still required');
  assert.is(noType.json.error.param, 'response_format.type');
});

test('streamed and whole constrained outputs agree for the same seed; n > 1 choices are each valid', async ({ s }) => {
  const body = { model: TINY_MODEL_ID, messages, max_tokens: 200, seed: 42, response_format: { type: 'json_schema', json_schema: { name: 'person', schema: person } } };
  const whole = await post(`${s.url}/v1/chat/completions`, body);
  const stream = await s.client.chat.completions.create({ ...(body as object), stream: true } as never);
  let text = '';
  for await (const chunk of stream as unknown as AsyncIterable<{ choices: { delta: { content?: string } }[] }>) text += chunk.choices[0]?.delta.content ?? '';
  assert.is(text, whole.json.choices[0].message.content);
  const three = await post(`${s.url}/v1/chat/completions`, { ...body, n: 3 });
  assert.is(three.json.choices.length, 3);
  for (const choice of three.json.choices) assert.ok(validPerson(JSON.parse(choice.message.content)), choice.message.content);
});

test('an invalid schema or tag is a 400 whose param points into response_format', async ({ s }) => {
  const ask = (response_format: object) => post(`${s.url}/v1/chat/completions`, { model: TINY_MODEL_ID, messages, response_format });
  const schema = await ask({ type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object', properties: { a: { type: 'array', items: { type: 'object' }, uniqueItems: true } } } } });
  assert.is(schema.status, 400);
  assert.is(schema.json.error.param, 'response_format.json_schema.schema/properties/a/uniqueItems');
  assert.is(schema.json.error.code, 'invalid_grammar');
  const notASchema = await ask({ type: 'json_schema', json_schema: { name: 'x', schema: { type: 'objekt' } } });
  assert.is(notASchema.status, 400);
  assert.match(notASchema.json.error.param, /^response_format\.json_schema\.schema/);
  const tag = await ask({ type: 'structural_tag', format: { type: 'sequence', elements: [{ type: 'const_string', value: 'a' }, { type: 'repeat', min: 3, max: 1, content: { type: 'const_string', value: 'b' } }] } });
  assert.is(tag.status, 400);
  assert.is(tag.json.error.param, 'response_format.format/elements/1/max');
  const unknownNode = await ask({ type: 'structural_tag', format: { type: 'sparkle' } });
  assert.is(unknownNode.status, 400);
  assert.match(unknownNode.json.error.param, /^response_format\.format\//);
  const regex = await ask({ type: 'regex', pattern: '(a)\\1' });
  assert.is(regex.status, 400);
  assert.is(regex.json.error.param, 'response_format.pattern');
  const field = await ask({ type: 'regex', regex: 'a' });
  assert.is(field.json.error.param, 'response_format.regex');
  const bad = await ask({ type: 'json_schema' });
  assert.is(bad.json.error.param, 'response_format.json_schema');
  // The server still serves, constrained or not.
  const after = await ask({ type: 'regex', pattern: 'ok' });
  assert.is(after.json.choices[0].message.content, 'ok');
});

test('stop strings and max_tokens keep working under a grammar', async ({ s }) => {
  const long = await post(`${s.url}/v1/chat/completions`, { model: TINY_MODEL_ID, messages, max_tokens: 3, seed: 3, response_format: { type: 'regex', pattern: '[a-z ]{30}' } });
  assert.is(long.json.choices[0].finish_reason, 'length');
  assert.is(long.json.usage.completion_tokens, 3);
  const stopped = await post(`${s.url}/v1/chat/completions`, { model: TINY_MODEL_ID, messages, max_tokens: 60, seed: 3, stop: ['b'], response_format: { type: 'regex', pattern: 'a{3}b{3}c' } });
  assert.is(stopped.json.choices[0].message.content, 'aaa');
  assert.is(stopped.json.choices[0].finish_reason, 'stop');
});

test.run();

const slow = suite('grammar deadline');

slow('a format that does not compile within the deadline is a 400, and the server serves on', async () => {
  const s = await startTinyServer({ engine: { grammarTimeoutMs: 1 } });
  try {
    const big = { type: 'object', properties: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`field${i}`, { type: 'string', pattern: '[a-z]{3,9}' }])) };
    const response = await post(`${s.url}/v1/chat/completions`, { model: TINY_MODEL_ID, messages, response_format: { type: 'json_schema', json_schema: { name: 'big', schema: big } } });
    assert.is(response.status, 400);
    assert.is(response.json.error.code, 'grammar_timeout');
    assert.is(response.json.error.param, 'response_format.json_schema.schema');
    const plain = await post(`${s.url}/v1/chat/completions`, { model: TINY_MODEL_ID, messages, max_tokens: 2 });
    assert.is(plain.status, 200);
  } finally {
    await s.close();
  }
});

slow.run();

const cached = suite('grammar cache on disk');

cached('a compiled format is stored by its hash and read back by a fresh engine', async () => {
  const { mkdtempSync, readdirSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dir = mkdtempSync(join(tmpdir(), 'lmforge-grammars-'));
  const body = { model: TINY_MODEL_ID, messages, max_tokens: 20, seed: 9, response_format: { type: 'regex', pattern: '[a-z]{4}-\\d{3}' } };
  const first = await startTinyServer({ engine: { grammarCacheDir: dir } });
  let text: string;
  try {
    text = (await post(`${first.url}/v1/chat/completions`, body)).json.choices[0].message.content;
  } finally {
    await first.close();
  }
  const files = readdirSync(dir);
  assert.is(files.length, 1);
  assert.match(files[0]!, /^spec-[0-9a-f]{64}\.lmgrammar$/);
  const second = await startTinyServer({ engine: { grammarCacheDir: dir } });
  try {
    const again = await post(`${second.url}/v1/chat/completions`, body);
    assert.is(again.json.choices[0].message.content, text);
    assert.match(text, /^[a-z]{4}-\d{3}$/);
  } finally {
    await second.close();
  }
});

cached('logprobs under a grammar report only tokens the grammar allows', async () => {
  const s = await startTinyServer();
  try {
    const response = await post(`${s.url}/v1/chat/completions`, { model: TINY_MODEL_ID, messages, max_tokens: 8, seed: 2, logprobs: true, top_logprobs: 5, response_format: { type: 'regex', pattern: '[0-9]+' } });
    for (const entry of response.json.choices[0].logprobs.content) {
      assert.match(entry.token, /^[0-9]+$/);
      for (const top of entry.top_logprobs) assert.match(top.token, /^[0-9]+$/, 'a masked token is never listed');
    }
  } finally {
    await s.close();
  }
});

cached.run();
