// OpenAI's legacy `echo` with `logprobs`, and `max_tokens: 0`: the prompt's tokens scored by the
// model, through the official `openai` client on the tiny model. This is how evaluation
// harnesses (lm-evaluation-harness's `local-completions`) ask a server for loglikelihoods: token
// id prompts, `echo: true`, `max_tokens` 0 or 1, `logprobs` 1, the prompt's part of the lists.
// The reference is the engine's own generation: tokens generated greedily, sent back as a
// prompt, must score as they were generated.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type OpenAI from 'openai';
import type { TokenLogprob } from '../../runtime/engine/protocol.js';
import { scoredRows } from '../../runtime/engine/engine-config.js';
import { post, startTinyServer, TINY_MODEL_ID, type TinyServer } from '../helpers/tiny-server.js';

const test = suite<{ s: TinyServer; device: TinyServer }>('prompt logprobs');

test.before(async (context) => {
  context.s = await startTinyServer();
  context.device = await startTinyServer({ engine: { sampling: 'device' } });
});
test.after(async ({ s, device }) => {
  await s.close();
  await device.close();
});

const model = TINY_MODEL_ID;
/** Seen: up to 3e-3 between batch shapes on the f32 tiny model (a prompt's rows come from one batch, generated ones from a step each). */
const TOLERANCE = 1e-2;
const ids = (length: number, seed: number) => Array.from({ length }, (_, i) => (i * 7919 + seed * 104_729 + 13) % 50_000);

/** `prompt` continued greedily by the engine for `tokens` tokens: the token ids and their logprobs (3 most likely each). */
async function generated(s: TinyServer, prompt: number[], tokens: number): Promise<{ tokens: number[]; logprobs: TokenLogprob[] }> {
  const out = { tokens: [] as number[], logprobs: [] as TokenLogprob[] };
  for await (const event of s.engine.generate({ prompt, maxTokens: tokens, ignoreEos: true, sampling: { temperature: 0, logprobs: true, topLogprobs: 3 } })) {
    if (event.type !== 'delta') continue;
    out.tokens.push(...event.tokens);
    out.logprobs.push(...(event.logprobs ?? []));
  }
  assert.is(out.tokens.length, tokens);
  return out;
}

type Lists = OpenAI.CompletionChoice.Logprobs;

/** The generated tokens' logprobs equal the scores of the same tokens echoed back as a prompt, from `from` on. */
function assertScoredAsGenerated(lists: Lists, from: number, expected: TokenLogprob[]): void {
  expected.forEach((wanted, i) => {
    const at = from + i;
    const logprob = lists.token_logprobs![at]!;
    assert.ok(Math.abs(logprob - wanted.logprob) <= TOLERANCE, `position ${at}: scored ${logprob}, generated with ${wanted.logprob}`);
    // Generated greedily, it was the most likely token there: it heads the prompt's top list
    // too, or ties with its head (batch shapes round otherwise: 2e-4 apart was seen).
    const top = Object.entries(lists.top_logprobs![at]!);
    assert.ok(top[0]![1] - logprob <= TOLERANCE, `position ${at}: ${JSON.stringify(top)}`);
    assert.ok(Math.abs(top[0]![1] - wanted.top[0]!.logprob) <= TOLERANCE);
  });
}

test('tokens generated greedily, echoed back as a prompt with max_tokens 0, score as they were generated', async ({ s }) => {
  const prompt = ids(20, 1);
  const continuation = await generated(s, prompt, 12);
  const completion = await s.client.completions.create({ model, prompt: [...prompt, ...continuation.tokens], echo: true, max_tokens: 0, logprobs: 3 });
  const [choice] = completion.choices;
  assert.is(choice!.finish_reason, 'length');
  assert.is(completion.usage!.completion_tokens, 0);
  assert.is(completion.usage!.prompt_tokens, 32);
  const lists = choice!.logprobs!;
  assert.is(lists.tokens!.length, 32, 'one entry per prompt token');
  assert.is(lists.token_logprobs![0], null, 'nothing comes before the first token');
  assert.is(lists.top_logprobs![0], null);
  for (let i = 1; i < 32; i++) {
    assert.ok(lists.token_logprobs![i]! <= 0, `position ${i}`);
    const top = lists.top_logprobs![i]!;
    // The 3 most likely, and the prompt's own token where it is not among them.
    assert.ok(Object.keys(top).length === 3 || Object.keys(top).length === 4, JSON.stringify(top));
    assert.is(top[lists.tokens![i]!], lists.token_logprobs![i]);
  }
  assertScoredAsGenerated(lists, 20, continuation.logprobs);
});

