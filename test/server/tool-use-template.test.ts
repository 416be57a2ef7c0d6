// A model whose default template has no tool section but which carries a second one for tool
// use (`tokenizer.chat_template.tool_use`): requests with tools are written in that one, the
// others in the default. Through HTTP on a tiny model made with both templates.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type OpenAI from 'openai';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { makeTinyModel } from '../../fixtures/tiny-model.js';
import { toTemplateMessages, toTemplateTools } from '../../runtime/chat-format/chat-messages.js';
import { ChatTemplate } from '../../runtime/chat-format/chat-template.js';
import { chatmlTemplate } from '../../runtime/chat-format/chatml-template.js';
import { startTinyServer, TINY_MODEL_ID, type TinyServer } from '../helpers/tiny-server.js';

const test = suite<{ s: TinyServer; dir: string }>('tool_use chat template');

/** ChatML turns without any tool section. */
const DEFAULT_TEMPLATE = "{%- for m in messages %}{{- '<|im_start|>' + m.role + '\\n' + m.content + '<|im_end|>\\n' }}{%- endfor %}{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}";

test.before(async (context) => {
  context.dir = mkdtempSync(join(tmpdir(), 'lmforge-tool-use-'));
  const modelPath = await makeTinyModel({ out: join(context.dir, 'tiny-tool-use.gguf'), chatTemplate: DEFAULT_TEMPLATE, toolUseTemplate: chatmlTemplate });
  context.s = await startTinyServer({ engine: { modelPath } });
});
test.after(async (context) => {
  await context.s.close();
  rmSync(context.dir, { recursive: true, force: true });
});

const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Oslo?' }];
const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'get_weather', description: 'The weather in a city.', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }];

/** The prompt tokens of `text` as the server tokenizes a raw prompt. */
async function tokensOf(s: TinyServer, text: string): Promise<number> {
  const reply = await s.client.completions.create({ model: TINY_MODEL_ID, prompt: text, max_tokens: 1 });
  return reply.usage!.prompt_tokens;
}

test('requests with tools are written in the tool_use template, the others in the default; start-up says so', async ({ s }) => {
  assert.is(s.server.templateNote, "the model's own; with tools, the model's tool_use template (tokenizer.chat_template.tool_use): its default has no tool section");
  const render = (source: string, withTools: boolean) =>
    new ChatTemplate(source, { bos: '', eos: '' }, []).render(toTemplateMessages(messages as never), { addGenerationPrompt: true, ...(withTools ? { tools: toTemplateTools(tools as never) } : {}) });
  const toolPrompt = render(chatmlTemplate, true);
  assert.match(toolPrompt, /<tools>\n\{"type": "function", "function": \{"name": "get_weather"/, 'the tool_use template writes the tools');

  const plain = await s.client.chat.completions.create({ model: TINY_MODEL_ID, messages, max_tokens: 1 });
  assert.is(plain.usage!.prompt_tokens, await tokensOf(s, render(DEFAULT_TEMPLATE, false)));
  const withTools = await s.client.chat.completions.create({ model: TINY_MODEL_ID, messages, tools, max_tokens: 1 });
  assert.is(withTools.usage!.prompt_tokens, await tokensOf(s, toolPrompt));
});

test.run();
