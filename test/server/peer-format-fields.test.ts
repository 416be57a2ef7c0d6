// Other servers' fields for constrained output (vLLM's structured_outputs and older guided_json,
// guided_regex, guided_choice, guided_grammar; SGLang's regex and ebnf; llama-server's grammar
// and json_schema), as clients written against those servers send them:
// each asks for the same language as its response_format twin, the answers follow it (chat and
// text completions, the official client, the tiny random-weight model), and a request that asks
// for two formats, or for what is not done here, gets a 400 naming the field.
import { Ajv } from 'ajv';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { GrammarCompiler, GrammarMatcher } from '../../compiler/index.js';
import { grammarFromSpec } from '../../runtime/grammar-service/grammar-spec.js';
import { grammarSpecOf } from '../../runtime/api/response-format.js';
import { peerFormatOf } from '../../runtime/api/peer-format-fields.js';
import { post, startTinyServer, TINY_MODEL_ID, type TinyServer } from '../helpers/tiny-server.js';

const test = suite<{ s: TinyServer }>('peer format fields');

test.before(async (context) => {
  context.s = await startTinyServer();
});
test.after(async (context) => {
  await context.s.close();
});

const model = TINY_MODEL_ID;
const messages = [{ role: 'user' as const, content: 'Answer.' }];
const schema = { type: 'object', properties: { a: { type: 'integer', minimum: 0, maximum: 99 }, ok: { type: 'boolean' } }, required: ['a', 'ok'], additionalProperties: false };
const tag = { type: 'structural_tag', format: { type: 'sequence', elements: [{ type: 'const_string', value: 'n=' }, { type: 'regex', pattern: '[0-9]{2}' }] } };

test('each field asks for the language of its response_format twin', () => {
  const same: [object, object][] = [
    [{ guided_json: schema }, { type: 'json_schema', json_schema: { name: 'x', schema } }],
    [{ structured_outputs: { json: JSON.stringify(schema) } }, { type: 'json_schema', json_schema: { name: 'x', schema } }],
    [{ structured_outputs: { json_object: true } }, { type: 'json_object' }],
    [{ guided_regex: '[a-c]+' }, { type: 'regex', pattern: '[a-c]+' }],
    [{ structured_outputs: { grammar: 'root ::= "x"+' } }, { type: 'grammar', grammar: 'root ::= "x"+' }],
    [{ guided_grammar: 'root ::= "x"+' }, { type: 'grammar', grammar: 'root ::= "x"+' }],
    [{ structured_outputs: { structural_tag: tag } }, { type: 'structural_tag', format: tag.format }],
    [{ structured_outputs: { structural_tag: JSON.stringify({ format: tag.format }) } }, { type: 'structural_tag', format: tag.format }],
    [{ regex: '[a-c]+' }, { type: 'regex', pattern: '[a-c]+' }],
    [{ ebnf: 'root ::= "x"+' }, { type: 'grammar', grammar: 'root ::= "x"+' }],
    [{ grammar: 'root ::= "x"+' }, { type: 'grammar', grammar: 'root ::= "x"+' }],
    [{ json_schema: schema }, { type: 'json_schema', json_schema: { name: 'x', schema } }],
  ];
  for (const [fields, format] of same) assert.equal(peerFormatOf(fields)!.spec, grammarSpecOf(format as never), JSON.stringify(fields));
  assert.is(peerFormatOf({}), undefined);
  assert.is(peerFormatOf({ structured_outputs: null, guided_json: null }), undefined, 'null is "not set"');
});

test('a choice is exactly one of its strings, whatever characters they hold', () => {
  const choices = ['a.b', 'c|d', '(e)', '[f]*', 'g\\h', 'x/y', '^$', 'é ✓'];
  for (const fields of [{ guided_choice: choices }, { structured_outputs: { choice: choices } }]) {
    const compiled = new GrammarCompiler().compile(grammarFromSpec(peerFormatOf(fields)!.spec));
    const whole = (text: string) => {
      const matcher = new GrammarMatcher(compiled);
      return matcher.acceptString(text) && matcher.isCompleted();
    };
    for (const choice of choices) assert.ok(whole(choice), choice);
    for (const other of ['axb', 'c', 'd', 'e', 'f', 'ff', '[f]', 'g', 'gh', 'x', '', 'a.bc.d', 'é']) assert.not.ok(whole(other), other);
  }
});

/** The answer's text for each seed, chat or text completion, with `fields` beside the request. */
async function answers(s: TinyServer, path: 'chat' | 'text', fields: object, seeds = 4): Promise<string[]> {
  const out: string[] = [];
  for (let seed = 1; seed <= seeds; seed++) {
    const base = { model, max_tokens: 40, seed, ...fields };
    if (path === 'chat') {
      const completion = await s.client.chat.completions.create({ ...base, messages } as never);
      assert.is(completion.choices[0]!.finish_reason, 'stop', JSON.stringify(completion.choices[0]));
      out.push(completion.choices[0]!.message.content!);
    } else {
      const completion = await s.client.completions.create({ ...base, prompt: 'Answer:' } as never);
      assert.is(completion.choices[0]!.finish_reason, 'stop', JSON.stringify(completion.choices[0]));
      out.push(completion.choices[0]!.text);
    }
  }
  return out;
}

