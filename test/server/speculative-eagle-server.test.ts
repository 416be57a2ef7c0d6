// EAGLE-3 drafts through the HTTP server and the official openai client: chat and text
// completions, whole and streamed, are those of a server without speculation, and drafts
// are accepted along the way (the engine's counts say so).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tinyEagle3Path } from '../../fixtures/paths.js';
import { startTinyServer, TINY_MODEL_ID, type TinyServer } from '../helpers/tiny-server.js';

const test = suite<{ plain: TinyServer; eagle: TinyServer }>('EAGLE-3 drafts over HTTP');

// No prefix cache: a prompt is then computed in the same batches on both servers.
const overrides = { context_window_size: 512, prefix_cache_max_num_recycling_seqs: 0 };

test.before(async (context) => {
  context.plain = await startTinyServer({ engine: { overrides } });
  context.eagle = await startTinyServer({ engine: { speculativeMode: 'eagle', draftModelPath: tinyEagle3Path, overrides: { ...overrides, spec_draft_length: 3 } } });
});
test.after(async ({ plain, eagle }) => {
  await plain.close();
  await eagle.close();
});

test('chat answers, whole and streamed, equal the plain server\'s', async ({ plain, eagle }) => {
  for (let seed = 1; seed <= 4; seed++) {
    const request = { model: TINY_MODEL_ID, messages: [{ role: 'user' as const, content: 'one two one two one two' }], seed, max_tokens: 40, temperature: seed % 2 ? 0 : 0.7 };
    const expected = (await plain.client.chat.completions.create(request)).choices[0]!;
    const whole = (await eagle.client.chat.completions.create(request)).choices[0]!;
    assert.is(whole.message.content, expected.message.content, `seed ${seed}, whole`);
    assert.is(whole.finish_reason, expected.finish_reason);
    let text = '';
    for await (const chunk of await eagle.client.chat.completions.create({ ...request, stream: true })) text += chunk.choices[0]?.delta.content ?? '';
    assert.is(text, expected.message.content, `seed ${seed}, streamed`);
  }
});

test('text completions equal the plain server\'s, with drafts accepted', async ({ plain, eagle }) => {
  const before = await eagle.engine.stats();
  for (let seed = 1; seed <= 6; seed++) {
    // A prompt of token ids that alternates two words: the tiny model often goes on looping.
    const prompt = Array.from({ length: 12 }, (_, i) => (i % 2 ? 1000 + seed * 37 : 2000 + seed * 53));
    const request = { model: TINY_MODEL_ID, prompt, seed, max_tokens: 48, temperature: 0 };
    const expected = await plain.client.completions.create(request);
    const answer = await eagle.client.completions.create(request);
    assert.is(answer.choices[0]!.text, expected.choices[0]!.text, `seed ${seed}`);
    assert.equal(answer.usage, expected.usage);
  }
  const after = await eagle.engine.stats();
  assert.ok(after.acceptedDraftTokens > before.acceptedDraftTokens, `drafts were accepted (${after.acceptedDraftTokens - before.acceptedDraftTokens} of ${after.draftTokens - before.draftTokens})`);
});

test.run();
