// The JSON schemas of the chat API (and what the text completions API shares with it): the
// request validator, /openapi.json and /docs are all generated from these objects, so they cannot
// drift apart. Rules between fields sit in each object's allOf (request-rules.ts).
import { REQUEST_LIMITS as LIMITS } from './request-limits.js';
import { sets, type RequestRule } from './request-rules.js';
import { samplingFieldProperties } from './sampling-fields.js';
import { peerFormatProperties } from './peer-format-fields.js';

// A part's `type` first: an image or audio part is told as such, at its entry, not as a bad `content`.
// A refusal part is an assistant's (a rule below refuses it in other roles), as OpenAI takes them.
const contentPart = {
  type: 'object',
  description: 'A text part, or in an assistant message a refusal part',
  if: { properties: { type: { const: 'text' } }, required: ['type'] },
  then: { properties: { type: {}, text: { type: 'string' } }, required: ['text'], additionalProperties: false },
  else: {
    if: { properties: { type: { const: 'refusal' } }, required: ['type'] },
    then: { properties: { type: {}, refusal: { type: 'string' } }, required: ['refusal'], additionalProperties: false },
    else: {
      // The spec's "structured data for tool-generated messages": an object with no `type`, its JSON the text (a rule below keeps it to tool messages).
      if: { not: { required: ['type'] } },
      then: { description: "A tool message's structured data (an object without 'type'): the model reads its JSON." },
      else: { properties: { type: { const: 'text', description: "only text parts, and an assistant's refusal parts: this server reads no images, audio or files" } } },
    },
  },
} as const;

/** A prediction's part: text only. Its `type` is checked first, so an image part is told as such. */
const textPart = {
  type: 'object',
  properties: { type: { const: 'text', description: 'a prediction is text' }, text: { type: 'string' } },
  required: ['type'],
  if: { properties: { type: { const: 'text' } }, required: ['type'] },
  then: { properties: { type: {}, text: {} }, required: ['text'], additionalProperties: false },
} as const;

const toolCall = {
  type: 'object',
  properties: {
    id: { type: 'string', maxLength: LIMITS.shortString },
    type: { const: 'function' },
    function: {
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1, maxLength: LIMITS.shortString },
        arguments: { description: 'An object keyed by parameter name, or that object as a JSON string.', type: ['object', 'string'] },
        parsed_arguments: { description: "The arguments as an SDK's parse() helper read them into its reply: accepted in the history and not sent to the model." },
      },
      required: ['name', 'arguments'],
      additionalProperties: false,
    },
    index: { type: 'integer', minimum: 0, description: "A streamed call's index, as an SDK's reply assembled from a stream keeps it: accepted in the history and not sent to the model." },
  },
  required: ['function'],
  additionalProperties: false,
} as const;

/** {"type": "function", "function": {"name": NAME}}: one tool, named. */
const namedFunction = {
  type: 'object',
  properties: {
    type: { const: 'function' },
    function: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false },
  },
  required: ['type', 'function'],
  additionalProperties: false,
} as const;

/** {"type": "allowed_tools", "allowed_tools": {"mode", "tools"}}: calls to some of the tools only. */
const allowedTools = {
  properties: {
    type: true,
    allowed_tools: {
      type: 'object',
      properties: { mode: { enum: ['auto', 'required'] }, tools: { type: 'array', minItems: 1, items: namedFunction } },
      required: ['mode', 'tools'],
      additionalProperties: false,
    },
  },
  required: ['allowed_tools'],
  additionalProperties: false,
} as const;

const functionToolSchema = {
  type: 'object',
  properties: {
    type: { const: 'function' },
    function: {
      type: 'object',
      properties: {
        name: { type: 'string', pattern: '^[a-zA-Z0-9_-]{1,64}$' },
        description: { type: 'string' },
        parameters: { type: 'object', description: 'A JSON schema of the arguments object.' },
        strict: { type: ['boolean', 'null'], description: 'Accepted; arguments always follow the schema exactly.' },
      },
      required: ['name'],
      additionalProperties: false,
    },
  },
  required: ['type', 'function'],
  additionalProperties: false,
} as const;

