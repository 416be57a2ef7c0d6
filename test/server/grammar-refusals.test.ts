// Output formats that could never produce an answer, or that are too deep or too large, are
// refused with a 400 `invalid_grammar` whose `param` names the place, over real HTTP; the
// server keeps serving. (A schema whose language is empty used to be "enforced": 200 with
// empty content; one nested 2,000 levels deep was a 500.)
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { post, startTinyServer, TINY_MODEL_ID, type TinyServer } from '../helpers/tiny-server.js';

const test = suite<{ s: TinyServer }>('grammar refusals');

test.before(async (context) => {
  context.s = await startTinyServer();
});
test.after(async (context) => {
  await context.s.close();
});

const messages = [{ role: 'user', content: 'hi' }];

async function refused(s: TinyServer, body: object, param: string, message: RegExp, code = 'invalid_grammar'): Promise<void> {
  const response = await post(`${s.url}/v1/chat/completions`, { model: TINY_MODEL_ID, messages, max_tokens: 8, ...body });
  assert.is(response.status, 400, response.text);
  assert.is(response.json.error.code, code, response.text);
  assert.is(response.json.error.param, param, response.text);
  assert.match(response.json.error.message, message);
}

const schema = (s: unknown) => ({ response_format: { type: 'json_schema', json_schema: { name: 'x', schema: s } } });

test('a schema, grammar, regex or tag with an empty language: 400 naming the place', async ({ s }) => {
  await refused(s, schema(false), 'response_format.json_schema.schema', /the schema is false/);
  await refused(s, schema({ type: 'object', properties: { a: { type: 'integer', minimum: 5, maximum: 3 } }, required: ['a'] }), 'response_format.json_schema.schema/properties/a', /'minimum' \(5\) is greater than 'maximum' \(3\)/);
  await refused(s, schema({ type: 'object', properties: { a: { $ref: '#' } }, required: ['a'] }), 'response_format.json_schema.schema/properties/a', /contain itself again/);
  await refused(s, schema({ $ref: '#' }), 'response_format.json_schema.schema', /contain itself again/);
  await refused(s, { response_format: { type: 'json_object', schema: { type: 'string', enum: [1, 2] } } }, 'response_format.schema', /none of the 'enum' values/);
  await refused(s, { response_format: { type: 'grammar', grammar: 'root ::= "a" root' } }, 'response_format.grammar', /line 1, column 1: the rule 'root' can never finish/);
  await refused(s, { response_format: { type: 'regex', pattern: 'a[]' } }, 'response_format.pattern', /matches no character/);
  await refused(s, { response_format: { type: 'structural_tag', format: { type: 'json_schema', json_schema: { type: 'string', minLength: 3, maxLength: 1 } } } }, 'response_format.format/json_schema', /'minLength' \(3\) is greater/);
  // A const outside the enum beside it (it used to pass alone: 200 with the const).
  await refused(s, schema({ type: 'object', properties: { a: { const: 'x', enum: ['y'] } }, required: ['a'] }), 'response_format.json_schema.schema/properties/a', /the 'const' value does not satisfy 'enum'/);
  // The model's end-of-generation token as output: the engine would end there (it used to: 200, stop, cut short).
  const endsEarly = { type: 'sequence', elements: [{ type: 'const_string', value: 'hi' }, { type: 'token', token: '<|endoftext|>' }, { type: 'const_string', value: ' there' }] };
  await refused(s, { response_format: { type: 'structural_tag', format: endsEarly } }, 'response_format.format/elements/1/token', /the token "<\|endoftext\|>" ends generation/);
  // Tool parameters are checked the same way, with their own code.
  const tool = { type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { n: { type: 'number', exclusiveMinimum: 2, exclusiveMaximum: 2 } }, required: ['n'] } } };
  await refused(s, { tools: [tool] }, 'tools[0].function.parameters/properties/n', /leave no value/, 'invalid_tool_schema');
});

test('a schema or tag nested too deep: 400 at the level where the limit is crossed, not a 500', async ({ s }) => {
  let deep: unknown = { type: 'integer' };
  for (let i = 0; i < 100; i++) deep = { type: 'array', items: deep };
  await refused(s, schema(deep), `response_format.json_schema.schema${'/items'.repeat(65)}`, /nest more than 64 levels/);
  let tag: unknown = { type: 'const_string', value: 'x' };
  for (let i = 0; i < 100; i++) tag = { type: 'optional', content: tag };
  await refused(s, { response_format: { type: 'structural_tag', format: tag } }, `response_format.format${'/content'.repeat(64)}`, /nest more than 64 levels/);
  await refused(s, { response_format: { type: 'grammar', grammar: `root ::= ${'('.repeat(100)}"a"${')'.repeat(100)}` } }, 'response_format.grammar', /groups nest more than 64/);
  // And it still serves.
  const ok = await post(`${s.url}/v1/chat/completions`, { model: TINY_MODEL_ID, messages, max_tokens: 8, response_format: { type: 'regex', pattern: 'ok' } });
  assert.is(ok.json.choices[0].message.content, 'ok');
});

test('a format that would expand beyond the size limit: 400 naming the limit, at once, and the server goes on', async ({ s }) => {
  const started = performance.now();
  await refused(s, { response_format: { type: 'regex', pattern: 'a{1000000}' } }, 'response_format.pattern', /'a\{1000000\}' at offset 0 would expand to 1000001 automaton states .*more than 1000000 \(the limit on what a grammar may expand to\)/);
  // Found from the bound alone (it was a 200 after seconds of forced output).
  assert.ok(performance.now() - started < 5000, `refused in ${performance.now() - started} ms`);
  await refused(s, schema({ type: 'object', properties: { notes: { type: 'array', maxItems: 1_000_000, items: { type: 'string' } } } }), 'response_format.json_schema.schema/properties/notes/maxItems', /'maxItems' \(1000000\) would expand to \d+ automaton states/);
  await refused(s, { response_format: { type: 'grammar', grammar: 'root ::= ("ab"{1000}){1000}' } }, 'response_format.grammar', /line 1, column 22: the repetition '\{1000\}' would expand to 2000001/);
  const ok = await post(`${s.url}/v1/chat/completions`, { model: TINY_MODEL_ID, messages, max_tokens: 8, response_format: { type: 'regex', pattern: 'a{3}' } });
  assert.is(ok.status, 200, ok.text);
  assert.is(ok.json.choices[0].message.content, 'aaa');
});

test.run();
