// Conversations render through the model's own Jinja template: text parts, names, and tool
// calls and results in the history.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { toTemplateMessages } from '../../runtime/chat/chat-messages.js';
import { ChatTemplate, ChatTemplateError } from '../../runtime/chat/chat-template.js';

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

test.run();
