// OpenAI's Predicted Outputs through the HTTP server and the official openai client: with
// speculative decoding, the prediction's tokens are drafted where the answer follows them (the
// answer itself is the one the plain server gives), and usage counts the drafted tokens kept and
// thrown away; without it, the prediction is taken and unused.
import type OpenAI from 'openai';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTinyServer, TINY_MODEL_ID, type TinyServer } from '../helpers/tiny-server.js';

const test = suite<{ plain: TinyServer; speculative: TinyServer }>('predicted outputs');

test.before(async (context) => {
  context.plain = await startTinyServer();
  // A fixed draft length: what is drafted does not depend on this machine's timings.
  context.speculative = await startTinyServer({ engine: { speculativeMode: 'ngram', overrides: { context_window_size: 512, spec_draft_length: 4 } } });
});
test.after(async ({ plain, speculative }) => {
  await plain.close();
  await speculative.close();
});

const request = { model: TINY_MODEL_ID, messages: [{ role: 'user' as const, content: 'Rewrite this paragraph about a quiet harbour town at dawn.' }], max_tokens: 60, temperature: 0 };

test('a faithful prediction is drafted and accepted; the answer is the plain server\'s', async ({ plain, speculative }) => {
  const expected = (await plain.client.chat.completions.create(request)).choices[0]!.message.content!;
  const answer = await speculative.client.chat.completions.create({ ...request, prediction: { type: 'content', content: expected } });
  assert.is(answer.choices[0]!.message.content, expected);
  const details = answer.usage!.completion_tokens_details!;
  // Every output token but the first few (a draft is verified with the token before it) can come from the prediction.
  assert.ok(details.accepted_prediction_tokens! >= answer.usage!.completion_tokens / 2, JSON.stringify(answer.usage));
  assert.ok(details.rejected_prediction_tokens! <= 4, `the prediction is the answer: ${JSON.stringify(details)}`);

  // Streamed, with the prediction as text parts: the same text, the same counts.
  const halves = [expected.slice(0, 20), expected.slice(20)];
  const stream = await speculative.client.chat.completions.create({
    ...request,
    prediction: { type: 'content', content: halves.map((text) => ({ type: 'text' as const, text })) },
    stream: true,
    // vLLM's continuous usage: the counts so far in every chunk, the prompt's cached tokens from the first.
    stream_options: { include_usage: true, continuous_usage_stats: true } as OpenAI.ChatCompletionStreamOptions,
  });
  let text = '';
  const usages = [];
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta.content ?? '';
    usages.push(chunk.usage!);
  }
  assert.is(text, expected);
  const usage = usages.at(-1)!;
  assert.equal(usage.completion_tokens_details, details);
  assert.ok(usage.prompt_tokens_details!.cached_tokens! > 0, 'the same prompt again: taken from the prefix cache');
  for (const so_far of usages.slice(1)) {
    assert.equal(so_far.prompt_tokens_details, usage.prompt_tokens_details, 'the cached tokens are known once the prompt is placed');
    assert.ok(so_far.completion_tokens_details, 'the prediction counts are there from the start');
  }
});

test('an edited prediction is followed again after the edit; a wrong one changes nothing', async ({ plain, speculative }) => {
  const expected = (await plain.client.chat.completions.create(request)).choices[0]!.message.content!;
  const cut = Math.floor(expected.length / 2);
  const edited = `${expected.slice(0, cut)} and then something else entirely ${expected.slice(cut + 10)}`;
  const answer = await speculative.client.chat.completions.create({ ...request, prediction: { type: 'content', content: edited } });
  assert.is(answer.choices[0]!.message.content, expected);
  const details = answer.usage!.completion_tokens_details!;
  assert.ok(details.rejected_prediction_tokens! > 0, `the edit was drafted and rejected: ${JSON.stringify(details)}`);
  // The prediction's first half alone is accepted less: the second half was found again after the edit.
  const head = await speculative.client.chat.completions.create({ ...request, prediction: { type: 'content', content: expected.slice(0, cut) } });
  const headAccepted = head.usage!.completion_tokens_details!.accepted_prediction_tokens!;
  assert.ok(details.accepted_prediction_tokens! > headAccepted + 8, `${JSON.stringify(details)}, the first half alone: ${headAccepted}`);

  const wrong = await speculative.client.chat.completions.create({ ...request, prediction: { type: 'content', content: 'Zebras 4 quartz jumps; vexing fjord.'.repeat(4) } });
  assert.is(wrong.choices[0]!.message.content, expected);
});

test('each choice drafts from the prediction; usage sums them', async ({ plain, speculative }) => {
  const sampled = { ...request, n: 2, temperature: 0.8, seed: 11 };
  const expected = (await plain.client.chat.completions.create(sampled)).choices.map((choice) => choice.message.content);
  const answer = await speculative.client.chat.completions.create({ ...sampled, prediction: { type: 'content', content: expected[0]! } });
  assert.equal(answer.choices.map((choice) => choice.message.content), expected);
  assert.ok(answer.usage!.completion_tokens_details!.accepted_prediction_tokens! > 0);
});

test('without speculative decoding a prediction is taken and unused; without a prediction usage has no details', async ({ plain }) => {
  const expected = await plain.client.chat.completions.create(request);
  assert.is(expected.usage!.completion_tokens_details, undefined);
  const answer = await plain.client.chat.completions.create({ ...request, prediction: { type: 'content', content: expected.choices[0]!.message.content! } });
  assert.is(answer.choices[0]!.message.content, expected.choices[0]!.message.content);
  assert.equal(answer.usage!.completion_tokens_details, { accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 });
});

test.run();