/** A function tool: its type first, so that another kind of tool is told it is not served
 * rather than that its `function` is missing. */
const toolSchema = {
  type: 'object',
  description: 'ChatTool',
  properties: { type: { const: 'function', description: "function tools are the only kind served: 'custom' tools are not" } },
  required: ['type'],
  if: { required: ['type'], properties: { type: { const: 'function' } } },
  then: functionToolSchema,
} as const;

export const chatMessageSchema = {
  type: 'object',
  description: 'ChatCompletionMessage',
  properties: {
    role: {
      enum: ['system', 'developer', 'user', 'assistant', 'tool'],
      description: "'developer' is OpenAI's newer name for the system instructions: the chat template gets it as 'system'.",
    },
    content: {
      description: "Text, or a list of text parts (concatenated; an assistant's refusal parts count as its text; a tool message's objects without 'type' are structured data, each read as its JSON on a line of its own).",
      anyOf: [{ type: 'string' }, { type: 'array', items: contentPart, minItems: 1 }, { type: 'null' }],
    },
    name: { type: 'string', maxLength: LIMITS.shortString },
    tool_calls: { type: ['array', 'null'], items: toolCall, minItems: 1, maxItems: LIMITS.tools },
    tool_call_id: { type: 'string', maxLength: LIMITS.shortString },
    reasoning_content: { type: ['string', 'null'], description: 'Reasoning models: the thinking before the answer (an addition); accepted in the history and not sent to the model.' },
    // The rest of an OpenAI reply's message, so a reply replayed as history (the Python SDK's
    // model_dump() writes every field, unset ones as null) is taken as it comes back.
    refusal: { type: ['string', 'null'], description: "An assistant's refusal, as OpenAI's replies carry it: the message's text when it has no content." },
    annotations: { type: ['array', 'null'], description: "An assistant reply's citations, as OpenAI's replies carry them: accepted in the history and not sent to the model." },
    audio: { type: 'null', description: 'Only null: this server has no audio replies to refer to.' },
    function_call: { type: 'null', description: "Only null: OpenAI's deprecated single call; send tool_calls." },
    parsed: { description: "The content as an SDK's parse() helper read it into its reply: accepted in the history and not sent to the model." },
  },
  required: ['role'],
  additionalProperties: false,
} as const;

/** The rule that `field`, when set, belongs to messages of `role` only. */
function onlyOn(role: 'tool' | 'assistant', field: string): RequestRule {
  return { 'x-param': field, description: `'${field}' is only allowed on ${role} messages.`, if: sets(field), then: { properties: { role: { const: role } } } };
}

const messageRules: RequestRule[] = [
  {
    'x-param': 'tool_call_id',
    description: "A message with role 'tool' needs the 'tool_call_id' of the call it answers.",
    if: { required: ['role'], properties: { role: { const: 'tool' } } },
    then: { required: ['tool_call_id'] },
  },
  onlyOn('tool', 'tool_call_id'),
  onlyOn('assistant', 'tool_calls'),
  onlyOn('assistant', 'refusal'),
  onlyOn('assistant', 'annotations'),
  onlyOn('assistant', 'parsed'),
  {
    'x-param': 'content',
    description: "A 'refusal' content part is only allowed on assistant messages (it is what the assistant said instead of an answer).",
    if: { required: ['content'], properties: { content: { type: 'array', contains: { required: ['type'], properties: { type: { const: 'refusal' } } } } } },
    then: { properties: { role: { const: 'assistant' } } },
  },
  {
    'x-param': 'content',
    description: "A content part without 'type' (structured data) is only allowed on tool messages; other messages take text parts ({\"type\": \"text\", \"text\": …}).",
    if: { required: ['content'], properties: { content: { type: 'array', contains: { type: 'object', not: { required: ['type'] } } } } },
    then: { properties: { role: { const: 'tool' } } },
  },
  {
    'x-param': 'content',
    description: "A message needs 'content' (or, from the assistant, 'tool_calls' or a 'refusal').",
    if: { not: { anyOf: [sets('tool_calls'), sets('refusal')] } },
    then: sets('content'),
  },
];