test('a prompt longer than a step scores is scored over several steps, each position once', async ({ s }) => {
  const rows = scoredRows(s.engine.info.vocabSize);
  const prompt = ids(rows - 30, 2);
  const continuation = await generated(s, prompt, 60);
  assert.ok(prompt.length + 60 > rows, 'the generated part straddles two steps of scoring');
  const completion = await s.client.completions.create({ model, prompt: [...prompt, ...continuation.tokens], echo: true, max_tokens: 0, logprobs: 1 });
  const lists = completion.choices[0]!.logprobs!;
  assert.is(lists.tokens!.length, prompt.length + 60);
  assertScoredAsGenerated(lists, prompt.length, continuation.logprobs);
});

test('echo with logprobs: the prompt scored in front of the generated tokens, whole and streamed alike, for every choice and prompt', async ({ s }) => {
  const request = { model, prompt: ['Once upon a time', 'The fox ran'], n: 2, max_tokens: 3, echo: true, logprobs: 2, seed: 5, temperature: 0.8 };
  const whole = await s.client.completions.create(request);
  const stream = await s.client.completions.create({ ...request, stream: true });
  const streamed = new Map<number, { text: string; lists: Lists }>();
  let first = true;
  for await (const chunk of stream) {
    for (const piece of chunk.choices) {
      const choice = streamed.get(piece.index) ?? { text: '', lists: { tokens: [], token_logprobs: [], top_logprobs: [], text_offset: [] } };
      if (!streamed.has(piece.index)) {
        // A choice's first chunk brings the whole echo and its scores.
        assert.ok(piece.text.startsWith(request.prompt[Math.floor(piece.index / 2)]!), JSON.stringify(piece.text));
        assert.is(piece.logprobs!.token_logprobs![0], null);
      }
      streamed.set(piece.index, choice);
      choice.text += piece.text;
      if (piece.logprobs) for (const key of ['tokens', 'token_logprobs', 'top_logprobs', 'text_offset'] as const) (choice.lists[key] as unknown[]).push(...(piece.logprobs[key] as unknown[]));
    }
    first = false;
  }
  assert.not.ok(first);
  assert.is(whole.choices.length, 4);
  for (const choice of whole.choices) {
    const promptText = request.prompt[Math.floor(choice.index / 2)]!;
    const lists = choice.logprobs!;
    assert.ok(choice.text.startsWith(promptText));
    assert.is(streamed.get(choice.index)!.text, choice.text, `choice ${choice.index}`);
    assert.equal(JSON.parse(JSON.stringify(streamed.get(choice.index)!.lists)), JSON.parse(JSON.stringify(lists)), `choice ${choice.index}`);
    // Each prompt token sits where its text is in the echo; the generated ones follow it.
    assert.is(lists.token_logprobs![0], null);
    const promptTokens = lists.tokens!.length - 3;
    assert.ok(promptTokens > 1, JSON.stringify(lists.tokens));
    const chars = [...choice.text];
    for (let i = 0; i < promptTokens; i++) assert.is(chars.slice(lists.text_offset![i]!, lists.text_offset![i]! + [...lists.tokens![i]!].length).join(''), lists.tokens![i], `choice ${choice.index}, token ${i}`);
    assert.is(lists.text_offset![promptTokens], [...promptText].length, 'the first generated token starts after the echo');
  }
  // The two choices of a prompt share its scores; the two prompts differ.
  const promptPart = (index: number) => JSON.stringify(whole.choices[index]!.logprobs!.token_logprobs!.slice(0, -3));
  assert.is(promptPart(0), promptPart(1));
  assert.is(promptPart(2), promptPart(3));
  assert.is.not(promptPart(0), promptPart(2));
});

