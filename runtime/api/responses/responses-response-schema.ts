// The JSON schemas of what POST /v1/responses answers: the response object, and each streamed
// event (named by its `type`, as the SSE `event:` line repeats). /openapi.json and /docs read them.
const tokenLogprob = {
  type: 'object',
  properties: { token: { type: 'string' }, logprob: { type: 'number' }, bytes: { type: 'array', items: { type: 'integer' } } },
  required: ['token', 'logprob', 'bytes'],
} as const;

const logprobs = { type: 'array', items: { ...tokenLogprob, properties: { ...tokenLogprob.properties, top_logprobs: { type: 'array', items: tokenLogprob } } } } as const;

const outputText = {
  type: 'object',
  properties: { type: { const: 'output_text' }, text: { type: 'string' }, annotations: { type: 'array', maxItems: 0 }, logprobs: { ...logprobs, description: 'With include: ["message.output_text.logprobs"].' } },
  required: ['type', 'text', 'annotations'],
} as const;

const reasoningText = { type: 'object', properties: { type: { const: 'reasoning_text' }, text: { type: 'string' } }, required: ['type', 'text'] } as const;

const itemStatus = { enum: ['in_progress', 'completed', 'incomplete'] } as const;

const outputItem = {
  description: 'A reasoning item (the thinking, whole), a message (the answer text) or a function_call (arguments as JSON text), in the order the model wrote them.',
  anyOf: [
    {
      type: 'object',
      properties: { type: { const: 'reasoning' }, id: { type: 'string' }, summary: { type: 'array', maxItems: 0 }, content: { type: 'array', items: reasoningText } },
      required: ['type', 'id', 'summary'],
    },
    {
      type: 'object',
      properties: { type: { const: 'message' }, id: { type: 'string' }, status: itemStatus, role: { const: 'assistant' }, content: { type: 'array', items: outputText } },
      required: ['type', 'id', 'status', 'role', 'content'],
    },
    {
      type: 'object',
      properties: { type: { const: 'function_call' }, id: { type: 'string' }, status: itemStatus, call_id: { type: 'string' }, name: { type: 'string' }, arguments: { type: 'string' } },
      required: ['type', 'id', 'status', 'call_id', 'name', 'arguments'],
    },
  ],
} as const;

const usage = {
  type: 'object',
  properties: {
    input_tokens: { type: 'integer' },
    input_tokens_details: { type: 'object', properties: { cached_tokens: { type: 'integer' } }, required: ['cached_tokens'] },
    output_tokens: { type: 'integer' },
    output_tokens_details: { type: 'object', properties: { reasoning_tokens: { type: 'integer', description: 'Always 0: thinking tokens are counted in output_tokens, not apart.' } }, required: ['reasoning_tokens'] },
    total_tokens: { type: 'integer' },
  },
  required: ['input_tokens', 'input_tokens_details', 'output_tokens', 'output_tokens_details', 'total_tokens'],
} as const;

/** GET /v1/responses/{response_id}/input_items's answer: a page of the items, each with an id. */
export const inputItemListSchema = {
  type: 'object',
  properties: {
    object: { const: 'list' },
    data: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' }, type: { type: 'string' } }, required: ['id', 'type'] } },
    first_id: { type: ['string', 'null'] },
    last_id: { type: ['string', 'null'] },
    has_more: { type: 'boolean' },
  },
  required: ['object', 'data', 'first_id', 'last_id', 'has_more'],
} as const;

/** DELETE /v1/responses/{response_id}'s answer. */
export const deletedResponseSchema = {
  type: 'object',
  properties: { id: { type: 'string' }, object: { const: 'response' }, deleted: { const: true } },
  required: ['id', 'object', 'deleted'],
} as const;

export const responseObjectSchema = {
  type: 'object',
  description: 'Response (stream: false; GET /v1/responses/{response_id}; and in the created, in_progress, completed, incomplete and failed events). The request\'s settings are echoed with their defaults; store says whether the server keeps it.',
  properties: {
    id: { type: 'string' },
    object: { const: 'response' },
    created_at: { type: 'integer' },
    status: { enum: ['in_progress', 'completed', 'incomplete', 'failed'] },
    error: { anyOf: [{ type: 'null' }, { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } }, required: ['code', 'message'] }] },
    incomplete_details: { anyOf: [{ type: 'null' }, { type: 'object', properties: { reason: { const: 'max_output_tokens' } }, required: ['reason'] }] },
    model: { type: 'string' },
    output: { type: 'array', items: outputItem },
    usage: { anyOf: [usage, { type: 'null' }], description: 'null until the response is done (in_progress).' },
    instructions: { type: ['string', 'null'] },
    max_output_tokens: { type: ['integer', 'null'] },
    metadata: { type: 'object' },
    parallel_tool_calls: { type: 'boolean' },
    temperature: { type: 'number' },
    top_p: { type: 'number' },
    text: { type: 'object' },
    tool_choice: {},
    tools: { type: 'array' },
    store: { type: 'boolean' },
    previous_response_id: { type: ['string', 'null'] },
  },
  required: ['id', 'object', 'created_at', 'status', 'error', 'incomplete_details', 'model', 'output', 'usage', 'parallel_tool_calls', 'tool_choice', 'tools', 'temperature', 'top_p'],
} as const;

const event = (type: string, properties: Record<string, object>) => ({
  type: 'object',
  properties: { type: { const: type }, sequence_number: { type: 'integer' }, ...properties },
  required: ['type', 'sequence_number', ...Object.keys(properties)],
});

const at = { item_id: { type: 'string' }, output_index: { type: 'integer' } };
const inPart = { ...at, content_index: { type: 'integer' } };

export const responseStreamEventSchema = {
  description: 'One event of a stream (stream: true). sequence_number counts from 0; the last event is response.completed, response.incomplete or response.failed (no [DONE] follows).',
  anyOf: [
    ...['response.created', 'response.in_progress', 'response.completed', 'response.incomplete', 'response.failed'].map((type) => event(type, { response: responseObjectSchema })),
    event('response.output_item.added', { output_index: { type: 'integer' }, item: outputItem }),
    event('response.output_item.done', { output_index: { type: 'integer' }, item: outputItem }),
    event('response.content_part.added', { ...inPart, part: { anyOf: [outputText, reasoningText] } }),
    event('response.content_part.done', { ...inPart, part: { anyOf: [outputText, reasoningText] } }),
    event('response.output_text.delta', { ...inPart, delta: { type: 'string' }, logprobs }),
    event('response.output_text.done', { ...inPart, text: { type: 'string' }, logprobs }),
    event('response.reasoning_text.delta', { ...inPart, delta: { type: 'string' } }),
    event('response.reasoning_text.done', { ...inPart, text: { type: 'string' } }),
    event('response.function_call_arguments.delta', { ...at, delta: { type: 'string' } }),
    event('response.function_call_arguments.done', { ...at, arguments: { type: 'string' } }),
  ],
} as const;

/** An event as OpenAPI describes an event stream: its name (the payload's type) and its data, JSON text. */
export const responseSseEventSchema = {
  type: 'object',
  required: ['event', 'data'],
  properties: {
    event: { type: 'string' },
    data: { type: 'string', contentMediaType: 'application/json', contentSchema: responseStreamEventSchema },
  },
} as const;