/** The request fields chat and text completions share (generate-fields.ts reads them). */
export const sharedRequestProperties = {
  model: { type: 'string', description: 'Model to use: the id GET /v1/models lists, or the MODEL argument or path the server was started with.' },
  // Nullable where OpenAI's schema has them so: clients that write unset fields as null send it.
  frequency_penalty: { type: ['number', 'null'], minimum: -2, maximum: 2, default: 0 },
  presence_penalty: { type: ['number', 'null'], minimum: -2, maximum: 2, default: 0 },
  logit_bias: {
    type: ['object', 'null'],
    propertyNames: { pattern: '^(0|[1-9][0-9]{0,9})$', description: 'a token id' },
    maxProperties: LIMITS.logitBiasEntries,
    additionalProperties: { type: 'number', minimum: -100, maximum: 100 },
    description: `Token id (as a string key) to a bias in [-100, 100]; at most ${LIMITS.logitBiasEntries} entries.`,
  },
  n: { type: ['integer', 'null'], minimum: 1, maximum: LIMITS.n, default: 1, description: `Choices to generate; at most ${LIMITS.n}, and at most the server's max_num_sequence.` },
  seed: {
    type: ['integer', 'null'],
    minimum: -Number.MAX_SAFE_INTEGER,
    maximum: Number.MAX_SAFE_INTEGER,
    description:
      'Seeds the sampler: the same request with the same seed gives the same output when its prompt is computed the same way. ' +
      'A prompt partly served from the prefix cache, or computed into other cells of the KV pool (which cells the prefix cache keeps decides), rounds differently, which can change a seeded (or, rarely, a greedy) answer: exact reproduction needs a server whose prefix cache is off (prefix_cache_max_num_recycling_seqs=0) and thread count fixed (--threads), with one request at a time; cache_prompt: false removes the cache hit\'s share. ' +
      'A server sampling in the model\'s graph (system_fingerprint ending in _device-sampling) draws with llama.cpp\'s generator: the same seed gives other text there than on a server sampling on the host.',
  },
  stop: {
    description: `A string or a list of at most ${LIMITS.stopStrings} strings, each of 1 to ${LIMITS.stopLength} characters.`,
    anyOf: [
      { type: 'string', minLength: 1, maxLength: LIMITS.stopLength },
      { type: 'array', items: { type: 'string', minLength: 1, maxLength: LIMITS.stopLength }, maxItems: LIMITS.stopStrings },
      { type: 'null' },
    ],
  },
  include_stop_str_in_output: { type: ['boolean', 'null'], default: false, description: "vLLM's: true outputs the stop string that ended a choice (OpenAI's are cut from the text)." },
  stop_token_ids: {
    type: ['array', 'null'],
    items: { type: 'integer', minimum: 0 },
    maxItems: LIMITS.stopTokenIds,
    description: "vLLM's: token ids whose generation ends a choice (finish_reason stop); a control token's text is left out, another's is output.",
  },
  return_tokens_as_token_ids: {
    type: ['boolean', 'null'],
    default: false,
    description: "vLLM's: logprobs name each token (and each top alternative) 'token_id:<id>' instead of by its text: the exact token, where several share a text.",
  },
  truncate_prompt_tokens: {
    anyOf: [{ type: 'integer', minimum: 1, maximum: LIMITS.maxTokens }, { const: -1 }, { type: 'null' }],
    description:
      "vLLM's: keep only the prompt's last k tokens (a chat's rendered conversation, template text and all; BOS included); -1 as many as leave room for max_tokens. usage.prompt_tokens counts those kept.",
  },
  bad_words: {
    type: ['array', 'null'],
    items: { type: 'string', minLength: 1, maxLength: LIMITS.stopLength },
    maxItems: LIMITS.badWords,
    description: "vLLM's: words never generated: each is tokenized as written and after a space, and the token that would complete either is not sampled.",
  },
  allowed_token_ids: {
    type: ['array', 'null'],
    items: { type: 'integer', minimum: 0 },
    minItems: 1,
    maxItems: LIMITS.allowedTokenIds,
    description: "vLLM's: the only tokens a choice may generate (an end token among them, or it runs to max_tokens).",
  },
  min_tokens: {
    type: ['integer', 'null'],
    minimum: 0,
    maximum: LIMITS.maxTokens,
    default: 0,
    description:
      "vLLM's: fewest tokens generated before a choice may end: until then no end-of-generation, turn-opening or stop_token_ids token is sampled and stop strings are not looked for (an output format's end, max_tokens and the context still end it). At most max_tokens.",
  },
  stream: { type: ['boolean', 'null'], default: false },
  stream_options: {
    type: ['object', 'null'],
    properties: { include_usage: { type: ['boolean', 'null'] }, include_obfuscation: { type: ['boolean', 'null'] }, continuous_usage_stats: { type: ['boolean', 'null'] } },
    additionalProperties: false,
    description:
      "Only with stream: true. include_usage adds a last chunk with usage and no choices; include_obfuscation (default false here, true on OpenAI's) pads every other chunk with an 'obfuscation' field of random length; " +
      "continuous_usage_stats (vLLM's; needs include_usage) puts the usage so far in every chunk instead of null.",
  },
  temperature: { type: ['number', 'null'], minimum: 0, maximum: 2, default: 1 },
  top_p: { type: ['number', 'null'], minimum: 0, maximum: 1, default: 1, description: "OpenAI's range: 0 keeps only the most likely token (as a vanishing nucleus would)." },
  ...samplingFieldProperties,
  user: { type: ['string', 'null'], maxLength: LIMITS.shortString },
  ignore_eos: { type: 'boolean', default: false },
  cache_prompt: {
    type: 'boolean',
    default: true,
    description:
      "false computes the whole prompt for this request instead of taking its first tokens from the prefix cache (an addition, llama-server's name). " +
      'A prompt computed in other batches rounds differently, so cache_prompt: false brings a repeated request closer to its first answer; exact reproduction also needs the same KV pool state: see seed.',
  },
  skip_special_tokens: {
    type: 'boolean',
    default: true,
    description: "false keeps the text of control tokens (and of user-defined image, audio and video markers such as Gemma 3's <start_of_image>) the model writes outside an output format (an addition, vLLM's name). Either way, a control token that opens a new turn ends the choice.",
  },
  response_format: {
    type: ['object', 'null'],
    properties: { type: { enum: ['text', 'json_object', 'json_schema', 'structural_tag', 'grammar', 'regex'] } },
    required: ['type'],
    description:
      'Output format, enforced while decoding. {"type": "text"}; {"type": "json_object"} (any JSON object, or the JSON schema in "schema", an object or a JSON string); ' +
      '{"type": "json_schema", "json_schema": {"name", "schema", "strict"}}; {"type": "structural_tag", "format": {...}} (see the structural tag format); ' +
      'and as additions {"type": "grammar", "grammar": "EBNF text"} and {"type": "regex", "pattern": "ECMAScript regex"}.',
  },
  ...peerFormatProperties,
} as const;