test('a scored prompt is computed whole even when the prefix cache holds it, and scores the same; logit_bias steers only what is generated', async ({ s }) => {
  const prompt = ids(60, 3);
  const plain = await s.client.completions.create({ model, prompt, max_tokens: 1 });
  assert.is(plain.usage!.prompt_tokens_details?.cached_tokens ?? 0, 0);
  const cached = await s.client.completions.create({ model, prompt, max_tokens: 1 });
  assert.ok(cached.usage!.prompt_tokens_details!.cached_tokens! > 0, 'the prompt is in the cache');
  const scored = await s.client.completions.create({ model, prompt, echo: true, max_tokens: 0, logprobs: 2 });
  assert.is(scored.usage!.prompt_tokens_details?.cached_tokens ?? 0, 0, 'cached cells have no logits: the prompt is computed again');
  const biased = await s.client.completions.create({ model, prompt, echo: true, max_tokens: 0, logprobs: 2, logit_bias: { [String(prompt[5])]: -100 } });
  const scores = (c: OpenAI.Completion) => c.choices[0]!.logprobs!.token_logprobs!;
  assert.is(scores(scored).length, 60);
  scores(scored).forEach((logprob, i) => assert.ok(i === 0 ? logprob === null : Math.abs(logprob! - scores(biased)[i]!) <= TOLERANCE, `position ${i}`));
});

test('max_tokens 0 with echo and no logprobs returns the prompt alone, whole and streamed; without echo it is refused', async ({ s }) => {
  const prompt = 'The quick brown fox';
  const whole = await s.client.completions.create({ model, prompt, echo: true, max_tokens: 0 });
  assert.equal([whole.choices[0]!.text, whole.choices[0]!.logprobs, whole.choices[0]!.finish_reason], [prompt, null, 'length']);
  assert.is(whole.usage!.completion_tokens, 0);
  const stream = await s.client.completions.create({ model, prompt, echo: true, max_tokens: 0, stream: true, stream_options: { include_usage: true } });
  let text = '';
  let finish: string | null = null;
  let usage: OpenAI.CompletionUsage | undefined;
  for await (const chunk of stream) {
    for (const piece of chunk.choices) {
      text += piece.text;
      finish = piece.finish_reason ?? finish;
    }
    usage = chunk.usage ?? usage;
  }
  assert.equal([text, finish, usage?.completion_tokens], [prompt, 'length', 0]);
  const refused = await post(`${s.url}/v1/completions`, { model, prompt, max_tokens: 0 });
  assert.is(refused.status, 400);
  assert.is(refused.json.error.param, 'max_tokens');
});

