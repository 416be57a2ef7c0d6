// JSON output ends, through a real server and a real random-weight model: under JSON mode and
// every schema of fixtures/schemas, generation stops with the value, long before max_tokens.
// The model is the tiny fixture (random weights) with a taste for whitespace, as small real
// models show it (SmolLM2 closed a pydantic object, then wrote "\n" and "\t" until max_tokens;
// another model wrote only whitespace): logit_bias puts whitespace tokens above everything
// but quotes and closing brackets, and the stop token below whitespace. With whitespace
// unbounded or allowed after the value, such a model never stops. The bias on closers keeps
// the random walk inside values short; a string that must match a pattern or format is still
// a random walk until it happens to match, so for those only the shape of the output is
// checked (no whitespace after the value, none beyond the bound), over a few tokens. So it is
// for length bounds above 128 (counted repeats), whose masks take ~0.2 s a token with this
// vocabulary: a slowness of its own, not of whitespace.
import { readdirSync, readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tokenizerInfoFromGGUF } from '../../compiler/node.js';
import { tinyModelPath } from '../../fixtures/paths.js';
import { isBoundedRun, whitespaceRuns } from '../compiler/json-layout.js';
import { post, startTinyServer, TINY_MODEL_ID, type TinyServer } from '../helpers/tiny-server.js';

const test = suite<{ s: TinyServer; bias: Record<string, number> }>('json output ends');
const MAX_TOKENS = 1500;

test.before(async (context) => {
  // Room for four sequences of max_tokens at once (two requests of two choices).
  context.s = await startTinyServer({ engine: { overrides: { context_window_size: 2048, max_total_seq_length: 4 * 2048 } } });
  const info = await tokenizerInfoFromGGUF(tinyModelPath);
  const decoder = new TextDecoder();
  const bias: Record<string, number> = {};
  for (let id = 0; id < info.numTokens; id++) {
    const text = decoder.decode(info.tokenBytes(id));
    if (/^[ \t\r\n]+$/.test(text)) bias[id] = 60;
    else if (text === '"' || text === '}' || text === ']') bias[id] = 100;
  }
  for (const id of info.stopTokens) bias[id] = 30;
  context.bias = bias;
});
test.after(async (context) => {
  await context.s.close();
});

const dir = new URL('../../fixtures/schemas/', import.meta.url);
const schemas = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((file) => ({ file, schema: JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as unknown }));

/** Random walks (patterns, formats) and counted repeats: see the top of the file. */
function shapeOnly(schema: unknown): boolean {
  const text = JSON.stringify(schema);
  return /"(pattern|format)"/.test(text) || [...text.matchAll(/"(minLength|maxLength|minItems|maxItems)":(\d+)/g)].some((m) => Number(m[2]) > 128);
}

async function run(s: TinyServer, bias: Record<string, number>, response_format: object, maxTokens = MAX_TOKENS, n = 2) {
  // Two seeds, two choices each: four samples.
  return Promise.all(
    [1, 2].map(async (seed) => {
      const r = await post(`${s.url}/v1/chat/completions`, { model: TINY_MODEL_ID, messages: [{ role: 'user', content: 'Answer in JSON.' }], max_tokens: maxTokens, n, seed, logit_bias: bias, response_format });
      assert.is(r.status, 200, r.text);
      return r.json as { choices: { finish_reason: string; message: { content: string } }[]; usage: { completion_tokens: number } };
    }),
  );
}

function checkLayout(label: string, text: string): void {
  const runs = whitespaceRuns(text);
  assert.not.ok(runs.trailing || runs.leading, `${label}: whitespace around the value: ${JSON.stringify(text)}`);
  for (const r of runs.inner) assert.ok(isBoundedRun(r), `${label}: a run beyond the bound: ${JSON.stringify(r)}`);
}

test('JSON mode and every fixture schema: the output stops with the value', async ({ s, bias }) => {
  assert.ok(schemas.length >= 50);
  const cases = [{ file: 'json_object', schema: null as unknown }, ...schemas];
  for (const { file, schema } of cases) {
    const format = schema === null ? { type: 'json_object' } : { type: 'json_schema', json_schema: { name: 'x', schema } };
    const randomWalk = schema !== null && shapeOnly(schema);
    for (const response of await (randomWalk ? run(s, bias, format, 24, 1) : run(s, bias, format))) {
      for (const choice of response.choices) {
        const text = choice.message.content;
        if (randomWalk && choice.finish_reason === 'length') {
          // Cut inside a string that has not matched yet, never in whitespace beyond the bound.
          const runs = whitespaceRuns(text);
          assert.not.ok(runs.leading, `${file}: whitespace before the value`);
          for (const r of [...runs.inner, ...(runs.trailing ? [text.slice(text.trimEnd().length)] : [])]) assert.ok(isBoundedRun(r), `${file}: ${JSON.stringify(text.slice(0, 60))}`);
          continue;
        }
        assert.is(choice.finish_reason, 'stop', `${file}: ${JSON.stringify(text.slice(-60))}`);
        JSON.parse(text);
        checkLayout(file, text);
      }
      if (!randomWalk) assert.ok(response.usage.completion_tokens < (2 * MAX_TOKENS) / 3, `${file}: ${response.usage.completion_tokens} tokens for two choices`);
    }
  }
});

test('max_whitespace: null lifts the bound on runs, still nothing after the value', async ({ s, bias }) => {
  // Unbounded, the whitespace-loving model opens the object (nothing may come before it), and
  // soon writes whitespace until max_tokens ends it.
  for (const response of await run(s, bias, { type: 'json_object', max_whitespace: null })) {
    for (const choice of response.choices) {
      assert.is(choice.finish_reason, 'length');
      const text = choice.message.content;
      assert.ok(text.startsWith('{') && /[ \t\r\n]{100,}$/.test(text), JSON.stringify(text));
    }
  }
  const bad = await post(`${s.url}/v1/chat/completions`, { model: TINY_MODEL_ID, messages: [{ role: 'user', content: 'hi' }], response_format: { type: 'json_object', max_whitespace: -1 } });
  assert.is(bad.status, 400);
  assert.is(bad.json.error.param, 'response_format.max_whitespace');
  const two = await run(s, bias, { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] } }, max_whitespace: 2 });
  for (const response of two) for (const choice of response.choices) assert.ok(whitespaceRuns(choice.message.content).inner.every((r) => isBoundedRun(r, 2)), choice.message.content);
});

test.run();