export const streamOptionsRule: RequestRule = { 'x-param': 'stream_options', description: "'stream_options' is only allowed when 'stream' is true.", if: sets('stream_options'), then: { required: ['stream'], properties: { stream: { const: true } } } };

/** vLLM's continuous_usage_stats fills in the usage that include_usage sends: alone it would be a silent no-op. */
export const continuousUsageRule: RequestRule = {
  'x-param': 'stream_options.continuous_usage_stats',
  description: "'continuous_usage_stats' needs 'include_usage': true (it puts the usage in every chunk, where include_usage sends null).",
  if: { required: ['stream_options'], properties: { stream_options: { type: 'object', required: ['continuous_usage_stats'], properties: { continuous_usage_stats: { const: true } } } } },
  then: { properties: { stream_options: { required: ['include_usage'], properties: { include_usage: { const: true } } } } },
};

/** vLLM's prompt_logprobs, on chat and text completions alike (prompt-logprobs.ts). */
export const promptLogprobsProperty = {
  type: ['integer', 'null'],
  minimum: 0,
  maximum: 20,
  description:
    "vLLM's addition: score the prompt. The response's prompt_logprobs (chat: at the top; text: on each choice) has one entry per prompt token, " +
    'null for the first, then {"<token id>": {"logprob", "rank", "decoded_token"}} with the prompt\'s own token first and the k most likely tokens after it. ' +
    "The model's own log-softmax: no logit_bias, penalty or format applies. A scored prompt is computed whole, never taken from the prefix cache. Not with stream: true.",
} as const;