test('the end token that finishes a choice closes its lists, echoed or not, whole and streamed (a harness reads token_logprobs[context:-1]); chat leaves it out', async ({ s }) => {
  const eos = s.engine.info.endOfGeneration[0]!;
  const eosText = s.engine.info.tokenTexts[eos]!;
  const prompt = ids(16, 5);
  // Biased, the end token is the first one generated: what an instruct model does after a whole answer.
  const request = { model, prompt, max_tokens: 1, logprobs: 1, temperature: 0, logit_bias: { [String(eos)]: 100 } };
  const echoed = await s.client.completions.create({ ...request, echo: true });
  const [choice] = echoed.choices;
  assert.is(choice!.finish_reason, 'stop');
  assert.is(echoed.usage!.completion_tokens, 1);
  const lists = choice!.logprobs!;
  assert.is(lists.tokens!.length, 17, 'one entry per prompt token, then the generated end token');
  assert.is(lists.tokens![16], eosText);
  assert.ok(lists.token_logprobs![16]! > -1e-3, `the biased end token is all but certain: ${lists.token_logprobs![16]}`);
  assert.is(lists.top_logprobs![16]![eosText], lists.token_logprobs![16]);
  // Its text is no output: the choice's text is the echo alone, and the token sits at its end.
  assert.is.not(choice!.text.includes(eosText), true);
  assert.is(lists.text_offset![16], [...choice!.text].length);
  const plain = await s.client.completions.create(request);
  assert.equal(plain.choices[0]!.logprobs!.tokens, [eosText]);
  assert.is(plain.choices[0]!.text, '');
  const streamed: Lists = { tokens: [], token_logprobs: [], top_logprobs: [], text_offset: [] };
  for await (const chunk of await s.client.completions.create({ ...request, echo: true, stream: true })) {
    const piece = chunk.choices[0]?.logprobs;
    if (piece) for (const key of ['tokens', 'token_logprobs', 'top_logprobs', 'text_offset'] as const) (streamed[key] as unknown[]).push(...(piece[key] as unknown[]));
  }
  assert.equal(JSON.parse(JSON.stringify(streamed)), JSON.parse(JSON.stringify(lists)));
  // Chat's logprobs are its content's tokens, as OpenAI's: the end of the turn is not among them.
  const chat = await s.client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 1, logprobs: true, temperature: 0, logit_bias: { [String(eos)]: 100 } });
  assert.is(chat.choices[0]!.finish_reason, 'stop');
  assert.is(chat.usage!.completion_tokens, 1);
  assert.equal(chat.choices[0]!.logprobs!.content, []);
});

type VllmScore = { logprob: number; rank: number; decoded_token: string };

/**
 * A response's prompt_logprobs lists (at `path`) with each entry's keys in the order sent: JSON.parse
 * would sort the integer-like token ids, so they are read with a mark in front.
 */
