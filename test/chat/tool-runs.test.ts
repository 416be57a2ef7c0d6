// Consecutive tool results for templates that demand alternating roles: sent as one user turn
// when the template knows no tools, as one tool message when it renders tool messages itself
// but refuses two in a row; left alone for templates that accept them.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mergeToolRuns, toTemplateMessages, type IncomingMessage } from '../../runtime/chat-format/chat-messages.js';
import { ChatTemplate, ChatTemplateError } from '../../runtime/chat-format/chat-template.js';
import { TOOL_FORMATS } from '../../runtime/chat-format/tool-formats.js';
import { withToolPrompt } from '../../runtime/chat-format/tool-prompt.js';
import { alternatingTemplate, toolRunRefusingTemplate, twoResultsInARow } from './strict-templates.js';

const test = suite('tool results in a row');

const history = toTemplateMessages(twoResultsInARow as IncomingMessage[]);
const tokens = { bos: '', eos: '' };

test('mergeToolRuns joins each run of tool messages under the first call id, and only those', () => {
  const merged = mergeToolRuns([...history, { role: 'assistant', content: 'Warm.' }, { role: 'tool', tool_call_id: 'x', content: 'lone' }]);
  assert.equal(merged.map((message) => message.role), ['user', 'assistant', 'tool', 'assistant', 'tool']);
  assert.equal(merged[2], { role: 'tool', tool_call_id: 'call_1', content: '18 C\n24 C' });
  assert.equal(merged[4], { role: 'tool', tool_call_id: 'x', content: 'lone' });
  assert.equal(mergeToolRuns(history.slice(0, 3)), history.slice(0, 3));
});

test('the alternating template really refuses two user turns in a row', () => {
  const strict = new ChatTemplate(alternatingTemplate, tokens);
  assert.throws(
    () => strict.render([{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }, { role: 'user', content: 'c' }, { role: 'user', content: 'd' }]),
    (error: unknown) => error instanceof ChatTemplateError && /roles must alternate/.test((error as Error).message),
  );
});

test('a template without tools gets both results in one user turn, which an alternating template accepts', () => {
  const strict = new ChatTemplate(alternatingTemplate, tokens);
  const prompt = strict.render(withToolPrompt(history, [], TOOL_FORMATS.hermes));
  assert.is(
    prompt,
    '[user]Weather in Paris and Rome?\n' +
      '[assistant]<tool_call>\n{"name": "get_weather", "arguments": {"city":"Paris"}}\n</tool_call>\n<tool_call>\n{"name": "get_weather", "arguments": {"city":"Rome"}}\n</tool_call>\n' +
      '[user]<tool_response>\n18 C\n</tool_response>\n<tool_response>\n24 C\n</tool_response>\n' +
      '[assistant]',
  );
});

test('a template that renders tool messages but refuses two in a row gets them as one', () => {
  const strict = new ChatTemplate(toolRunRefusingTemplate, tokens);
  assert.ok(strict.refusesToolRuns);
  assert.ok(strict.render(history).endsWith('<tool id=call_1>18 C\n24 C</tool>\n<assistant>'), strict.render(history));
});

test('templates that accept tool messages in a row get them as sent', () => {
  const chatml = new ChatTemplate(undefined, tokens);
  assert.not.ok(chatml.refusesToolRuns);
  assert.ok(chatml.render(history).includes('<|im_start|>tool\n18 C<|im_end|>\n<|im_start|>tool\n24 C<|im_end|>'));
  // A template that refuses any conversation is not one that refuses runs: it keeps its own error.
  const refusing = new ChatTemplate("{{ raise_exception('no') }}", tokens);
  assert.not.ok(refusing.refusesToolRuns);
  assert.throws(() => refusing.render(history), (error: unknown) => error instanceof ChatTemplateError && /no/.test((error as Error).message));
});

test("a tool message's structured data reads as its JSON, a line each; text parts alone join as written; refusal parts are an assistant's text", () => {
  const [tool, plain, refused] = toTemplateMessages([
    { role: 'tool', tool_call_id: 'c1', content: [{ temperature: '20C', sky: 'sunny' }, { type: 'text', text: 'as of noon' }] },
    { role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'Partly: ' }, { type: 'refusal', refusal: 'no more.' }] },
  ]);
  assert.is(tool!.content, '{"temperature":"20C","sky":"sunny"}\nas of noon');
  assert.is(plain!.content, 'ab');
  assert.is(refused!.content, 'Partly: no more.');
});

test.run();
