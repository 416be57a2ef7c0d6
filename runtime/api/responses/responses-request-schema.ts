// The JSON schema of a Responses API request (POST /v1/responses): the validator, /openapi.json
// and /docs read this one object. Item and part kinds are told by their `type` first, so an
// image part or a web-search tool is answered as what this server does not serve, at its entry.
import { REQUEST_LIMITS as LIMITS } from '../request-limits.js';

/** A text part of a message or a tool output: input_text, or output_text and refusal as a previous reply carries them. */
const textPart = {
  type: 'object',
  properties: { type: {} },
  required: ['type'],
  if: { properties: { type: { enum: ['input_text', 'output_text'] } } },
  then: {
    properties: {
      type: {},
      text: { type: 'string' },
      annotations: { type: 'array', description: "A reply's citations: accepted in the history and not sent to the model." },
      logprobs: { type: 'array', description: "A reply's logprobs: accepted in the history and not sent to the model." },
      parsed: { description: "The text as an SDK's parse() helper read it: accepted in the history and not sent to the model." },
    },
    required: ['text'],
    additionalProperties: false,
  },
  else: {
    if: { properties: { type: { const: 'refusal' } } },
    then: { properties: { type: {}, refusal: { type: 'string' } }, required: ['refusal'], additionalProperties: false },
    else: { properties: { type: { const: 'input_text', description: 'only text parts: this server reads no images, audio or files' } } },
  },
} as const;

const content = {
  description: 'Text, or a list of text parts (input_text; output_text or refusal from a previous reply), joined.',
  anyOf: [{ type: 'string' }, { type: 'array', items: textPart, maxItems: LIMITS.messages }],
} as const;

const itemStatus = { enum: ['in_progress', 'completed', 'incomplete'], description: "An output item's status, as a previous reply carries it: accepted and unused." } as const;
const itemId = { type: 'string', maxLength: LIMITS.shortString, description: "An output item's id, as a previous reply carries it: accepted and unused." } as const;

const messageItem = {
  properties: {
    type: {},
    role: { enum: ['user', 'system', 'developer', 'assistant'], description: "'developer' is OpenAI's newer name for the system instructions." },
    content,
    id: itemId,
    status: itemStatus,
  },
  required: ['role', 'content'],
  additionalProperties: false,
} as const;

const functionCallItem = {
  properties: {
    type: {},
    call_id: { type: 'string', minLength: 1, maxLength: LIMITS.shortString },
    name: { type: 'string', minLength: 1, maxLength: LIMITS.shortString },
    arguments: { type: 'string', description: 'The arguments object as JSON text.' },
    id: itemId,
    status: itemStatus,
  },
  required: ['call_id', 'name', 'arguments'],
  additionalProperties: false,
} as const;

const functionCallOutputItem = {
  properties: {
    type: {},
    call_id: { type: 'string', minLength: 1, maxLength: LIMITS.shortString, description: 'The call_id of the function_call item it answers.' },
    output: content,
    id: itemId,
    status: itemStatus,
  },
  required: ['call_id', 'output'],
  additionalProperties: false,
} as const;

const reasoningItem = {
  description: 'A previous reply\'s reasoning item: accepted and left out of the prompt, as chat templates leave out earlier turns\' thinking.',
  properties: {
    type: {},
    id: itemId,
    summary: { type: 'array' },
    content: { type: 'array' },
    encrypted_content: { type: ['string', 'null'] },
    status: itemStatus,
  },
  additionalProperties: false,
} as const;

const kind = (type: string) => ({ properties: { type: { const: type } }, required: ['type'] });

/** An input item: a message (with or without `type`), a function call, its output, or a reasoning item. */
const inputItem = {
  type: 'object',
  description: "A message ({role, content}), a function_call, a function_call_output or a reasoning item (other kinds need OpenAI's built-in tools or its stored items).",
  if: { not: { required: ['type'] } },
  then: messageItem,
  else: {
    if: kind('message'),
    then: messageItem,
    else: {
      if: kind('function_call'),
      then: functionCallItem,
      else: {
        if: kind('function_call_output'),
        then: functionCallOutputItem,
        else: {
          if: kind('reasoning'),
          then: reasoningItem,
          else: {
            properties: {
              type: { const: 'message', description: 'only messages, function calls, their outputs and reasoning items: this server has no built-in tools and stores no items to refer to' },
            },
          },
        },
      },
    },
  },
} as const;