export const promptLogprobsRule: RequestRule = {
  'x-param': 'prompt_logprobs',
  description: "'prompt_logprobs' is not available with 'stream': true (the scores come in the whole response, as vLLM's).",
  if: sets('prompt_logprobs'),
  then: { properties: { stream: { not: { const: true } } } },
};

const hasTools = { required: ['tools'], properties: { tools: { type: 'array', minItems: 1 } } };

const chatRules: RequestRule[] = [
  { 'x-param': 'top_logprobs', description: "'top_logprobs' requires 'logprobs' to be true.", if: sets('top_logprobs'), then: { required: ['logprobs'], properties: { logprobs: { const: true } } } },
  streamOptionsRule,
  continuousUsageRule,
  promptLogprobsRule,
  { 'x-param': 'tool_choice', description: "'tool_choice' is only allowed when 'tools' are given.", if: sets('tool_choice'), then: hasTools },
  { 'x-param': 'parallel_tool_calls', description: "'parallel_tool_calls' is only allowed when 'tools' are given.", if: sets('parallel_tool_calls'), then: hasTools },
];

/**
 * Chat fields OpenAI defines for what this server does not do, each with why: any value but
 * null (clients that send every field use it for "not set") is refused in OpenAI's words for a
 * parameter a model lacks (code unsupported_parameter), not as unknown or as a wrong type.
 */
export const UNSUPPORTED_CHAT_FIELDS: Readonly<Record<string, string>> = {
  reasoning_effort: "reasoning effort is for OpenAI's reasoning models, and no model here takes one",
  verbosity: "it is for OpenAI's GPT-5 models; ask for a length in the prompt or with max_tokens",
  audio: 'only text is generated',
  web_search_options: 'this server does not search the web',
  functions: "the deprecated 'functions' list is not taken: send each as a tool, {\"type\": \"function\", \"function\": {...}}, in 'tools'",
  function_call: "the deprecated 'function_call' is not taken: use 'tool_choice' with 'tools'",
};

