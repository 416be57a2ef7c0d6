// A family whose protocol is written in control tokens must see them. llama.cpp's converter
// makes every added token that looks like `<|…|>` or `<｜…｜>` a control token, so Command-A's
// <|START_ACTION|> and <|END_THINKING|>, and Kimi-K2's <|tool_calls_section_begin|>, are control
// tokens in their GGUFs (those vocabularies are not in the fixtures: their markers are added to
// GPT-2's vocabulary here, typed as the converter types them, and loaded by the real llama.cpp).
// The server's grammars must match such a token where its text is expected (else the grammar
// refuses the very token the model writes its calls with), and the engine must keep its text
// without a grammar (else the thinking, the answer markup and the calls cannot be read back);
// other control tokens stay markup. A template's turn opener among them does not end a choice.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { GrammarCompiler, GrammarMatcher, type TokenizerInfo } from '../../compiler/index.js';
import { TOKEN_NORMAL, TOKEN_SPECIAL } from '../../compiler/tokenizer/tokenizer-info.js';
import { CONTROL, vocabularyWithAddedTokens } from '../../fixtures/added-tokens-vocabulary.js';
import { MarkupFilter } from '../../runtime/chat-format/answer-markup.js';
import { afterThinking, ReasoningSplitter } from '../../runtime/chat-format/reasoning.js';
import { toolCallTag, type ToolDefinition } from '../../runtime/chat-format/tool-call-tag.js';
import { ToolCallParser } from '../../runtime/chat-format/tool-call-parser.js';
import { TOOL_FORMATS, type ToolFormatKey } from '../../runtime/chat-format/tool-formats.js';
import { listDevices } from '../../runtime/backend/devices.js';
import { loadLlamaLibrary } from '../../runtime/backend/library.js';
import { LlamaModel } from '../../runtime/backend/model.js';
import type { Vocabulary } from '../../runtime/backend/vocabulary.js';
import { grammarVocabulary, grammarVocabularyFromGGUF } from '../../runtime/engine/worker/grammar-vocabulary.js';
import { grammarFromSpec, type GrammarSpec } from '../../runtime/grammar-service/grammar-spec.js';
import { Admission } from '../../runtime/engine/worker/admission.js';
import type { RequestState } from '../../runtime/engine/worker/sequence.js';
import { advance, type ChatChoice } from '../../runtime/api/chat-completions/chat-choice.js';
import { committedText } from '../helpers/committed-text.js';

const test = suite('protocol control tokens');

const MARKERS = [
  // Command-A / R7B
  '<|START_THINKING|>', '<|END_THINKING|>', '<|START_ACTION|>', '<|END_ACTION|>', '<|START_RESPONSE|>', '<|END_RESPONSE|>',
  // Kimi-K2
  '<|tool_calls_section_begin|>', '<|tool_calls_section_end|>', '<|tool_call_begin|>', '<|tool_call_argument_begin|>', '<|tool_call_end|>',
];
/** Control tokens that are no family's text: still markup. */
const OTHERS = ['<|reserved_0|>', '<|im_assistant|>'];

const tools: ToolDefinition[] = [{ name: 'get_time', parameters: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] } }];
const schemas = new Map(tools.map((t) => [t.name, t.parameters]));

let loaded: { path: string; vocab: Vocabulary; info: TokenizerInfo; dispose(): void } | undefined;
async function vocabulary() {
  if (!loaded) {
    const path = await vocabularyWithAddedTokens('gpt-2', [...MARKERS, ...OTHERS].map((text) => ({ text, type: CONTROL })));
    const { api } = loadLlamaLibrary({ kinds: ['cpu'] });
    const model = await LlamaModel.create(api, { path, devices: listDevices(api).filter((d) => d.kind === 'cpu'), vocabOnly: true });
    loaded = { path, vocab: model.vocabulary, info: grammarVocabulary(model.vocabulary), dispose: () => model.dispose() };
  }
  return loaded;
}

const idOf = (vocab: Vocabulary, text: string) => {
  const ids = Array.from(vocab.tokenize(text, { parseSpecial: true }));
  assert.is(ids.length, 1, `${text} is one token`);
  return ids[0]!;
};

interface Case {
  key: ToolFormatKey;
  spec: GrammarSpec;
  /** The model's output, <|reserved_0|> being a stray control token where it appears. */
  output: string;
  reasoning: string;
  content: string;
  calls: { name: string; arguments: unknown }[];
}

