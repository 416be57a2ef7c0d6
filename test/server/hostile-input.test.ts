// A hostile-input battery: malformed, oversized, deeply nested, contradictory and
// unicode-garbage requests, sent while six streams run. Every one must get a 4xx in OpenAI's
// envelope naming the field at fault, nothing may 5xx or hang, the streams must complete,
// and the server's memory must come back to where it was.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { post, startTinyServer, TINY_MODEL_ID, type TinyServer } from '../helpers/tiny-server.js';
import { assertEnvelope } from '../helpers/api-errors.js';
import { testRandom } from '../helpers/test-random.js';

interface HostileCase {
  name: string;
  body: string | Buffer;
  status: number;
  /** The field the error must name; null where no one field is at fault (the JSON itself). */
  param: string | null;
  code?: string;
}

const valid = { model: TINY_MODEL_ID, messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 };
const json = (value: unknown) => JSON.stringify(value);
const nested = (depth: number, open: string, close: string, inner = '1') => open.repeat(depth) + inner + close.repeat(depth);

function hostileCases(): HostileCase[] {
  const random = testRandom(20261125);
  const cases: HostileCase[] = [];
  const add = (name: string, body: string | Buffer | object, status: number, param: string | null, code?: string) =>
    cases.push({ name, body: typeof body === 'string' || Buffer.isBuffer(body) ? body : json(body), status, param, ...(code ? { code } : {}) });

  // Malformed JSON: a valid body cut short anywhere, or with garbage after it.
  const text = json({ ...valid, temperature: 0.5, stop: ['\n\n'], response_format: { type: 'json_object' } });
  for (let i = 0; i < 40; i++) add(`truncated at ${i}`, text.slice(0, 1 + Math.floor(random() * (text.length - 2))), 400, null, 'invalid_json');
  for (const tail of ['}', ']', ',', 'x', '{}', '\u0000', "'", '/* */']) add(`trailing ${json(tail)}`, text + tail, 400, null, 'invalid_json');
  for (const garbage of ["{'model': 'x'}", '{"model": NaN}', '{"a": 1,}', '{model: 1}', '\u{1F4A9}', '{"model": "x" "messages": []}']) add(`not JSON ${garbage}`, garbage, 400, null, 'invalid_json');
  add('empty body', '', 400, null, 'invalid_json');
  add('invalid UTF-8', Buffer.concat([Buffer.from('{"model": "'), Buffer.from([0xc3, 0x28, 0xa0, 0xa1, 0xf0, 0x28, 0x8c, 0x28]), Buffer.from('"}')]), 400, null, 'invalid_json');
  for (const top of ['[]', '1', '"text"', 'null', 'true', '[{"model": "x"}]']) add(`top-level ${top}`, top, 400, null);

  // Wrong types, field by field.
  const wrongTypes: [string, unknown][] = [
    ['temperature', 'hot'], ['top_p', []], ['n', '2'], ['max_tokens', 1.5], ['stream', 'yes'], ['logprobs', 1],
    ['stop', 5], ['seed', 'a'], ['tools', {}], ['tool_choice', 5], ['response_format', 'json'], ['messages', {}],
    ['frequency_penalty', 'low'], ['presence_penalty', '1'], ['logit_bias', []], ['user', 7], ['ignore_eos', 'no'],
    ['stream_options', 'x'], ['parallel_tool_calls', 'true'], ['skip_special_tokens', 0], ['model', 42], ['top_logprobs', 'all'],
  ];
  for (const [field, value] of wrongTypes) add(`${field} of the wrong type`, { ...valid, [field]: value }, 400, field);

  // Out of range and oversized.
  const sized: [string, object, string][] = [
    ['n 1e8', { n: 100000000 }, 'n'], ['n 1e300', { n: 1e300 }, 'n'], ['n 2^32', { n: 4294967296 }, 'n'], ['n 5', { n: 5 }, 'n'], ['n 0', { n: 0 }, 'n'],
    ['max_tokens 0', { max_tokens: 0 }, 'max_tokens'], ['max_tokens 1e300', { max_tokens: 1e300 }, 'max_tokens'], ['max_tokens 600', { max_tokens: 600 }, 'max_tokens'], ['max_tokens 500', { max_tokens: 500 }, 'messages'],
    ['top_logprobs 21', { logprobs: true, top_logprobs: 21 }, 'top_logprobs'], ['top_logprobs -1', { logprobs: true, top_logprobs: -1 }, 'top_logprobs'],
    ['temperature 3', { temperature: 3 }, 'temperature'], ['top_p -0.1', { top_p: -0.1 }, 'top_p'], ['frequency_penalty 3', { frequency_penalty: 3 }, 'frequency_penalty'],
    ['logit_bias 1025 entries', { logit_bias: Object.fromEntries(Array.from({ length: 1025 }, (_, i) => [String(i), 1])) }, 'logit_bias'],
    ['logit_bias 101', { logit_bias: { '5': 101 } }, 'logit_bias[5]'], ['logit_bias token beyond the vocabulary', { logit_bias: { '99999999': 1 } }, 'logit_bias'],
    ['17 stop strings', { stop: Array.from({ length: 17 }, (_, i) => `s${i}`) }, 'stop'], ['a 2000-character stop', { stop: 'x'.repeat(2000) }, 'stop'], ['an empty stop', { stop: '' }, 'stop'],
    ['4097 messages', { messages: Array.from({ length: 4097 }, () => ({ role: 'user', content: 'a' })) }, 'messages'], ['no messages', { messages: [] }, 'messages'],
    ['129 tools', { tools: Array.from({ length: 129 }, (_, i) => ({ type: 'function', function: { name: `f${i}` } })) }, 'tools'],
    ['a 300-character user', { user: 'u'.repeat(300) }, 'user'], ['a long prompt', { messages: [{ role: 'user', content: 'lorem ipsum '.repeat(400) }] }, 'messages'],
    ['seed 2^60', { seed: 2 ** 60 }, 'seed'],
  ];
  for (const [name, fields, param] of sized) add(name, { ...valid, ...fields }, 400, param);
  add('a body over the size limit', { ...valid, messages: [{ role: 'user', content: 'x'.repeat(1.5 * 2 ** 20) }] }, 413, null, 'request_too_large');

  // Deeply nested, everywhere a client can nest.
  for (const depth of [257, 300, 2000, 10000]) {
    const deepSchema = nested(depth, '{"properties": {"a": ', '}}', '{}');
    const head = `{"model": "${TINY_MODEL_ID}", "messages": [{"role": "user", "content": "hi"}]`;
    add(`schema nested ${depth}`, `${head}, "response_format": {"type": "json_schema", "json_schema": {"name": "d", "schema": ${deepSchema}}}}`, 400, 'response_format', 'nesting_too_deep');
    add(`tool parameters nested ${depth}`, `${head}, "tools": [{"type": "function", "function": {"name": "f", "parameters": ${deepSchema}}}]}`, 400, 'tools[0]', 'nesting_too_deep');
    add(`structural tag nested ${depth}`, `${head}, "response_format": {"type": "structural_tag", "format": ${nested(depth, '{"type": "sequence", "elements": [', ']}', '{"type": "const_string", "value": "x"}')}}}`, 400, 'response_format', 'nesting_too_deep');
    add(`content nested ${depth}`, `{"model": "${TINY_MODEL_ID}", "messages": [{"role": "user", "content": ${nested(depth, '[', ']')}}]}`, 400, 'messages[0]', 'nesting_too_deep');
    add(`unknown field nested ${depth}`, `${head}, "extra": ${nested(depth, '[', ']')}}`, 400, 'extra[0]', 'nesting_too_deep');
  }

  // Contradictory fields.
  const tool = { type: 'function', function: { name: 'get', parameters: { type: 'object', properties: { a: { type: 'string' } } } } };
  const contradictions: [string, object, string][] = [
    ['top_logprobs without logprobs', { top_logprobs: 2 }, 'top_logprobs'],
    ['stream_options without stream', { stream_options: { include_usage: true } }, 'stream_options'],
    ['max_tokens against max_completion_tokens', { max_tokens: 2, max_completion_tokens: 3 }, 'max_completion_tokens'],
    ['tool_choice without tools', { tool_choice: 'auto' }, 'tool_choice'],
    ['parallel_tool_calls without tools', { parallel_tool_calls: false }, 'parallel_tool_calls'],
    ['a bad response_format beside tools', { tools: [tool], response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'strin' } } } }, 'response_format.json_schema.schema/type'],
    ['two tools of one name', { tools: [tool, tool] }, 'tools[1].function.name'],
    ['tool_choice naming a missing tool', { tools: [tool], tool_choice: { type: 'function', function: { name: 'nope' } } }, 'tool_choice.function.name'],
    ['tool parameters that are not an object', { tools: [{ type: 'function', function: { name: 'g', parameters: { type: 'string' } } }] }, 'tools[0].function.parameters/type'],
    ['a tool message without tool_call_id', { messages: [{ role: 'tool', content: 'x' }] }, 'messages[0].tool_call_id'],
    ['tool_calls on a user message', { messages: [{ role: 'user', content: 'x', tool_calls: [{ id: 'a', type: 'function', function: { name: 'get', arguments: '{}' } }] }] }, 'messages[0].tool_calls'],
    ['a message with no content', { messages: [{ role: 'user' }] }, 'messages[0].content'],
    ['json_schema without its wrapper', { response_format: { type: 'json_schema', schema: {} } }, 'response_format.schema'],
    ['a schema given as broken JSON text', { response_format: { type: 'json_object', schema: '{"type": ' } }, 'response_format.schema'],
    ['an EBNF grammar that does not parse', { response_format: { type: 'grammar', grammar: '"([' } }, 'response_format.grammar'],
    ['an EBNF grammar with an undefined rule', { response_format: { type: 'grammar', grammar: 'root ::= missing' } }, 'response_format.grammar'],
    ['a regex that does not parse', { response_format: { type: 'regex', pattern: '(' } }, 'response_format.pattern'],
    ['an unknown structural tag type', { response_format: { type: 'structural_tag', format: { type: 'nonsense' } } }, 'response_format.format/type'],
  ];
  for (const [name, fields, param] of contradictions) add(name, { ...valid, ...fields }, 400, param);

  // Unicode garbage in names, keys and enums.
  const garbage = ['\u{1F4A9}\u0000\u202E', '\uFFFD\uFFFE', 'm\u0301\u0301\u0301', '\u200B', 'ｍｏｄｅｌ', '\uD800x'];
  garbage.forEach((g, i) => {
    add(`model named ${json(g)}`, { ...valid, model: g }, 404, 'model', 'model_not_found');
    add(`role ${json(g)}`, { ...valid, messages: [{ role: g, content: 'hi' }] }, 400, 'messages[0].role');
    add(`field named ${json(g)}`, { ...valid, [`${g}${i}`]: 1 }, 400, `${g}${i}`);
    add(`tool named ${json(g)}`, { ...valid, tools: [{ type: 'function', function: { name: g } }] }, 400, 'tools[0].function.name');
    add(`response_format type ${json(g)}`, { ...valid, response_format: { type: g } }, 400, 'response_format.type');
  });
  return cases;
}