const functionTool = {
  properties: {
    type: {},
    name: { type: 'string', pattern: '^[a-zA-Z0-9_-]{1,64}$' },
    description: { type: ['string', 'null'] },
    parameters: { type: ['object', 'null'], description: 'A JSON schema of the arguments object.' },
    strict: { type: ['boolean', 'null'], description: 'Accepted; arguments always follow the schema exactly.' },
  },
  required: ['name'],
  additionalProperties: false,
} as const;

/** A tool: its type first, so another kind is told it is not served rather than that its `name` is missing. */
const tool = {
  type: 'object',
  properties: {
    type: {
      const: 'function',
      description: 'function tools are the only kind served: this server does not search the web or files, run code, use a computer, or call MCP servers or custom tools',
    },
  },
  required: ['type'],
  if: kind('function'),
  then: functionTool,
} as const;

const namedFunction = {
  type: 'object',
  properties: { type: { const: 'function' }, name: { type: 'string' } },
  required: ['type', 'name'],
  additionalProperties: false,
} as const;

const toolChoice = {
  description:
    '"none", "auto" (the default with tools), "required", {"type": "function", "name"} (exactly that call) or {"type": "allowed_tools", "mode": "auto" | "required", "tools": [{"type": "function", "name"}, ...]}.',
  anyOf: [
    { type: 'string', enum: ['none', 'auto', 'required'] },
    {
      type: 'object',
      properties: { type: { enum: ['function', 'allowed_tools'] } },
      required: ['type'],
      allOf: [
        { if: kind('function'), then: namedFunction },
        {
          if: kind('allowed_tools'),
          then: {
            properties: { type: {}, mode: { enum: ['auto', 'required'] }, tools: { type: 'array', minItems: 1, items: namedFunction } },
            required: ['mode', 'tools'],
            additionalProperties: false,
          },
        },
      ],
    },
    { type: 'null' },
  ],
} as const;

const textFormat = {
  type: 'object',
  properties: { type: { enum: ['text', 'json_object', 'json_schema'] } },
  required: ['type'],
  description: 'Output format, enforced while decoding: {"type": "text"}, {"type": "json_object"} (any JSON object) or {"type": "json_schema", "name", "schema", "strict", "description"}.',
  if: kind('json_schema'),
  then: {
    properties: {
      type: {},
      name: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
      schema: { type: 'object', description: 'A JSON schema of the output.' },
      strict: { type: ['boolean', 'null'], description: 'Accepted; the output always follows the schema exactly.' },
      description: { type: 'string' },
    },
    required: ['name', 'schema'],
    additionalProperties: false,
  },
  else: { properties: { type: {} }, additionalProperties: false },
} as const;

/**
 * Fields OpenAI defines for what this server does not do, each with why: any value but null is
 * refused as an unsupported parameter (request-validator.ts), naming the field.
 */
export const UNSUPPORTED_RESPONSES_FIELDS: Readonly<Record<string, string>> = {
  conversation: 'this server keeps no conversation objects; send the conversation in input, or go on from a stored response with previous_response_id',
  prompt: 'this server keeps no prompt templates; send the instructions and input',
  max_tool_calls: "limit calls with 'parallel_tool_calls': false or 'tool_choice'",
  'text.verbosity': "it is for OpenAI's GPT-5 models; ask for a length in the prompt or with max_output_tokens",
};

