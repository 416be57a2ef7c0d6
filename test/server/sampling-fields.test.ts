// The sampling fields local servers accept (vLLM's and llama-server's names) through a real
// server on the tiny model and the official `openai` client: each does what its definition
// says, both spellings of the repetition penalty are one knob, a value out of range is a 400
// naming the field, and /openapi.json documents every one of them on both endpoints.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectErrorAt } from '../helpers/api-errors.js';
import { post, startTinyServer, TINY_MODEL_ID, type TinyServer } from '../helpers/tiny-server.js';

const test = suite<{ s: TinyServer }>('sampling fields');

test.before(async (context) => {
  context.s = await startTinyServer();
});
test.after(async (context) => {
  await context.s.close();
});

const messages = [{ role: 'user' as const, content: 'Tell me a story about a fox.' }];
const chatRequest = { model: TINY_MODEL_ID, messages, max_tokens: 2 };
const textRequest = { model: TINY_MODEL_ID, prompt: 'The fox', max_tokens: 2 };

/** Chat text for `fields` (sent as plain body properties, which the client passes through). */
async function chat(s: TinyServer, fields: object): Promise<string> {
  const completion = await s.client.chat.completions.create({ model: TINY_MODEL_ID, messages, max_tokens: 16, ...fields } as never);
  return (completion as { choices: { message: { content: string } }[] }).choices[0]!.message.content;
}

/** Text completion pieces (one per generated token) for `fields`, sent through the client's extra body. */
async function pieces(s: TinyServer, fields: object, prompt: string | number[] = 'The fox'): Promise<string[]> {
  const completion = await s.client.completions.create({ model: TINY_MODEL_ID, prompt, max_tokens: 12, logprobs: 0 }, { body: { model: TINY_MODEL_ID, prompt, max_tokens: 12, logprobs: 0, ...fields } });
  return completion.choices[0]!.logprobs!.tokens!;
}

test('top_k 1, min_p 1 and a tiny top_n_sigma are greedy at temperature 1 (any seed), on both endpoints', async ({ s }) => {
  const greedyChat = await chat(s, { temperature: 0 });
  const greedyText = await pieces(s, { temperature: 0 });
  const plain = await chat(s, { temperature: 1, seed: 3 });
  assert.not.equal(plain, greedyChat, 'a seeded draw at temperature 1 is not the greedy text');
  for (const field of [{ top_k: 1 }, { min_p: 1 }, { top_n_sigma: 1e-9 }]) {
    for (const seed of [3, 4]) {
      assert.is(await chat(s, { temperature: 1, seed, ...field }), greedyChat, JSON.stringify(field));
      assert.equal(await pieces(s, { temperature: 1, seed, ...field }), greedyText, JSON.stringify(field));
    }
  }
});

test('typical_p near 0 and XTC at threshold 0 leave one candidate: the same text for every seed, not the greedy one; off, they leave the seeded text alone', async ({ s }) => {
  const greedy = await chat(s, { temperature: 0 });
  for (const field of [{ typical_p: 1e-6 }, { xtc_probability: 1, xtc_threshold: 0 }]) {
    const one = await chat(s, { temperature: 1, seed: 1, ...field });
    assert.is(await chat(s, { temperature: 1, seed: 2, ...field }), one, JSON.stringify(field));
    assert.is.not(one, greedy, JSON.stringify(field));
  }
  const seeded = await chat(s, { temperature: 0.9, seed: 8 });
  assert.is(await chat(s, { temperature: 0.9, seed: 8, typical_p: 1, xtc_probability: 0, top_k: 0, min_p: 0, repetition_penalty: 1, dry_multiplier: 0 }), seeded);
});

// Token 262 is " the" in the tiny model's GPT-2 vocabulary; a bias makes it greedy's every choice.
const THE = 262;
const loop = { temperature: 0, logit_bias: { [THE]: 40 } };

test("repetition_penalty and repeat_penalty: one knob over the prompt and output; vLLM's name looks at all of it, llama-server's at the last 64 tokens unless repeat_last_n says", async ({ s }) => {
  assert.equal(await pieces(s, loop), new Array(12).fill(' the'));
  // Output only: the first " the" is free, the next is divided by 100 and loses.
  const penalised = await pieces(s, { ...loop, repetition_penalty: 100 });
  assert.is(penalised[0], ' the');
  assert.is.not(penalised[1], ' the');
  assert.equal(await pieces(s, { ...loop, repeat_penalty: 100 }), penalised);
  assert.equal(await pieces(s, { ...loop, repetition_penalty: 100, repeat_penalty: 100 }), penalised);
  assert.equal(await pieces(s, { ...loop, repetition_penalty: 100, repeat_last_n: 0 }), new Array(12).fill(' the'));
  // " the" 70 tokens back in the prompt: inside vLLM's window (all), outside llama-server's default 64.
  const prompt = [THE, ...new Array(69).fill(198)];
  assert.is.not((await pieces(s, { ...loop, repetition_penalty: 100 }, prompt))[0], ' the');
  assert.is((await pieces(s, { ...loop, repeat_penalty: 100 }, prompt))[0], ' the');
  assert.is.not((await pieces(s, { ...loop, repeat_penalty: 100, repeat_last_n: 80 }, prompt))[0], ' the');
});