test('answers follow each field, in chat and in text completions (the official client, extra fields as vLLM users send them)', async ({ s }) => {
  const valid = new Ajv().compile(schema);
  for (const path of ['chat', 'text'] as const) {
    for (const text of await answers(s, path, { guided_choice: ['yes', 'no', 'not sure'] })) assert.ok(['yes', 'no', 'not sure'].includes(text), text);
    for (const text of await answers(s, path, { structured_outputs: { choice: ['left', 'right'] } })) assert.ok(['left', 'right'].includes(text), text);
    for (const text of await answers(s, path, { guided_regex: '[0-9]{3}-[a-z]{2}' })) assert.match(text, /^[0-9]{3}-[a-z]{2}$/);
    // A response_format of type text asks for no format: the other one holds.
    for (const text of await answers(s, path, { guided_regex: '[xyz]{4}', response_format: { type: 'text' } }, 2)) assert.match(text, /^[xyz]{4}$/);
    for (const fields of [{ guided_json: schema }, { structured_outputs: { json: JSON.stringify(schema) } }]) {
      for (const text of await answers(s, path, fields)) assert.ok(valid(JSON.parse(text)), text);
    }
    for (const text of await answers(s, path, { guided_grammar: 'root ::= "<" [a-z]{1,5} ">"', guided_decoding_backend: 'xgrammar' })) assert.match(text, /^<[a-z]{1,5}>$/);
    for (const text of await answers(s, path, { structured_outputs: { structural_tag: tag, disable_fallback: true } })) assert.match(text, /^n=[0-9]{2}$/);
    // SGLang's and llama-server's fields.
    for (const text of await answers(s, path, { regex: '(cat|dog)s?' }, 2)) assert.match(text, /^(cat|dog)s?$/);
    for (const text of await answers(s, path, { ebnf: 'root ::= "[" [0-9] "]"' }, 2)) assert.match(text, /^\[[0-9]\]$/);
    for (const text of await answers(s, path, { grammar: 'root ::= ("a" | "b"){2,3}' }, 2)) assert.match(text, /^[ab]{2,3}$/);
    for (const text of await answers(s, path, { json_schema: schema }, 2)) assert.ok(valid(JSON.parse(text)), text);
  }
});

test('two formats, an empty structured_outputs, what is not done here and a bad format: a 400 naming the field', async ({ s }) => {
  const cases: [object, string, RegExp][] = [
    [{ guided_regex: 'a', response_format: { type: 'json_object' } }, 'guided_regex', /'guided_regex' and 'response_format' each ask for an output format/],
    [{ guided_regex: 'a', guided_choice: ['b'] }, 'guided_choice', /send one/],
    [{ structured_outputs: { regex: 'a', choice: ['b'] } }, 'structured_outputs.choice', /send one/],
    [{ structured_outputs: { json_object: true }, guided_json: schema }, 'guided_json', /send one/],
    [{ structured_outputs: {} }, 'structured_outputs', /needs one of json, regex, choice, grammar, json_object, structural_tag/],
    [{ structured_outputs: { json_object: false } }, 'structured_outputs', /needs one of/],
    [{ structured_outputs: { json_object: true, disable_any_whitespace: true } }, 'structured_outputs.disable_any_whitespace', /must be one of false, null/],
    [{ structured_outputs: { json_object: true, whitespace_pattern: ' *' } }, 'structured_outputs.whitespace_pattern', /must be null/],
    [{ structured_outputs: { json_object: true, backend: 'x' } }, 'structured_outputs.backend', /.+/],
    [{ guided_whitespace_pattern: ' *', guided_json: schema }, 'guided_whitespace_pattern', /must be null/],
    [{ guided_choice: [] }, 'guided_choice', /fewer than 1/],
    [{ guided_json: { type: 'object', properties: { a: { type: 'frob' } } } }, 'guided_json/properties/a/type', /^Invalid guided_json: /],
    [{ structured_outputs: { json: { type: 'object', properties: { a: { type: 'frob' } } } } }, 'structured_outputs.json/properties/a/type', /^Invalid structured_outputs.json: /],
    [{ structured_outputs: { json: '{"type": ' } }, 'structured_outputs.json', /not JSON/],
    [{ guided_regex: '(' }, 'guided_regex', /^Invalid guided_regex: /],
    [{ guided_grammar: '  ' }, 'guided_grammar', /needs EBNF text/],
    [{ structured_outputs: { structural_tag: { structures: [], triggers: [] } } }, 'structured_outputs.structural_tag.structures', /older form/],
    [{ regex: 'a', grammar: 'root ::= "a"' }, 'grammar', /'grammar' and 'regex' each ask/],
    [{ json_schema: schema, response_format: { type: 'json_object' } }, 'json_schema', /'json_schema' and 'response_format'/],
    [{ json_schema: { type: 'frob' } }, 'json_schema/type', /^Invalid json_schema: /],
  ];
  for (const [fields, param, message] of cases) {
    for (const [path, body] of [['/v1/chat/completions', { model, messages, max_tokens: 4 }], ['/v1/completions', { model, prompt: 'x', max_tokens: 4 }]] as const) {
      const response = await post(`${s.url}${path}`, { ...body, ...fields });
      assert.is(response.status, 400, `${path} ${JSON.stringify(fields)}: ${response.text}`);
      assert.is(response.json.error.param, param, `${path} ${JSON.stringify(fields)}: ${response.text}`);
      assert.match(response.json.error.message, message);
    }
  }
});

test.run();
