// A conversation with earlier calls and their results: the tools, the calls (arguments sent as
// an object or as a JSON string) and the results reach the prompt, through the template when it
// knows tools and through a system block in the format's own syntax when it does not; and the
// server answers such a conversation with a new valid call.
import type OpenAI from 'openai';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ChatTemplate } from '../../runtime/chat-format/chat-template.js';
import { TOOL_FORMATS } from '../../runtime/chat-format/tool-formats.js';
import { toGenerateRequest } from '../../runtime/api/chat-completions/chat-prompt.js';
import type { CompletionContext } from '../../runtime/api/completion-context.js';
import type { EngineClient } from '../../runtime/engine/client/engine-client.js';
import { parseChatRequest } from '../../runtime/api/chat-completions/chat-request.js';
import { toolSetupOf } from '../../runtime/api/chat-completions/tool-calls.js';
import { functionCalls } from './helpers.js';
import { startTinyServer, TINY_MODEL_ID } from '../helpers/tiny-server.js';

const test = suite('multi-turn tool conversations');

const tools: OpenAI.ChatCompletionTool[] = [
  { type: 'function', function: { name: 'get_weather', description: 'Current weather', parameters: { type: 'object', properties: { city: { type: 'string', maxLength: 12 } }, required: ['city'] } } },
];
const messages: OpenAI.ChatCompletionMessageParam[] = [
  { role: 'user', content: 'Weather in Paris and Rome?' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } },
      { id: 'call_2', type: 'function', function: { name: 'get_weather', arguments: { city: 'Rome' } as unknown as string } },
    ],
  },
  { role: 'tool', tool_call_id: 'call_1', content: '18 C, sunny' },
  { role: 'tool', tool_call_id: 'call_2', content: '24 C, clear' },
  { role: 'user', content: 'And Oslo?' },
];

// SmolLM2's template: ChatML that knows nothing of tools.
const noToolsTemplate =
  "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

function promptWith(template: string | undefined, templateKnowsTools: boolean): string {
  const request = parseChatRequest({ model: 'm', messages, tools });
  const context = {
    engine: { info: { addBos: false, bosText: '' } } as unknown as EngineClient,
    template: new ChatTemplate(template, { bos: '', eos: '' }),
    tools: { format: TOOL_FORMATS.hermes, templateKnowsTools, arguments: 'object' },
    reasoning: false,
  } as CompletionContext;
  const { prompt } = toGenerateRequest(request, context, 'trace', toolSetupOf(request, TOOL_FORMATS.hermes));
  assert.type(prompt, 'string');
  return prompt as string;
}

const call = (city: string) => `<tool_call>\n{"name": "get_weather", "arguments": {"city": "${city}"}}\n</tool_call>`;

test('a template that knows tools renders the tools, both calls and the results', () => {
  const prompt = promptWith(undefined, true);
  assert.match(prompt, /<tools>\n\{"type": "function", "function": \{"name": "get_weather"/);
  assert.ok(prompt.includes(`<|im_start|>assistant\n${call('Paris')}\n${call('Rome')}<|im_end|>`), prompt);
  assert.ok(prompt.includes('<|im_start|>tool\n18 C, sunny<|im_end|>'));
  assert.ok(prompt.endsWith('<|im_start|>user\nAnd Oslo?<|im_end|>\n<|im_start|>assistant\n'));
});

test('a template that knows no tools gets a system block, calls in the assistant text and the results as one turn of tool_response blocks', () => {
  const prompt = promptWith(noToolsTemplate, false);
  assert.ok(prompt.startsWith('<|im_start|>system\n# Tools'), prompt);
  assert.match(prompt, /"name":"get_weather"/);
  assert.ok(prompt.includes('To call a function, write:\n<tool_call>\n{"name": "<function-name>", "arguments": <arguments-json-object>}\n</tool_call>'));
  const compact = (city: string) => `<tool_call>\n{"name": "get_weather", "arguments": {"city":"${city}"}}\n</tool_call>`;
  assert.ok(prompt.includes(`<|im_start|>assistant\n${compact('Paris')}\n${compact('Rome')}<|im_end|>`), prompt);
  // Both results of the round in one user turn, as Hermes-style templates write them.
  assert.ok(prompt.includes('<|im_start|>user\n<tool_response>\n18 C, sunny\n</tool_response>\n<tool_response>\n24 C, clear\n</tool_response><|im_end|>'), prompt);
});

test('the server answers a conversation with tool results with a new valid call', async () => {
  const s = await startTinyServer();
  try {
    const completion = await s.client.chat.completions.create({ model: TINY_MODEL_ID, messages, tools, seed: 2, tool_choice: 'required', parallel_tool_calls: false, max_tokens: 60 });
    const choice = completion.choices[0]!;
    assert.is(choice.finish_reason, 'tool_calls');
    const args = functionCalls(choice.message)[0]!.function.arguments as unknown as { city: string };
    assert.type(args.city, 'string');
  } finally {
    await s.close();
  }
});

test.run();