test('DRY: a token that would extend a repeat of dry_allowed_length tokens or more loses dry_multiplier·dry_base^(n - allowed)', async ({ s }) => {
  // " the the the": the third " the" would continue "the the" (2 = the allowed length) and loses 100.
  const dry = await pieces(s, { ...loop, dry_multiplier: 100, dry_sequence_breakers: [] });
  assert.equal(dry.slice(0, 3), [' the', ' the', ' the']);
  assert.is.not(dry[3], ' the');
  const longer = await pieces(s, { ...loop, dry_multiplier: 100, dry_allowed_length: 3, dry_sequence_breakers: [] });
  assert.equal(longer.slice(0, 4), [' the', ' the', ' the', ' the']);
  assert.is.not(longer[4], ' the');
  // A breaker inside the repeated token ends every repeat: " the" contains "th".
  assert.equal(await pieces(s, { ...loop, dry_multiplier: 100, dry_sequence_breakers: ['th'] }), new Array(12).fill(' the'));
  // A penalty that does not outweigh the bias changes nothing; dry_penalty_last_n 0 turns it off.
  assert.equal(await pieces(s, { ...loop, dry_multiplier: 1, dry_base: 1, dry_sequence_breakers: [] }), new Array(12).fill(' the'));
  assert.equal(await pieces(s, { ...loop, dry_multiplier: 100, dry_penalty_last_n: 0 }), new Array(12).fill(' the'));
});

test('a value out of range is a 400 naming the field, on both endpoints; the two repetition penalties must agree', async ({ s }) => {
  const bad: [string, unknown][] = [
    ['top_k', -2], ['top_k', 1.5], ['min_p', 1.5], ['min_p', -0.1], ['typical_p', 2], ['top_n_sigma', -2],
    ['repetition_penalty', 0], ['repeat_penalty', 101], ['repeat_last_n', -2], ['dry_multiplier', -1], ['dry_base', 0.5],
    ['dry_allowed_length', 0], ['dry_penalty_last_n', -5], ['dry_sequence_breakers', 'x'], ['xtc_probability', 1.5], ['xtc_threshold', -1],
  ];
  const good = {
    top_k: -1, min_p: 0.05, typical_p: 0.95, top_n_sigma: 2, repetition_penalty: 1.1, repeat_penalty: 1.1, repeat_last_n: -1, dry_multiplier: 0.8,
    dry_base: 1.75, dry_allowed_length: 2, dry_penalty_last_n: 128, dry_sequence_breakers: ['\n', '::'], xtc_probability: 0.5, xtc_threshold: 0.1,
  };
  for (const [path, ok] of [['/v1/chat/completions', chatRequest], ['/v1/completions', textRequest]] as const) {
    // Every field in range, all at once, is accepted (a server without them answers 400 to the first).
    const accepted = await post(`${s.url}${path}`, { ...ok, ...good, seed: 1 });
    assert.is(accepted.status, 200, accepted.text);
    for (const [field, value] of bad) await expectErrorAt(path, s, { ...ok, [field]: value }, 400, field, null, undefined, ok);
    await expectErrorAt(path, s, { ...ok, dry_sequence_breakers: [''] }, 400, 'dry_sequence_breakers[0]', null, undefined, ok);
    await expectErrorAt(path, s, { ...ok, dry_sequence_breakers: new Array(41).fill('x') }, 400, 'dry_sequence_breakers', null, undefined, ok);
    await expectErrorAt(path, s, { ...ok, repetition_penalty: 1.1, repeat_penalty: 1.2 }, 400, 'repeat_penalty', null, /disagree/, ok);
  }
});

test('/openapi.json documents every field, with its range, on both endpoints', async ({ s }) => {
  const openapi = (await (await fetch(`${s.url}/openapi.json`)).json()) as any;
  const fields = ['top_k', 'min_p', 'typical_p', 'top_n_sigma', 'repetition_penalty', 'repeat_penalty', 'repeat_last_n', 'dry_multiplier', 'dry_base', 'dry_allowed_length', 'dry_penalty_last_n', 'dry_sequence_breakers', 'xtc_probability', 'xtc_threshold'];
  for (const path of ['/v1/chat/completions', '/v1/completions']) {
    const properties = openapi.paths[path].post.requestBody.content['application/json'].schema.properties;
    for (const field of fields) {
      assert.ok(properties[field]?.description, `${path} ${field}`);
      assert.ok('minimum' in properties[field] || 'exclusiveMinimum' in properties[field] || 'maxItems' in properties[field], `${path} ${field} range`);
    }
  }
});

test.run();