function vllmLists(text: string, path: (json: any) => unknown): ([number, VllmScore][] | null)[] {
  const json = JSON.parse(text.replace(/"(\d+)":\{"logprob"/g, '"#$1":{"logprob"'));
  return (path(json) as (Record<string, VllmScore> | null)[]).map((entry) => entry && Object.entries(entry).map(([key, score]): [number, VllmScore] => [Number(key.slice(1)), score]));
}

/** A decoded_token as the logprobs write token text: bytes that are no whole character as `bytes:\\x..` (the vocabulary's text has U+FFFD there). */
function assertDecoded(decoded: string, text: string): void {
  if (text.includes('\ufffd')) assert.match(decoded, /^bytes:(\\x[0-9a-f]{2})+$/);
  else assert.is(decoded, text);
}

/** Each scored entry: the prompt's own token first, then the `k` most likely (itself not again), each with its rank; `echoed`'s scores the same. */
function assertVllmLists(lists: ([number, VllmScore][] | null)[], prompt: readonly number[], k: number, echoed: Lists, tokenText: (id: number) => string): void {
  assert.is(lists.length, prompt.length, 'one entry per prompt token');
  assert.is(lists[0], null, 'nothing comes before the first token');
  for (let i = 1; i < prompt.length; i++) {
    const [first, ...others] = lists[i]!;
    const [token, own] = first!;
    assert.is(token, prompt[i], `position ${i}: the prompt's own token comes first`);
    assert.ok(Math.abs(own.logprob - echoed.token_logprobs![i]!) <= TOLERANCE, `position ${i}: ${own.logprob} against the echo's ${echoed.token_logprobs![i]}`);
    assertDecoded(own.decoded_token, tokenText(token));
    // Ranked 1 to k, most likely first; the own token is among them exactly when its rank is.
    assert.is(others.length, own.rank <= k ? k - 1 : k, `position ${i}: ${JSON.stringify(lists[i])}`);
    let place = 1;
    for (const [other, score] of others) {
      if (place === own.rank) place++;
      assert.is.not(other, token);
      assert.is(score.rank, place++);
      assertDecoded(score.decoded_token, tokenText(other));
    }
    const likelier = others.filter(([, score]) => score.logprob > own.logprob).length;
    if (own.rank <= k) assert.is(likelier, own.rank - 1, `position ${i}`);
    else assert.is(likelier, k, `position ${i}`);
    for (let j = 1; j < others.length; j++) assert.ok(others[j]![1].logprob <= others[j - 1]![1].logprob);
    // The echo's top list (2 and the token itself) holds the same most likely tokens (by their text).
    const echoTop = Object.keys(echoed.top_logprobs![i]!);
    for (const [, score] of others.filter(([, other]) => other.rank <= 2)) assert.ok(echoTop.includes(score.decoded_token), `position ${i}: ${score.decoded_token} in ${echoTop}`);
  }
}

test("vLLM's prompt_logprobs on chat: the rendered conversation's tokens scored at the top of the response, apart from the choices' own top_logprobs", async ({ s }) => {
  const messages = [{ role: 'user', content: 'The quick brown fox jumps' }];
  const k = 4;
  const response = await post(`${s.url}/v1/chat/completions`, { model, messages, max_tokens: 3, n: 2, logprobs: true, top_logprobs: 1, temperature: 0, prompt_logprobs: k });
  assert.is(response.status, 200, response.text);
  // The tiny model's template is ChatML: its text, tokenized, is the prompt the chat scored.
  const rendered = await post(`${s.url}/tokenize`, { prompt: `<|im_start|>user\n${messages[0]!.content}<|im_end|>\n<|im_start|>assistant\n` });
  const prompt: number[] = rendered.json.tokens;
  assert.is(response.json.usage.prompt_tokens, prompt.length);
  assert.is(response.json.usage.prompt_tokens_details.cached_tokens, 0, 'a scored prompt is computed whole');
  const echoed = await s.client.completions.create({ model, prompt, echo: true, max_tokens: 0, logprobs: 2 });
  const texts = s.engine.info.tokenTexts;
  assertVllmLists(vllmLists(response.text, (json) => json.prompt_logprobs), prompt, k, echoed.choices[0]!.logprobs!, (id) => texts[id]!);
  assert.equal(Object.keys(response.json).slice(-2), ['usage', 'prompt_logprobs'], "vLLM's place for it");
  for (const choice of response.json.choices) {
    assert.is(choice.logprobs.content.length, 3);
    for (const entry of choice.logprobs.content) assert.is(entry.top_logprobs.length, 1, 'the output keeps its own top_logprobs');
    assert.not.ok('prompt_logprobs' in choice);
  }
  const plain = await post(`${s.url}/v1/chat/completions`, { model, messages, max_tokens: 1 });
  assert.not.ok('prompt_logprobs' in plain.json, 'only when asked for');
});

test("vLLM's prompt_logprobs on completions: on every choice, alone (max_tokens 0 without echo) or beside echo's legacy lists, each with its own count", async ({ s }) => {
  const prompt = ids(24, 6);
  const echoed = await s.client.completions.create({ model, prompt, echo: true, max_tokens: 0, logprobs: 3 });
  const texts = s.engine.info.tokenTexts;
  const alone = await post(`${s.url}/v1/completions`, { model, prompt, max_tokens: 0, prompt_logprobs: 3 });
  assert.is(alone.status, 200, alone.text);
  assert.equal([alone.json.choices[0].text, alone.json.choices[0].logprobs, alone.json.choices[0].finish_reason, alone.json.usage.completion_tokens], ['', null, 'length', 0]);
  assertVllmLists(vllmLists(alone.text, (json) => json.choices[0].prompt_logprobs), prompt, 3, echoed.choices[0]!.logprobs!, (id) => texts[id]!);
  const both = await post(`${s.url}/v1/completions`, { model, prompt, n: 2, max_tokens: 2, echo: true, logprobs: 1, prompt_logprobs: 5, seed: 3 });
  assert.is(both.status, 200, both.text);
  for (const [index, choice] of both.json.choices.entries()) {
    assertVllmLists(vllmLists(both.text, (json) => json.choices[index].prompt_logprobs), prompt, 5, echoed.choices[0]!.logprobs!, (id) => texts[id]!);
    // The legacy lists keep logprobs' count: 1 most likely, and the token itself.
    for (const top of choice.logprobs.top_logprobs.slice(1)) assert.ok(Object.keys(top).length <= 2, JSON.stringify(top));
    assert.is(choice.logprobs.tokens.length, 26);
  }
});

test('prompt_logprobs is refused where it cannot be given: in a stream, above 20', async ({ s }) => {
  for (const [path, body] of [
    ['/v1/chat/completions', { model, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 1 }],
    ['/v1/completions', { model, prompt: 'Hi there', max_tokens: 1 }],
  ] as const) {
    for (const bad of [{ stream: true, prompt_logprobs: 0 }, { prompt_logprobs: 21 }, { prompt_logprobs: -1 }, { prompt_logprobs: 1.5 }]) {
      const refused = await post(`${s.url}${path}`, { ...body, ...bad });
      assert.is(refused.status, 400, `${path} ${JSON.stringify(bad)}`);
      assert.is(refused.json.error.param, 'prompt_logprobs', refused.text);
    }
  }
});

test("vLLM's return_tokens_as_token_ids: logprobs name tokens token_id:<id>, the same tokens and scores as by text, chat and legacy lists alike", async ({ s }) => {
  const idOf = (name: string) => {
    assert.match(name, /^token_id:\d+$/);
    return Number(name.slice('token_id:'.length));
  };
  // Each computed whole: a prompt from the prefix cache rounds otherwise (see seed in the README).
  const chat = { model, messages: [{ role: 'user' as const, content: 'Tell me about foxes.' }], max_tokens: 6, temperature: 0, logprobs: true, top_logprobs: 2, cache_prompt: false } as never as OpenAI.ChatCompletionCreateParamsNonStreaming;
  const byText = await s.client.chat.completions.create(chat);
  const byId = await s.client.chat.completions.create({ ...chat, return_tokens_as_token_ids: true } as never);
  const texts = s.engine.info.tokenTexts;
  const [a, b] = [byText.choices[0]!.logprobs!.content!, byId.choices[0]!.logprobs!.content!];
  assert.is(b.length, a.length);
  b.forEach((entry, i) => {
    assert.equal([entry.logprob, entry.bytes], [a[i]!.logprob, a[i]!.bytes]);
    assert.equal(Buffer.from(texts[idOf(entry.token)]!), Buffer.from(a[i]!.token), `position ${i}`);
    entry.top_logprobs.forEach((top, j) => assert.equal([top.logprob, top.bytes, idOf(top.token) >= 0], [a[i]!.top_logprobs[j]!.logprob, a[i]!.top_logprobs[j]!.bytes, true]));
  });
  assert.is(byId.choices[0]!.message.content, byText.choices[0]!.message.content, 'the text is the same');
  const prompt = ids(10, 7);
  const legacy = await s.client.completions.create({ model, prompt, echo: true, max_tokens: 3, logprobs: 2, temperature: 0, return_tokens_as_token_ids: true } as never);
  const lists = legacy.choices[0]!.logprobs!;
  assert.equal(lists.tokens!.slice(0, 10).map(idOf), prompt, "the echoed prompt's own ids");
  lists.top_logprobs!.slice(1).forEach((top, i) => {
    assert.ok(lists.tokens![i + 1]! in top!, 'the token is among its alternatives');
    Object.keys(top!).forEach(idOf);
  });
});

test('a server that samples in the graph scores prompts as one that samples on the host', async ({ s, device }) => {
  const request = { model, prompt: ids(40, 4), echo: true, max_tokens: 4, logprobs: 2, temperature: 0 };
  const [host, graph] = await Promise.all([s.client.completions.create(request), device.client.completions.create(request)]);
  const a = host.choices[0]!.logprobs!;
  const b = graph.choices[0]!.logprobs!;
  assert.equal(b.tokens, a.tokens);
  a.token_logprobs!.forEach((logprob, i) => assert.ok(i === 0 ? b.token_logprobs![0] === null : Math.abs(logprob! - b.token_logprobs![i]!) <= 1e-4, `position ${i}`));
});

test.run();