const cohere = TOOL_FORMATS.cohere;
const CASES: Case[] = [
  {
    key: 'cohere',
    spec: afterThinking({ kind: 'structural_tag', tag: toolCallTag(cohere, tools, { mode: 'required' }, true) }, 'open', cohere.thinking),
    output: 'The time.<|END_THINKING|><|START_ACTION|>[{"tool_call_id": "0", "tool_name": "get_time", "parameters": {"zone": "UTC"}}]<|END_ACTION|>',
    reasoning: 'The time.',
    content: '',
    calls: [{ name: 'get_time', arguments: { zone: 'UTC' } }],
  },
  {
    key: 'kimi',
    spec: afterThinking({ kind: 'structural_tag', tag: toolCallTag(TOOL_FORMATS.kimi, tools, { mode: 'auto' }, true) }, 'open'),
    output: 'Check.</think>On it.<|tool_calls_section_begin|><|tool_call_begin|>functions.get_time:0<|tool_call_argument_begin|>{"zone": "UTC"}<|tool_call_end|><|tool_calls_section_end|>',
    reasoning: 'Check.',
    content: 'On it.',
    calls: [{ name: 'get_time', arguments: { zone: 'UTC' } }],
  },
];

test('the markers are control tokens in llama.cpp; to grammars they are text, the other control tokens stay special', async () => {
  const { path, vocab, info } = await vocabulary();
  for (const text of [...MARKERS, ...OTHERS]) assert.ok(vocab.isControl(idOf(vocab, text)), `${text} is a control token`);
  for (const text of MARKERS) assert.is(info.kind[idOf(vocab, text)], TOKEN_NORMAL, `${text} matches as text`);
  for (const text of OTHERS) assert.is(info.kind[idOf(vocab, text)], TOKEN_SPECIAL, `${text} stays special`);
  assert.is((await grammarVocabularyFromGGUF(path)).fingerprint, info.fingerprint, 'compile-grammar --model reads the same vocabulary from the GGUF');
});


for (const c of CASES) {
  test(`${c.key}: the grammar takes the marker tokens the model writes; with it and without one, the text reads back`, async () => {
    const { vocab, info } = await vocabulary();
    const ids = Array.from(vocab.tokenize(c.output, { parseSpecial: true }));
    assert.ok(MARKERS.some((m) => ids.includes(idOf(vocab, m))), 'written with the marker tokens');
    const m = new GrammarMatcher(new GrammarCompiler(info).compile(grammarFromSpec(c.spec)));
    ids.forEach((id, step) => assert.ok(m.acceptToken(id), `token ${step} ${JSON.stringify(vocab.text(id))} is accepted`));
    assert.ok(m.isCompleted());
    const format = TOOL_FORMATS[c.key];
    for (const spec of [c.spec, undefined]) {
      const { text } = committedText(vocab, info, ids, spec ? { spec } : {});
      assert.is(text, c.output, `every marker is in the text${spec ? '' : ' (no grammar)'}`);
      const parser = new ToolCallParser(format, schemas, 'call_', false);
      const choice: ChatChoice = { finish: undefined, parser, splitter: new ReasoningSplitter('open', format.thinking), markup: new MarkupFilter(format.markup ?? []) };
      const deltas = [...advance(choice, text), ...advance(choice, undefined)];
      const got = {
        reasoning: deltas.map((d) => d.reasoning_content ?? '').join(''),
        content: deltas.map((d) => d.content ?? '').join(''),
        calls: parser.toolCalls.map((call) => ({ name: call.name, arguments: JSON.parse(call.arguments) as unknown })),
      };
      assert.equal(got, { reasoning: c.reasoning, content: c.content, calls: c.calls }, `${c.key}${spec ? '' : ' (no grammar)'}`);
    }
  });
}

test('without a grammar, Cohere\'s thinking and response markers are kept and other control tokens left out', async () => {
  const { vocab, info } = await vocabulary();
  const output = 'Hmm.<|END_THINKING|><|START_RESPONSE|>Noon<|reserved_0|> in UTC.<|END_RESPONSE|>';
  const { text } = committedText(vocab, info, Array.from(vocab.tokenize(output, { parseSpecial: true })));
  assert.is(text, 'Hmm.<|END_THINKING|><|START_RESPONSE|>Noon in UTC.<|END_RESPONSE|>');
  const choice: ChatChoice = { finish: undefined, parser: undefined, splitter: new ReasoningSplitter('open', cohere.thinking), markup: new MarkupFilter(cohere.markup ?? []) };
  const deltas = [...advance(choice, text), ...advance(choice, undefined)];
  assert.is(deltas.map((d) => d.reasoning_content ?? '').join(''), 'Hmm.');
  assert.is(deltas.map((d) => d.content ?? '').join(''), 'Noon in UTC.');
});

test('a protocol token in the generation prompt does not open a turn; another control token there does', async () => {
  const { vocab } = await vocabulary();
  const admission = new Admission(vocab, vocab.size, { maxNumSequence: 4, lengthLimit: 1000 });
  const admit = (turnOpener: string) => admission.admit(1, { prompt: 'Hi', maxTokens: 10, turnOpener }) as RequestState;
  assert.equal([...admit('<|im_assistant|><|START_THINKING|>').turnOpeners], [idOf(vocab, '<|im_assistant|>')]);
});

test.after(() => loaded?.dispose());

test.run();