export const chatCompletionRequestSchema = {
  type: 'object',
  description: 'Chat Completion Request',
  properties: {
    messages: { type: 'array', minItems: 1, maxItems: LIMITS.messages, items: { ...chatMessageSchema, allOf: messageRules }, description: 'Conversation so far.' },
    ...sharedRequestProperties,
    logprobs: { type: ['boolean', 'null'], default: false },
    top_logprobs: { type: ['integer', 'null'], minimum: 0, maximum: 20, description: 'Requires logprobs: true.' },
    prompt_logprobs: promptLogprobsProperty,
    max_tokens: { type: ['integer', 'null'], minimum: 1, maximum: LIMITS.maxTokens, description: 'Most tokens generated per choice.' },
    max_completion_tokens: { type: ['integer', 'null'], minimum: 1, maximum: LIMITS.maxTokens, description: "OpenAI's newer name for max_tokens; if both are given they must be equal." },
    tools: {
      type: ['array', 'null'],
      items: toolSchema,
      minItems: 1,
      maxItems: LIMITS.tools,
      description: 'Tools the model may call. Each name is unique; each parameters schema must compile (enforced on the arguments while decoding).',
    },
    tool_choice: {
      anyOf: [
        // Typed, so an object is told what is wrong inside it rather than that it is not one of the strings.
        { type: 'string', enum: ['none', 'auto', 'required'] },
        {
          type: 'object',
          properties: { type: { enum: ['function', 'allowed_tools'] } },
          required: ['type'],
          allOf: [
            { if: { required: ['type'], properties: { type: { const: 'allowed_tools' } } }, then: allowedTools },
            { if: { required: ['type'], properties: { type: { const: 'function' } } }, then: namedFunction },
          ],
        },
        { type: 'null' },
      ],
      description:
        '"none" (no calls), "auto" (text and/or calls; the default with tools), "required" (at least one call), {"type": "function", "function": {"name"}} (exactly that call, one of the tools) or {"type": "allowed_tools", "allowed_tools": {"mode": "auto" | "required", "tools": [{"type": "function", "function": {"name"}}, ...]}} (calls to those tools only; the prompt still lists every tool). Needs tools.',
    },
    parallel_tool_calls: { type: ['boolean', 'null'], default: true, description: 'false allows one call at most.' },
    continue_final_message: {
      type: ['boolean', 'null'],
      default: false,
      description: "vLLM's: true goes on writing the last message, which must be the assistant's with text (a prefill), instead of opening a new turn; the answer is the continuation alone. Not with tools or an output format.",
    },
    add_generation_prompt: { type: ['boolean', 'null'], default: true, description: "vLLM's: false only with continue_final_message: true." },
    chat_template_kwargs: {
      type: ['object', 'null'],
      maxProperties: 64,
      description: "vLLM's: more variables for the chat template (e.g. {\"enable_thinking\": false} for a template that reads it); a variable the template does not read changes nothing. messages, tools, add_generation_prompt, bos_token and eos_token are set by the server.",
    },
    store: {
      enum: [false, null],
      description: 'false or null: this server stores no completions (OpenAI keeps them for later retrieval when true, which it cannot do).',
    },
    // OpenAI's bookkeeping fields: checked as OpenAI checks them, then unused (they change no output).
    metadata: {
      type: ['object', 'null'],
      maxProperties: 16,
      propertyNames: { maxLength: 64, description: 'a key of at most 64 characters' },
      additionalProperties: { type: 'string', maxLength: 512 },
      description: 'Up to 16 string pairs (keys of 64 characters, values of 512) that OpenAI keeps with a stored completion; accepted and unused here, where nothing is stored.',
    },
    // OpenAI adds tiers and retention policies over time: any short name is taken, as none changes anything here.
    service_tier: { type: ['string', 'null'], maxLength: 64, description: "OpenAI's processing tier (auto, default, flex, priority, ...); accepted, and every request is served alike here." },
    prompt_cache_key: {
      type: ['string', 'null'],
      maxLength: LIMITS.shortString,
      description: "OpenAI's hint for routing requests to the same prompt cache; accepted and unused: the prefix cache here finds shared prefixes by their tokens.",
    },
    prompt_cache_retention: { type: ['string', 'null'], maxLength: 64, description: "How long OpenAI keeps a cached prefix (in-memory, 24h); accepted and unused: the prefix cache here keeps what its cells allow." },
    safety_identifier: { type: ['string', 'null'], maxLength: LIMITS.shortString, description: "OpenAI's stable id of an end user for abuse detection; accepted and unused." },
    prediction: {
      type: ['object', 'null'],
      properties: {
        type: { const: 'content' },
        content: { description: 'Text, or a list of at least one text part.', anyOf: [{ type: 'string' }, { type: 'array', items: textPart, minItems: 1 }] },
      },
      required: ['type', 'content'],
      additionalProperties: false,
      description:
        'Predicted Outputs: {"type": "content", "content": text or text parts} most of the answer is expected to repeat (a file or document being edited). ' +
        'With a --speculative-mode, its tokens are drafted where the output follows them, so a faithful prediction makes the answer faster; drafts are verified, so the output is what the model writes without it (up to near-ties that another batch shape may round the other way: see README, speculative decoding). ' +
        "usage.completion_tokens_details then counts the drafted tokens accepted and rejected. Without speculative decoding it is accepted and unused (both counts 0).",
    },
    modalities: {
      type: ['array', 'null'],
      items: { const: 'text', description: 'only text is generated here' },
      description: 'Output kinds: ["text"], the only one here.',
    },
    // Listed, so a client validating against /openapi.json sends null as the server takes it.
    ...Object.fromEntries(Object.entries(UNSUPPORTED_CHAT_FIELDS).map(([field, why]) => [field, { type: 'null', description: `Not supported here: ${why}. null (not set) is taken as left out.` }])),
  },
  required: ['messages', 'model'],
  additionalProperties: false,
  allOf: chatRules,
  'x-unsupported': UNSUPPORTED_CHAT_FIELDS,
} as const;

