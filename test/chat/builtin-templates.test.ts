// The built-in templates render the turn formats of their families exactly, open the model's
// turn with the text the engine stops on, and the plain one's stops cut where the next turn starts.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { BUILTIN_TEMPLATE_NAMES, BUILTIN_TEMPLATES, type BuiltinTemplateName } from '../../runtime/chat-format/builtin-templates.js';
import type { TemplateMessage } from '../../runtime/chat-format/chat-messages.js';
import { ChatTemplate } from '../../runtime/chat-format/chat-template.js';
import { StopStringMatcher } from '../../runtime/sampling/stop-string-matcher.js';

const test = suite('built-in chat templates');

const conversation: TemplateMessage[] = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'Hi ' },
  { role: 'assistant', content: 'Hello!' },
  { role: 'user', content: 'Capital of France?' },
];
const template = (name: BuiltinTemplateName) => new ChatTemplate(BUILTIN_TEMPLATES[name].source, { bos: '<bos>', eos: '<eos>' }, BUILTIN_TEMPLATES[name].stop);

test('the set is small and documented', () => {
  assert.equal(BUILTIN_TEMPLATE_NAMES, ['chatml', 'gemma', 'llama3', 'plain']);
  for (const name of BUILTIN_TEMPLATE_NAMES) assert.ok(BUILTIN_TEMPLATES[name].summary.length > 10, name);
});

test('gemma: the system text opens the first user turn, the assistant is `model`, BOS first', () => {
  const gemma = template('gemma');
  assert.is(
    gemma.render(conversation),
    '<bos><start_of_turn>user\nBe brief.\n\nHi<end_of_turn>\n<start_of_turn>model\nHello!<end_of_turn>\n' +
      '<start_of_turn>user\nCapital of France?<end_of_turn>\n<start_of_turn>model\n',
  );
  assert.is(gemma.generationPrompt, '<start_of_turn>model\n');
  // With no user turn to open, the system text gets a user turn of its own.
  assert.is(gemma.render([{ role: 'system', content: 'S' }, { role: 'assistant', content: 'A' }], { addGenerationPrompt: false }), '<bos><start_of_turn>user\nS<end_of_turn>\n<start_of_turn>model\nA<end_of_turn>\n');
});

test('llama3: header turns, tool results under ipython', () => {
  const llama3 = template('llama3');
  assert.is(
    llama3.render([{ role: 'user', content: 'Hi' }, { role: 'tool', content: '42' }]),
    '<bos><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|><|start_header_id|>ipython<|end_header_id|>\n\n42<|eot_id|>' +
      '<|start_header_id|>assistant<|end_header_id|>\n\n',
  );
  assert.is(llama3.generationPrompt, '<|start_header_id|>assistant<|end_header_id|>\n\n');
});

test('plain: a text transcript that ends on the open assistant line', () => {
  const plain = template('plain');
  assert.is(plain.render(conversation), 'System: Be brief.\n\nUser: Hi\n\nAssistant: Hello!\n\nUser: Capital of France?\n\nAssistant:');
  assert.is(plain.generationPrompt, 'Assistant:');
});

test("plain: the model's next turn is cut before its line breaks, whatever the tokens", () => {
  const cut = (pieces: string[]) => {
    const matcher = new StopStringMatcher(BUILTIN_TEMPLATES.plain.stop);
    let text = '';
    for (const piece of pieces) {
      const pushed = matcher.push(piece);
      text += pushed.emit;
      if (pushed.stopped) return text;
    }
    return `${text}${matcher.flush()} (no stop)`;
  };
  assert.is(cut([' Paris', '.', '\n', '\n', 'User', ':', ' And']), ' Paris.');
  assert.is(cut([' Paris.\nUser: And']), ' Paris.');
  assert.is(cut([' Paris.\n\nAssistant: Also']), ' Paris.');
  assert.is(cut([' Users: many.\n\nA user: me']), ' Users: many.\n\nA user: me (no stop)');
});

test('chatml: the same template the tiny models carry', () => {
  assert.is(template('chatml').generationPrompt, '<|im_start|>assistant\n');
  assert.ok(template('chatml').render(conversation).startsWith('<|im_start|>system\nBe brief.<|im_end|>\n'));
});

test.run();