export const responsesRequestSchema = {
  type: 'object',
  description: 'Responses API request (responses are kept in memory for previous_response_id unless store is false)',
  properties: {
    model: { type: 'string', description: 'Model to use: the id GET /v1/models lists, or the MODEL argument or path the server was started with.' },
    input: {
      description: 'The conversation: a user message as text, or a list of input items.',
      anyOf: [{ type: 'string' }, { type: 'array', items: inputItem, minItems: 1, maxItems: LIMITS.messages }],
    },
    instructions: { type: ['string', 'null'], description: 'A system message put before the input.' },
    tools: { type: ['array', 'null'], items: tool, maxItems: LIMITS.tools, description: 'Function tools the model may call ({"type": "function", "name", "description", "parameters", "strict"}); names are unique.' },
    tool_choice: toolChoice,
    parallel_tool_calls: { type: ['boolean', 'null'], default: true, description: 'false allows one call at most.' },
    text: {
      type: ['object', 'null'],
      properties: { format: textFormat, verbosity: { type: 'null' } },
      additionalProperties: false,
    },
    max_output_tokens: { type: ['integer', 'null'], minimum: 1, maximum: LIMITS.maxTokens, description: 'Most tokens generated, thinking included.' },
    temperature: { type: ['number', 'null'], minimum: 0, maximum: 2, default: 1 },
    top_p: { type: ['number', 'null'], minimum: 0, maximum: 1, default: 1 },
    top_logprobs: { type: ['integer', 'null'], minimum: 0, maximum: 20, description: "Alternatives per token in the output text's logprobs (with include: [\"message.output_text.logprobs\"])." },
    include: {
      type: ['array', 'null'],
      items: {
        enum: ['message.output_text.logprobs', 'reasoning.encrypted_content'],
        description: "'message.output_text.logprobs' adds logprobs to output_text parts; 'reasoning.encrypted_content' is accepted, and reasoning comes as plain text here",
      },
    },
    stream: { type: ['boolean', 'null'], default: false, description: 'true: server-sent events (event: and data: lines), ending with response.completed, response.incomplete or response.failed.' },
    stream_options: {
      type: ['object', 'null'],
      properties: { include_obfuscation: { type: ['boolean', 'null'] } },
      additionalProperties: false,
      description: 'Accepted and unused: events are not padded here.',
    },
    truncation: { enum: ['disabled', 'auto', null], description: "'disabled' (default): an input longer than the context window is a 400. 'auto': its oldest items are dropped until it fits (instructions and the newest item stay)." },
    reasoning: {
      type: ['object', 'null'],
      properties: {
        effort: { enum: ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', null] },
        summary: { enum: ['auto', 'concise', 'detailed', null] },
        generate_summary: { enum: ['auto', 'concise', 'detailed', null] },
      },
      additionalProperties: false,
      description: 'Accepted and unused: a thinking model here thinks as its template says, and its thinking comes back whole as a reasoning item, not summarised.',
    },
    background: { type: ['boolean', 'null'], description: 'false or null only: nothing runs in the background here.' },
    store: { type: ['boolean', 'null'], default: true, description: 'true (default): the response is kept in memory (the newest within the server\'s --responses-store-max-bytes budget) for previous_response_id and GET /v1/responses/{id}; false: not kept.' },
    previous_response_id: { type: ['string', 'null'], maxLength: LIMITS.shortString, description: 'A stored response to go on from: its conversation and its output come before input (its instructions do not).' },
    user: { type: ['string', 'null'], maxLength: LIMITS.shortString },
    metadata: {
      type: ['object', 'null'],
      maxProperties: 16,
      propertyNames: { maxLength: 64, description: 'a key of at most 64 characters' },
      additionalProperties: { type: 'string', maxLength: 512 },
      description: 'Up to 16 string pairs (keys of 64 characters, values of 512): echoed in the response (and kept with it when stored).',
    },
    service_tier: { type: ['string', 'null'], maxLength: 64, description: "OpenAI's processing tier; accepted, and every request is served alike here." },
    prompt_cache_key: { type: ['string', 'null'], maxLength: LIMITS.shortString, description: 'Accepted and unused: the prefix cache here finds shared prefixes by their tokens.' },
    prompt_cache_retention: { type: ['string', 'null'], maxLength: 64, description: 'Accepted and unused.' },
    safety_identifier: { type: ['string', 'null'], maxLength: LIMITS.shortString, description: "OpenAI's stable id of an end user for abuse detection; accepted and unused." },
    ...Object.fromEntries(
      Object.entries(UNSUPPORTED_RESPONSES_FIELDS)
        .filter(([field]) => !field.includes('.'))
        .map(([field, why]) => [field, { type: 'null', description: `Not supported here: ${why}. null (not set) is taken as left out.` }]),
    ),
  },
  required: ['model', 'input'],
  additionalProperties: false,
  'x-unsupported': UNSUPPORTED_RESPONSES_FIELDS,
} as const;