/** A streamed message piece: content text, or tool-call entries (id, type and name first, then arguments text). */
const deltaSchema = {
  type: 'object',
  description: 'ChatCompletionMessage delta',
  properties: {
    role: { const: 'assistant' },
    content: { type: ['string', 'null'] },
    refusal: { type: 'null', description: "In the first delta, beside the role, as OpenAI's: this server never refuses." },
    reasoning_content: { type: 'string', description: 'The next piece of the thinking (reasoning models; an addition).' },
    tool_calls: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          index: { type: 'integer' },
          id: { type: 'string' },
          type: { const: 'function' },
          function: { type: 'object', properties: { name: { type: 'string' }, arguments: { type: 'string', description: 'The next piece of the arguments JSON text.' } } },
        },
        required: ['index'],
      },
    },
  },
} as const;

const tokenLogprob = {
  type: 'object',
  properties: { token: { type: 'string' }, logprob: { type: 'number' }, bytes: { type: 'array', items: { type: 'integer' } } },
  required: ['token', 'logprob', 'bytes'],
} as const;

const logprobsSchema = {
  type: ['object', 'null'],
  properties: {
    content: {
      type: 'array',
      items: {
        type: 'object',
        properties: { ...tokenLogprob.properties, top_logprobs: { type: 'array', items: tokenLogprob } },
        required: [...tokenLogprob.required, 'top_logprobs'],
      },
    },
    refusal: { type: 'null', description: "OpenAI's refusal tokens: this server never refuses." },
  },
  required: ['content', 'refusal'],
} as const;

export const usageSchema = {
  type: 'object',
  properties: {
    prompt_tokens: { type: 'integer' },
    completion_tokens: { type: 'integer' },
    total_tokens: { type: 'integer' },
    prompt_tokens_details: {
      type: 'object',
      description: 'cached_tokens: prompt tokens whose KV cells came from the prefix cache instead of being computed.',
      properties: { cached_tokens: { type: 'integer' } },
      required: ['cached_tokens'],
    },
    completion_tokens_details: {
      type: 'object',
      description:
        'Present for a model that may think (reasoning_tokens), or for a request with a prediction (the other two). ' +
        'reasoning_tokens: of completion_tokens, those of the thinking, up to the one that closes it. ' +
        "With a prediction: its tokens drafted and accepted into the output, and drafted and rejected (computed, then thrown away); OpenAI's counts differ slightly: it counts the prediction's tokens that appear in the completion or not, where these count what was drafted.",
      properties: { reasoning_tokens: { type: 'integer' }, accepted_prediction_tokens: { type: 'integer' }, rejected_prediction_tokens: { type: 'integer' } },
    },
  },
  required: ['prompt_tokens', 'completion_tokens', 'total_tokens', 'prompt_tokens_details'],
} as const;

/** A response's prompt_logprobs (promptLogprobsProperty), vLLM's shape. */
export const promptLogprobsResponseSchema = {
  type: 'array',
  description: 'With prompt_logprobs: one entry per prompt token, null for the first; else token id to its score, the prompt\'s own token first, then the most likely tokens.',
  items: {
    anyOf: [
      { type: 'null' },
      {
        type: 'object',
        additionalProperties: {
          type: 'object',
          properties: { logprob: { type: 'number' }, rank: { type: 'integer', minimum: 1 }, decoded_token: { type: 'string' } },
          required: ['logprob', 'rank', 'decoded_token'],
        },
      },
    ],
  },
} as const;