const test = suite<{ s: TinyServer }>('hostile input');

test.before(async (context) => {
  context.s = await startTinyServer({ server: { maxBodyBytes: 1 << 20 } });
});
test.after(async (context) => {
  await context.s.close();
});

/** One SSE stream to its end: the finish reason and the completion tokens it reports. */
async function runStream(url: string, seed: number): Promise<{ finish: string | null; tokens: number }> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: json({ ...valid, max_tokens: 300, ignore_eos: true, seed, stream: true, stream_options: { include_usage: true } }),
  });
  assert.is(response.status, 200);
  let finish: string | null = null;
  let tokens = -1;
  for (const line of (await response.text()).split('\n')) {
    if (!line.startsWith('data: {')) continue;
    const chunk = JSON.parse(line.slice(6));
    assert.not.ok(chunk.error, line);
    finish = chunk.choices[0]?.finish_reason ?? finish;
    if (chunk.usage) tokens = chunk.usage.completion_tokens;
  }
  return { finish, tokens };
}

function settledMemory(): { heap: number; rss: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const usage = process.memoryUsage();
  return { heap: usage.heapUsed, rss: usage.rss };
}

test('150+ hostile requests beside six streams: every one a 4xx envelope naming its field, the streams finish, memory returns', async ({ s }) => {
  const cases = hostileCases();
  assert.ok(cases.length >= 150, `${cases.length} cases`);
  // A first pass warms every path (compiled code, the grammar worker, allocator pools), so the
  // second measures what hostile requests leave behind, not what a first use allocates.
  const firstUse = settledMemory();
  for (const c of cases) await post(`${s.url}/v1/chat/completions`, c.body);
  await post(`${s.url}/v1/chat/completions`, valid);
  const before = settledMemory();

  // Settled at once, so a broken stream is reported below rather than as an unhandled rejection.
  const streams = Array.from({ length: 6 }, (_, i) => runStream(s.url, i).catch((error: Error) => ({ error: error.message })));
  const failures: string[] = [];
  let next = 0;
  // Eight clients at a time, each taking the next case until none are left.
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < cases.length) {
        const c = cases[next++]!;
        let response: Awaited<ReturnType<typeof post>> | undefined;
        try {
          response = await post(`${s.url}/v1/chat/completions`, c.body);
          assert.ok(response.status >= 400 && response.status < 500, `a 4xx, got ${response.status}`);
          const error = assertEnvelope(response, c.status);
          assert.is(error.param, c.param);
          if (c.code) assert.is(error.code, c.code);
        } catch (e) {
          failures.push(`${c.name}: ${(e as Error).message} ${response?.text.slice(0, 200) ?? ''}`);
        }
      }
    }),
  );
  assert.equal(failures, [], failures.join('\n'));
  for (const stream of await Promise.all(streams)) assert.equal(stream, { finish: 'length', tokens: 300 });
  const after = settledMemory();
  const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
  console.log(`  memory: first use ${mib(firstUse.heap)} heap / ${mib(firstUse.rss)} rss, before ${mib(before.heap)} / ${mib(before.rss)}, after ${mib(after.heap)} / ${mib(after.rss)}`);
  assert.ok(after.heap <= before.heap * 1.1, `heap ${mib(before.heap)} -> ${mib(after.heap)}`);
  assert.ok(after.rss <= before.rss * 1.1, `rss ${mib(before.rss)} -> ${mib(after.rss)}`);
  // And the server still answers normally.
  assert.is((await post(`${s.url}/v1/chat/completions`, valid)).status, 200);
});

test.run();
