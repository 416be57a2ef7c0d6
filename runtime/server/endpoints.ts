// The endpoint table: routing (and 405 answers), /openapi.json and /docs all read it.
import {
  chatCompletionChunkSchema,
  chatCompletionRequestSchema,
  chatCompletionResponseSchema,
  errorSchema,
  healthSchema,
  modelListSchema,
  modelSchema,
} from '../api/api-schemas.js';
import { OPEN_PATHS } from './auth.js';
import { deletedResponseSchema, inputItemListSchema, responseObjectSchema, responseSseEventSchema, responseStreamEventSchema } from '../api/responses/responses-response-schema.js';
import { responsesRequestSchema } from '../api/responses/responses-request-schema.js';
import { textCompletionChunkSchema, textCompletionRequestSchema, textCompletionResponseSchema } from '../api/text-completions/text-completion-schemas.js';
import { detokenizeRequestSchema, detokenizeResponseSchema, tokenizeRequestSchema, tokenizeResponseSchema, tokenizerInfoSchema } from '../api/tokenizer/tokenizer-schemas.js';

export interface Endpoint {
  method: 'GET' | 'POST' | 'DELETE';
  /** `{name}` stands for one path parameter (which may hold an encoded `/`). */
  path: string;
  summary: string;
  request?: object;
  response?: object;
  /** Schema of each `data:` event when the endpoint streams. */
  stream?: object;
  /** The whole event's schema, for a stream whose events are named (`event:` lines) and end without `[DONE]`. */
  namedEvent?: object;
  /** Media type of a response that is not JSON. */
  textResponse?: string;
  /** Only present when the server runs with this launch flag. */
  onlyWith?: LaunchFlag;
}

/** The `lmforge serve` flags that add an endpoint (createServer's `tracing` and `profileSteps`). */
export type LaunchFlag = '--enable-tracing' | '--profile-steps';

export const ENDPOINTS: readonly Endpoint[] = [
  { method: 'GET', path: '/v1/models', summary: 'Lists the models this server serves.', response: modelListSchema },
  {
    method: 'GET',
    path: '/v1/models/{model}',
    summary: 'The model object of one served model: its served name, or the path it was loaded from. An unknown model is a 404 with param "model".',
    response: modelSchema,
  },
  {
    method: 'POST',
    path: '/v1/chat/completions',
    summary: 'Generates a response to a conversation: one JSON object, or with stream: true a text/event-stream of chunks ending with data: [DONE].',
    request: chatCompletionRequestSchema,
    response: chatCompletionResponseSchema,
    stream: chatCompletionChunkSchema,
  },
  {
    method: 'POST',
    path: '/v1/completions',
    summary:
      "Completes a prompt as it is, without a chat template (OpenAI's legacy completions; for base models): one JSON object, or with stream: true a text/event-stream of chunks ending with data: [DONE]. suffix is refused (400).",
    request: textCompletionRequestSchema,
    response: textCompletionResponseSchema,
    stream: textCompletionChunkSchema,
  },
  {
    method: 'POST',
    path: '/v1/responses',
    summary:
      "OpenAI's Responses API: the conversation in input (messages, function calls and their outputs), after a stored response's with previous_response_id, answered as one response object, or with stream: true as a text/event-stream of named events (response.created ... response.completed). Responses are kept in memory unless store is false (the newest within --responses-store-max-bytes). conversation and background are refused (400).",
    request: responsesRequestSchema,
    response: responseObjectSchema,
    stream: responseStreamEventSchema,
    namedEvent: responseSseEventSchema,
  },
  {
    method: 'GET',
    path: '/v1/responses/{response_id}',
    summary: 'A stored response, as it was answered. One not stored (store: false), deleted, or gone to make room for newer ones is a 404.',
    response: responseObjectSchema,
  },
  {
    method: 'GET',
    path: '/v1/responses/{response_id}/input_items',
    summary:
      'The items a stored response was generated from (the stored conversation before it and its own input), each with an id: newest first unless order=asc, limit at a time (1 to 100, default 20), after an item id for the next page; {object: "list", data, first_id, last_id, has_more}.',
    response: inputItemListSchema,
  },
  {
    method: 'DELETE',
    path: '/v1/responses/{response_id}',
    summary: 'Deletes a stored response: previous_response_id and GET no longer find it. One not stored is a 404.',
    response: deletedResponseSchema,
  },
  {
    method: 'POST',
    path: '/tokenize',
    summary: "Text to the served model's tokens, as a prompt is tokenized (vLLM's shape): count, max_model_len, tokens and, with return_token_strs, each token's text. A text longer than the context is refused (400), as a prompt is.",
    request: tokenizeRequestSchema,
    response: tokenizeResponseSchema,
  },
  { method: 'POST', path: '/detokenize', summary: "Token ids to their text (vLLM's shape); an id outside the vocabulary is a 400 naming it.", request: detokenizeRequestSchema, response: detokenizeResponseSchema },
  {
    method: 'GET',
    path: '/tokenizer_info',
    summary: "The served tokenizer's facts in a Hugging Face tokenizer config's keys (vLLM's /tokenizer_info): BOS and EOS text, whether a prompt gets BOS, the context length, the chat template requests are rendered with.",
    response: tokenizerInfoSchema,
  },
  { method: 'GET', path: '/health', summary: '200 when the model is loaded and the server is ready, 503 while it loads, drains, or restarts a failed engine.', response: healthSchema },
  {
    method: 'GET',
    path: '/metrics',
    summary: 'Prometheus metrics (text format 0.0.4): requests by status and finish reason, TTFT, inter-token and end-to-end latency, tokens, queue depth, running sequences, KV cells, preemptions, speculative drafts proposed and accepted, grammar compiles and cache hits.',
    textResponse: 'text/plain',
  },
  { method: 'GET', path: '/docs', summary: 'This listing of the endpoints, as a web page.', textResponse: 'text/html' },
  { method: 'GET', path: '/openapi.json', summary: 'The OpenAPI 3.1 description of this API.' },
  {
    method: 'GET',
    path: '/debug/trace',
    summary: 'Recorded request events in Chrome trace format (load in chrome://tracing or Perfetto); ?request_id=ID keeps one request.',
    onlyWith: '--enable-tracing',
  },
  {
    method: 'GET',
    path: '/debug/step-profile',
    summary:
      "The engine's steps by decode width (sequences a step decoded): pure decode steps with their mean ms, mean ms per phase (plan, batch, decode, device, sample, commit, collect, emit, yield) mean KV cells in use and how many followed a pure decode of the same width, and the mixed steps (prompt tokens or drafts in the step) with their count and mean ms.",
    onlyWith: '--profile-steps',
  },
];

