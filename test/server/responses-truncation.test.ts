// The Responses API's `truncation: "auto"`: a conversation too long for the context loses its
// oldest items, as few as it takes, keeping the instructions and the newest item, never leaving
// a tool result first. The cut rule on a counting fake engine; then the tiny model behind the
// real server, where the answer's prompt must equal the first cut that fits sent whole.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { dropOldestToFit } from '../../runtime/api/chat-completions/fit-conversation.js';
import type { ChatRequest } from '../../runtime/api/chat-completions/chat-request.js';
import type { EngineClient } from '../../runtime/engine/client/engine-client.js';
import { EngineRequestError } from '../../runtime/engine/client/engine.js';
import { assertEnvelope } from '../helpers/api-errors.js';
import { post, startTinyServer, TINY_MODEL_ID, type TinyServer } from '../helpers/tiny-server.js';

const test = suite<{ s: TinyServer }>('responses truncation');

test.before(async (context) => {
  context.s = await startTinyServer({ engine: { overrides: { context_window_size: 256 } } });
});
test.after(async (context) => {
  await context.s.close();
});

/** An engine whose prompt has a token per character, in a context of `limit`; longer than that, tokenize refuses as the real one does. */
function countingEngine(limit: number): EngineClient {
  return {
    info: { config: { contextWindowSize: limit, maxTotalSeqLength: 10_000 } },
    async tokenize(text: string) {
      if (text.length > limit) throw new EngineRequestError({ code: 'context_length_exceeded', param: 'prompt', message: 'too long' });
      return Array.from(text, () => 1);
    },
  } as unknown as EngineClient;
}

type Role = ChatRequest['messages'][number]['role'];
const chat = (...turns: [Role, string][]): ChatRequest => ({ model: 'm', messages: turns.map(([role, content]) => ({ role, content }) as ChatRequest['messages'][number]) });
/** One character per message content character, plus the output limit. */
const render = (request: ChatRequest) => ({ prompt: request.messages.map((m) => m.content).join(''), maxTokens: 2 });
const contents = (request: ChatRequest) => request.messages.map((m) => m.content).join('|');

test('the fewest oldest messages dropped; instructions and the newest stay; never a tool result first', async () => {
  const request = chat(['system', 'SS'], ['user', 'u1u1'], ['assistant', 'a1a1'], ['user', 'u2u2'], ['assistant', 'a2'], ['tool', 't2t2'], ['user', 'u3']);
  // 22 characters + 2 fit 24: nothing dropped.
  assert.is(await dropOldestToFit(request, countingEngine(24), render), request);
  // 20 fit once u1 is gone (18 + 2); 19 only once a1 is too (14 + 2).
  assert.is(contents(await dropOldestToFit(request, countingEngine(20), render)), 'SS|a1a1|u2u2|a2|t2t2|u3');
  assert.is(contents(await dropOldestToFit(request, countingEngine(19), render)), 'SS|u2u2|a2|t2t2|u3');
  // 12: dropping u2 leaves a2 with its result (10 + 2); a cut never starts at t2 (its call would be gone).
  assert.is(contents(await dropOldestToFit(request, countingEngine(12), render)), 'SS|a2|t2t2|u3');
  assert.is(contents(await dropOldestToFit(request, countingEngine(11), render)), 'SS|u3');
  // Not even the newest fits: it goes on alone with the instructions, to be refused as too long.
  assert.is(contents(await dropOldestToFit(request, countingEngine(5), render)), 'SS|u3');
  // A developer message anywhere is an instruction too.
  const developer = chat(['user', 'u1u1'], ['developer', 'DD'], ['user', 'u2']);
  assert.is(contents(await dropOldestToFit(developer, countingEngine(6), render)), 'DD|u2');
});

/** A long conversation for a 256-token context: instructions, then turns of ~30 tokens each. */
function conversation(turns: number): { role: 'user' | 'assistant'; content: string }[] {
  return Array.from({ length: turns }, (_, i) => ({ role: i % 2 === 0 ? ('user' as const) : ('assistant' as const), content: `Turn ${i}: ${'the quick brown fox jumps over the lazy dog '.repeat(3)}` }));
}

test('truncation "auto": an input too long for the context loses its oldest items, as few as fit; "disabled" refuses it', async ({ s }) => {
  const items = conversation(12);
  const body = { model: TINY_MODEL_ID, instructions: 'Be brief.', max_output_tokens: 4, temperature: 0 };
  const refused = assertEnvelope(await post(`${s.url}/v1/responses`, { ...body, input: items }), 400);
  assert.is(refused.code, 'context_length_exceeded');
  const response = await s.client.responses.create({ ...body, input: items, truncation: 'auto' });
  assert.is(response.truncation, 'auto');
  assert.ok(response.output_text.length > 0);
  const inputTokens = response.usage!.input_tokens;
  assert.ok(inputTokens + 4 <= 256, `${inputTokens} input tokens`);
  // The same prompt as the first tail of the conversation that fits, sent whole: the fewest items dropped.
  for (let dropped = 1; dropped < items.length; dropped++) {
    const tail = await post(`${s.url}/v1/responses`, { ...body, input: items.slice(dropped) });
    if (tail.status !== 200) continue;
    assert.is(tail.json.usage.input_tokens, inputTokens, `the first tail that fits drops ${dropped} items`);
    return;
  }
  assert.unreachable('no tail of the conversation fits');
});

test('truncation "auto" with an input that fits changes nothing; one whose newest item alone is too long is refused', async ({ s }) => {
  const body = { model: TINY_MODEL_ID, max_output_tokens: 4, temperature: 0 };
  const [plain, auto] = await Promise.all([s.client.responses.create({ ...body, input: 'Hello there.' }), s.client.responses.create({ ...body, input: 'Hello there.', truncation: 'auto' })]);
  assert.is(auto.usage!.input_tokens, plain.usage!.input_tokens);
  assert.is(auto.output_text, plain.output_text);
  const huge = 'word '.repeat(400);
  const refused = assertEnvelope(await post(`${s.url}/v1/responses`, { ...body, input: [{ role: 'user', content: 'hi' }, { role: 'user', content: huge }], truncation: 'auto' }), 400);
  assert.is(refused.code, 'context_length_exceeded');
  assert.is(refused.param, 'input');
});

test.run();
