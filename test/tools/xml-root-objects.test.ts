// Tool parameters whose object is built at the root, from allOf members and $ref targets, as
// pydantic and zod-to-json-schema write them, in every XML tool format: the server's tool grammar
// allows the parameters, requiredness and types of the flattened object (exactly the calls ajv
// finds valid), and each call reads back as its arguments, types included (the reader typed the
// parameters by the root's own `properties` only, so a digit string came back a number); the
// JSON format hermes alike, for reference. A root anyOf or oneOf is refused with a 400 naming it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ajvFor, dialectOf } from '../../compiler/json-schema/dialect.js';
import { parseChatRequest } from '../../runtime/api/chat-completions/chat-request.js';
import { toolSetupOf } from '../../runtime/api/chat-completions/tool-calls.js';
import { ApiError } from '../../runtime/api/api-error.js';
import { argumentsSchema, toolCallTag } from '../../runtime/chat-format/tool-call-tag.js';
import { ToolCallParser } from '../../runtime/chat-format/tool-call-parser.js';
import { renderToolCall } from '../../runtime/chat-format/tool-prompt.js';
import { TOOL_FORMAT_KEYS, TOOL_FORMATS, type ToolFormatKey } from '../../runtime/chat-format/tool-formats.js';
import { grammarFromSpec } from '../../runtime/grammar-service/grammar-spec.js';
import { accepts } from '../compiler/helpers.js';

const test = suite('xml formats: root objects made of parts');

const XML_KEYS = TOOL_FORMAT_KEYS.filter((key) => TOOL_FORMATS[key].args !== 'json');

const FLAT = { type: 'object', properties: { n: { type: 'integer' }, s: { type: 'string' } }, required: ['n'], additionalProperties: false };

/** Schemas that mean FLAT. */
const SHAPES: Record<string, Record<string, unknown>> = {
  'a root allOf': { allOf: [FLAT] },
  'type object with allOf members': { type: 'object', allOf: [{ properties: { n: { type: 'integer' }, s: { type: 'string' } }, required: ['n'], additionalProperties: false }] },
  'the keywords spread over allOf members': { type: 'object', allOf: [{ properties: { n: { type: 'integer' } } }, { required: ['n'] }, { properties: { n: true, s: { type: 'string' } }, additionalProperties: false }] },
  'a root $ref (zod-to-json-schema)': { $schema: 'http://json-schema.org/draft-07/schema#', $ref: '#/definitions/Args', definitions: { Args: FLAT } },
  'allOf of a $ref, properties beside it (pydantic)': { $defs: { Base: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } }, allOf: [{ $ref: '#/$defs/Base' }], properties: { s: { type: 'string' } }, unevaluatedProperties: false },
  'allOf and $ref nested': {
    allOf: [{ $ref: '#/$defs/Args' }],
    $defs: { Args: { allOf: [{ $ref: '#/$defs/N' }, { properties: { s: { type: 'string' } } }], propertyNames: { enum: ['n', 's'] } }, N: { properties: { n: { type: 'integer' } }, required: ['n'] } },
  },
};

/** Arguments, valid and not, keys in the order declared; none whose text in an untyped style is also that of a valid call ({"n": "5"} is written as {"n": 5} is). */
const ARGUMENTS: Record<string, unknown>[] = [{ n: 5, s: '7' }, { n: 5 }, { n: -2, s: 'a b' }, { n: 0, s: 'true' }, { s: '7' }, { n: 'five' }, { n: 2.5 }, { n: 5, z: 1 }, {}];

/** Whether the tool grammar the server builds for `parameters` accepts the call, and what the parser reads back. */
function callOf(key: ToolFormatKey, parameters: Record<string, unknown>, args: Record<string, unknown>): { accepted: boolean; read: unknown } {
  const format = TOOL_FORMATS[key];
  const schema = argumentsSchema(parameters);
  const text = renderToolCall(format, 'f', args);
  const grammar = accepts(grammarFromSpec({ kind: 'structural_tag', tag: toolCallTag(format, [{ name: 'f', parameters: schema }], { mode: 'auto' }, true) }));
  const parser = new ToolCallParser(format, new Map([['f', schema]]), 'call_');
  parser.push(text);
  parser.finish();
  const call = parser.toolCalls[0];
  return { accepted: grammar(text), read: call ? JSON.parse(call.arguments) : undefined };
}

for (const key of [...XML_KEYS, 'hermes' as const]) {
  test(`${key}: a root object made of allOf members and $ref targets is the flattened object, its calls read back as written`, () => {
    const flat = ajvFor('2020-12').compile(FLAT);
    for (const [shape, parameters] of Object.entries(SHAPES)) {
      const valid = ajvFor(dialectOf(parameters)).compile(parameters);
      for (const args of ARGUMENTS) {
        assert.is(valid(args), flat(args), `ajv: ${shape} means the flat object, for ${JSON.stringify(args)}`);
        const { accepted, read } = callOf(key, parameters, args);
        assert.is(accepted, flat(args), `${shape}: the grammar ${flat(args) ? 'accepts' : 'refuses'} ${JSON.stringify(args)}`);
        if (accepted) assert.equal(read, args, `${shape}: ${JSON.stringify(args)} read back`);
      }
    }
  });
}

test('a root anyOf or oneOf of objects: a 400 naming it in every XML format (its parameters could not be typed one by one); the JSON formats take it', () => {
  const either = { anyOf: [{ type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] }, { type: 'object', properties: { s: { type: 'string' } }, required: ['s'] }] };
  const atLeastOne = { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'string' } }, anyOf: [{ required: ['a'] }, { required: ['b'] }] };
  const branch = (kind: string, field: string, type: string) => ({ type: 'object', properties: { kind: { const: kind }, [field]: { type } }, required: ['kind', field] });
  const tagged = { oneOf: [branch('a', 'n', 'integer'), branch('b', 'n', 'string')], discriminator: { propertyName: 'kind' } };
  for (const [parameters, keyword] of [[either, 'anyOf'], [atLeastOne, 'anyOf'], [tagged, 'oneOf']] as const) {
    const request = parseChatRequest({ model: 'm', messages: [{ role: 'user', content: 'hi' }], tools: [{ type: 'function', function: { name: 'g' } }, { type: 'function', function: { name: 'f', parameters } }] });
    for (const key of XML_KEYS) {
      try {
        toolSetupOf(request, TOOL_FORMATS[key]);
        assert.unreachable(`${key} took a root ${keyword}`);
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        assert.is(error.status, 400);
        assert.is(error.code, 'invalid_tool_schema');
        assert.is(error.param, `tools[1].function.parameters/${keyword}`, key);
        assert.match(error.message, `'${keyword}' on the top-level object is not supported with the '${TOOL_FORMATS[key].args}' style: its parameters are written and read back one by one`);
      }
    }
    assert.ok(toolSetupOf(request, TOOL_FORMATS.hermes), `hermes takes a root ${keyword}`);
  }
});

test.run();