const pathParameters = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A path template as a pattern: `{name}` takes one non-empty segment, `{model}` any text, `/` included (a model name may hold one). */
const templatePattern = (path: string) => new RegExp(`^${path.split(/(\{\w+\})/).map((part) => (part === '{model}' ? '.+' : /^\{\w+\}$/.test(part) ? '[^/]+' : escapeRegExp(part))).join('')}$`);
const PATTERNS = new Map(ENDPOINTS.map((endpoint) => [endpoint, templatePattern(endpoint.path)]));

/** The endpoints whose path template a request path matches (several methods may share one). */
export function endpointsAt(path: string): Endpoint[] {
  return ENDPOINTS.filter((endpoint) => PATTERNS.get(endpoint)!.test(path));
}

/**
 * One event of a stream. For `text/event-stream`, OpenAPI (3.2's itemSchema, and tools reading
 * 3.1's schema the same way) describes each event ({data, event, id, retry}), not its payload:
 * here `data` is a chunk as JSON text, an error envelope when the stream fails part way, or the
 * final `[DONE]`.
 */
export function streamEventSchema(chunk: object): object {
  return {
    type: 'object',
    required: ['data'],
    properties: {
      data: {
        anyOf: [
          { const: '[DONE]' },
          { type: 'string', contentMediaType: 'application/json', contentSchema: { anyOf: [chunk, errorSchema] } },
        ],
      },
    },
  };
}

/** What the served document says of this server beyond the fixed schemas. */
export interface ServedFacts {
  apiKeys: boolean;
  /** The names a request body's `model` may take (the served name). */
  models?: readonly string[];
  /** Once the model has loaded: its max_num_sequence and vocabulary size. */
  limits?: { maxNumSequence: number; vocabSize: number };
}

/** A copy of `schema` in which every integer schema (at any depth) is at most `maximum`. */
function capIntegers(schema: unknown, maximum: number): unknown {
  if (Array.isArray(schema)) return schema.map((item) => capIntegers(item, maximum));
  if (typeof schema !== 'object' || schema === null) return schema;
  const copy: Record<string, unknown> = Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, capIntegers(value, maximum)]));
  if (copy.type === 'integer' || (Array.isArray(copy.type) && copy.type.includes('integer'))) copy.maximum = Math.min(Number(copy.maximum ?? Infinity), maximum);
  return copy;
}

