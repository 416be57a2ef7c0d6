// Conversations render through the model's own Jinja template: text parts, names, and tool
// calls and results in the history.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFile } from 'node:fs/promises';
import { toTemplateMessages, toTemplateTools } from '../../runtime/chat-format/chat-messages.js';
import { ChatTemplate, ChatTemplateError } from '../../runtime/chat-format/chat-template.js';
import { llamaTemplatePath } from '../../fixtures/vocabularies.js';

const test = suite('chat template');

const history = toTemplateMessages([
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: [{ type: 'text', text: 'Weather in ' }, { type: 'text', text: 'Paris?' }] },
  { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } }] },
  { role: 'tool', tool_call_id: 'call_1', content: '{"temp": 21}' },
]);

test('the ChatML fallback renders every role, joined text parts and tool calls with object arguments', () => {
  const template = new ChatTemplate(undefined, { bos: '', eos: '<|im_end|>' });
  assert.ok(template.isFallback);
  const text = template.render(history);
  assert.is(
    text,
    '<|im_start|>system\nBe brief.<|im_end|>\n' +
      '<|im_start|>user\nWeather in Paris?<|im_end|>\n' +
      '<|im_start|>assistant\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call><|im_end|>\n' +
      '<|im_start|>tool\n{"temp": 21}<|im_end|>\n' +
      '<|im_start|>assistant\n',
  );
});

test('a model template gets bos_token and eos_token and the generation prompt switch', () => {
  const template = new ChatTemplate("{{ bos_token }}{% for m in messages %}[{{ m.role }}:{{ m.content }}]{% endfor %}{% if add_generation_prompt %}>{% endif %}", { bos: '<s>', eos: '</s>' });
  assert.is(template.render([{ role: 'user', content: 'hi' }]), '<s>[user:hi]>');
  assert.is(template.render([{ role: 'user', content: 'hi' }], { addGenerationPrompt: false }), '<s>[user:hi]');
});

test('arguments that are not a JSON object stay as the text the client sent', () => {
  const [message] = toTemplateMessages([{ role: 'assistant', content: '', tool_calls: [{ function: { name: 'f', arguments: 'not json' } }] }]);
  assert.equal(message!.tool_calls![0]!.function.arguments, 'not json');
  assert.is(message!.tool_calls![0]!.id, 'call_0_0');
});

test('a template that raises becomes a ChatTemplateError', () => {
  const template = new ChatTemplate("{{ raise_exception('roles must alternate') }}", { bos: '', eos: '' });
  assert.throws(() => template.render([{ role: 'user', content: 'x' }]), (error: unknown) => error instanceof ChatTemplateError && /roles must alternate/.test((error as Error).message));
});

test('a tool without a description renders through gpt-oss\'s real template (it concatenates the description)', async () => {
  const template = new ChatTemplate(await readFile(await llamaTemplatePath('openai-gpt-oss-120b'), 'utf8'), { bos: '<|startoftext|>', eos: '<|return|>' });
  const tools = [{ type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: { zone: { type: 'string' } } } } }];
  const messages = toTemplateMessages([{ role: 'user', content: 'Time in Paris?' }]);
  assert.throws(() => template.render(messages, { tools }), (error: unknown) => error instanceof ChatTemplateError, 'the template itself fails on a missing description');
  const text = template.render(messages, { tools: toTemplateTools(tools) });
  assert.match(text, 'type get_time = (_: {\nzone?: string,\n}) => any;');
  assert.not.match(text, 'undefined');
  const described = toTemplateTools([{ type: 'function', function: { name: 'f', description: 'Does f.' } }]);
  assert.is(described[0]!.function.description, 'Does f.', 'a description given is kept');
});

test.run();