/** The fields every completion response and chunk has, chat or text; a stream's last chunk adds usage. */
export function completionEnvelope(options: { description: string; object: string; choice: object; usage: 'required' | 'last chunk'; optional?: Record<string, object> }) {
  return {
    type: 'object',
    description: options.description,
    properties: {
      id: { type: 'string' },
      object: { const: options.object },
      created: { type: 'integer' },
      model: { type: 'string' },
      system_fingerprint: { type: 'string' },
      choices: { type: 'array', items: options.choice, ...(options.usage === 'last chunk' ? { description: 'One choice per chunk; none in the last chunk, which carries usage (stream_options.include_usage).' } : {}) },
      usage:
        options.usage === 'required'
          ? usageSchema
          : { anyOf: [usageSchema, { type: 'null' }], description: 'With stream_options.include_usage: the usage in the last chunk, null in every other one (as OpenAI sends them).' },
      ...options.optional,
    },
    required: ['id', 'object', 'created', 'model', 'system_fingerprint', 'choices', ...(options.usage === 'required' ? ['usage'] : [])],
  } as const;
}

/** A response's assistant message always has its role and content (null beside tool calls). */
const responseMessageSchema = { ...chatMessageSchema, required: ['role', 'content', 'refusal'] } as const;

/** Response and stream chunk differ only in `object`, the message field and the finish reasons. */
function chatCompletionSchema(options: { description: string; object: string; messageField: 'message' | 'delta'; finishReasons: (string | null)[] }) {
  const stream = options.messageField === 'delta';
  return completionEnvelope({
    description: options.description,
    object: options.object,
    choice: {
      type: 'object',
      properties: {
        index: { type: 'integer' },
        [options.messageField]: stream ? deltaSchema : responseMessageSchema,
        logprobs: logprobsSchema,
        finish_reason: { enum: options.finishReasons },
      },
      required: ['index', options.messageField, 'logprobs', 'finish_reason'],
    },
    usage: stream ? 'last chunk' : 'required',
    ...(stream ? {} : { optional: { prompt_logprobs: promptLogprobsResponseSchema } }),
  });
}

export const chatCompletionResponseSchema = chatCompletionSchema({
  description: 'ChatCompletionResponse (stream: false)',
  object: 'chat.completion',
  messageField: 'message',
  finishReasons: ['stop', 'length', 'tool_calls', 'error'],
});

export const chatCompletionChunkSchema = chatCompletionSchema({
  description: 'ChatCompletionStreamResponse: one `data:` event of a stream (stream: true), which ends with `data: [DONE]` (after an engine failure mid-stream, an error envelope is the last event before it)',
  object: 'chat.completion.chunk',
  messageField: 'delta',
  finishReasons: ['stop', 'length', 'tool_calls', null],
});

/** OpenAI's model object: `id` is the served model name. */
export const modelSchema = {
  type: 'object',
  properties: { id: { type: 'string' }, object: { const: 'model' }, created: { type: 'integer' }, owned_by: { type: 'string' } },
  required: ['id', 'object', 'created', 'owned_by'],
} as const;

export const modelListSchema = {
  type: 'object',
  properties: {
    object: { const: 'list' },
    data: { type: 'array', items: modelSchema },
  },
  required: ['object', 'data'],
} as const;

export const errorSchema = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      properties: {
        message: { type: 'string' },
        type: { type: 'string' },
        param: { type: ['string', 'null'] },
        code: { type: ['string', 'null'] },
      },
      required: ['message', 'type', 'param', 'code'],
    },
  },
  required: ['error'],
} as const;

export const healthSchema = {
  type: 'object',
  properties: { status: { enum: ['ok', 'loading', 'draining', 'engine_restarting', 'engine_stalled', 'engine_stopped'] } },
  required: ['status'],
} as const;