/**
 * A request schema as this server takes it, so that a client or fuzzer generated from the
 * document reaches the model instead of a 400 or 404 every time: `model` is the served name
 * (not any string), and once the model is loaded `n` and `best_of` are at most its
 * max_num_sequence and a prompt's token ids are in its vocabulary. The path of
 * GET /v1/models/{model} stays any string: asking about another model is what it is for (a 404).
 */
function servedRequestSchema(schema: object, facts: ServedFacts): object {
  const properties = { ...(schema as { properties?: Record<string, object> }).properties };
  if (facts.models?.length && properties.model) properties.model = { ...properties.model, enum: [...facts.models] };
  if (facts.limits) {
    const { maxNumSequence, vocabSize } = facts.limits;
    for (const name of ['n', 'best_of']) if (properties[name]) properties[name] = capIntegers(properties[name], maxNumSequence) as object;
    if (properties.prompt) properties.prompt = capIntegers(properties.prompt, vocabSize - 1) as object;
  }
  return { ...schema, properties };
}

/**
 * With `apiKeys`, the document says which paths need `Authorization: Bearer` and what a 401 is;
 * with `models` and `limits`, what request bodies this server can answer (servedRequestSchema).
 */
export function openApiDocument(version: string, options: ServedFacts = { apiKeys: false }): object {
  const paths: Record<string, Record<string, object>> = {};
  for (const endpoint of ENDPOINTS) {
    const content: Record<string, object> = {};
    if (endpoint.response) content['application/json'] = { schema: endpoint.response };
    if (endpoint.stream) content['text/event-stream'] = { schema: endpoint.namedEvent ?? streamEventSchema(endpoint.stream) };
    if (endpoint.textResponse) content[endpoint.textResponse] = { schema: { type: 'string' } };
    const parameters = pathParameters(endpoint.path).map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
    const secured = options.apiKeys && !OPEN_PATHS.has(endpoint.path);
    const envelope = (description: string) => ({ description, content: { 'application/json': { schema: errorSchema } } });
    (paths[endpoint.path] ??= {})[endpoint.method.toLowerCase()] = {
      summary: endpoint.summary,
      ...(endpoint.onlyWith ? { description: `Available only when the server runs with ${endpoint.onlyWith}.` } : {}),
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(secured ? { security: [{ bearerAuth: [] }] } : {}),
      ...(endpoint.request ? { requestBody: { required: true, content: { 'application/json': { schema: servedRequestSchema(endpoint.request, options) } } } } : {}),
      responses: {
        '200': { description: 'Success', ...(Object.keys(content).length > 0 ? { content } : {}) },
        ...(secured ? { '401': envelope('A missing or wrong API key') } : {}),
        default: envelope('An OpenAI error envelope'),
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'lmforge', version, description: 'OpenAI-compatible chat and text completions' },
    ...(options.apiKeys ? { components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'A key given to the server with --api-key or LMFORGE_API_KEY' } } } } : {}),
    paths,
  };
}

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function docsPage(version: string, options: { apiKeys: boolean } = { apiKeys: false }): string {
  const sections = ENDPOINTS.map((endpoint) => {
    const block = (title: string, schema: object | undefined) =>
      schema ? `<h4>${title}</h4><pre>${escapeHtml(JSON.stringify(schema, null, 2))}</pre>` : '';
    return `<section><h2><code>${endpoint.method} ${endpoint.path}</code></h2><p>${escapeHtml(endpoint.summary)}</p>${
      endpoint.onlyWith ? `<p>Available only with <code>${endpoint.onlyWith}</code>.</p>` : ''
    }${block('Request body', endpoint.request)}${block('Response', endpoint.response)}${block('Stream event (data:)', endpoint.stream)}</section>`;
  }).join('\n');
  return `<!doctype html><html><head><meta charset="utf-8"><title>lmforge ${version} API</title>
<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}pre{background:#f4f4f4;padding:1rem;overflow:auto;max-height:30rem}</style></head>
<body><h1>lmforge ${version}: endpoints</h1><p>Errors use OpenAI's envelope: <code>{"error": {"message", "type", "param", "code"}}</code>. Machine-readable: <a href="/openapi.json">/openapi.json</a>.</p>
${options.apiKeys ? `<p>This server needs an API key: send <code>Authorization: Bearer KEY</code> to every endpoint but ${[...OPEN_PATHS].map((path) => `<code>${path}</code>`).join(', ')}.</p>\n` : ''}${sections}</body></html>`;
}
