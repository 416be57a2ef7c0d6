// A request whose generation fails (here: NaN logits from a poisoned token embedding) fails
// alone; the engine and the server keep serving everything else.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Engine, EngineRequestError } from '../../runtime/engine/client/engine.js';
import { POISONED_TOKEN, tinyPoisonedModelPath } from '../../fixtures/paths.js';
import { runToEnd } from '../helpers/engine-run.js';
import { post, startTinyServer, TINY_MODEL_ID, type TinyServer } from '../helpers/tiny-server.js';

const engineSuite = suite<{ engine: Engine }>('failure isolation: engine');
engineSuite.before(async (context) => {
  context.engine = await Engine.create({ modelPath: tinyPoisonedModelPath, device: 'cpu', mode: 'local', overrides: { context_window_size: 256 }, threads: 1 });
});
engineSuite.after(async (context) => {
  await context.engine.dispose();
});

engineSuite('the poisoned request fails with internal_error; one running beside it finishes', async ({ engine }) => {
  const healthy = runToEnd(engine, { prompt: [464, 2068, 7586, 21831], maxTokens: 40, ignoreEos: true, sampling: { temperature: 0 } });
  try {
    await runToEnd(engine, { prompt: [464, 1573, POISONED_TOKEN, 3568], maxTokens: 10, sampling: { temperature: 0 } });
    assert.unreachable('the poisoned request should fail');
  } catch (error) {
    assert.instance(error, EngineRequestError);
    assert.is((error as EngineRequestError).info.code, 'internal_error');
    assert.match((error as Error).message, /NaN/);
  }
  const { choices } = await healthy;
  assert.is(choices[0]!.tokens.length, 40);
  const stats = await engine.stats();
  assert.equal([stats.running, stats.kvCellsUsed, stats.freeSlots], [0, 0, 4]);
});

engineSuite("a library caller's bad field fails that request alone, naming the field; the engine keeps running", async ({ engine }) => {
  const healthy = runToEnd(engine, { prompt: [464, 2068, 7586, 21831], maxTokens: 40, ignoreEos: true, sampling: { temperature: 0 } });
  const prompt = [464, 2068];
  // Each was a throw inside the engine's loop (temperature: a RangeError that ended the engine's
  // process and every request it held), or ran with a value the server would refuse, or (n: 0)
  // returned no answer at all.
  const bad: [Record<string, unknown>, string, RegExp][] = [
    [{ prompt, sampling: { temperature: -1 } }, 'temperature', /temperature must be a number ≥ 0, got -1/],
    [{ prompt, sampling: { temperature: 'x' } }, 'temperature', /got "x"/],
    [{ prompt, sampling: { topP: 5 } }, 'topP', /topP must be a number in \[0, 1\]/],
    [{ prompt, sampling: { topLogprobs: 2.5, logprobs: true } }, 'topLogprobs', /an integer in \[0, 20\]/],
    [{ prompt, sampling: { repetitionPenalty: 0 } }, 'repetitionPenalty', /repetitionPenalty must be a number > 0, got 0/],
    [{ prompt, sampling: { logitBias: { 5: 1 } } }, 'logitBias', /must be a Map/],
    [{ prompt, sampling: { logitBias: new Map([[5, Number.NaN]]) } }, 'logitBias', /token 5 must be a finite number, got NaN/],
    [{ prompt, maxTokens: -1 }, 'maxTokens', /maxTokens must be a whole number ≥ 0/],
    [{ prompt: 42 }, 'prompt', /prompt must be text or a list of token ids/],
    [{ prompt, stop: [''] }, 'stop', /non-empty strings/],
    [{ prompt, seed: 1.5 }, 'seed', /seed must be a safe integer/],
    [{ prompt, n: 0 }, 'n', /n must be a whole number ≥ 1, got 0/],
    [{ prompt, promptLogprobs: 'yes' }, 'promptLogprobs', /promptLogprobs must be true or false, got "yes"/],
    [{ prompt, promptTopLogprobs: 2 }, 'promptTopLogprobs', /needs promptLogprobs: true/],
    [{ prompt, minTokens: 1.5 }, 'minTokens', /minTokens must be a whole number ≥ 0/],
    [{ prompt, truncatePromptTokens: 0 }, 'truncatePromptTokens', /a whole number ≥ 1, or -1/],
    [{ prompt, badWords: [1] }, 'badWords', /a list of strings/],
    [{ prompt, allowedTokenIds: [] }, 'allowedTokenIds', /non-empty list/],
    [{ prompt, stopTokenIds: [1, 'x'] }, 'stopTokenIds', /a list of token ids/],
    [{ prompt, stopTokenIds: [-1] }, 'stop_token_ids', /names token -1/],
    [{ prompt, maxTokens: 2, minTokens: 3 }, 'min_tokens', /more than max_tokens/],
    [{ prompt, promptLogprobs: true, promptTopLogprobs: 21 }, 'promptTopLogprobs', /a whole number from 0 to 20, got 21/],
  ];
  for (const [request, param, message] of bad) {
    try {
      await runToEnd(engine, request as never);
      assert.unreachable(`${JSON.stringify(request)} should be refused`);
    } catch (error) {
      assert.instance(error, EngineRequestError, String(error));
      assert.is((error as EngineRequestError).info.code, 'invalid_request');
      assert.is((error as EngineRequestError).info.param, param);
      assert.match((error as Error).message, message);
    }
  }
  const { choices } = await healthy;
  assert.is(choices[0]!.tokens.length, 40);
  assert.is(engine.restarts, 0);
});

engineSuite.run();

const serverSuite = suite<{ s: TinyServer }>('failure isolation: server');
serverSuite.before(async (context) => {
  context.s = await startTinyServer({ engine: { modelPath: tinyPoisonedModelPath } });
});
serverSuite.after(async (context) => {
  await context.s.close();
});

const poisoned = { model: TINY_MODEL_ID, messages: [{ role: 'user', content: 'Tell me about Junior' }], max_tokens: 5 };

serverSuite('after a stream has started, the failure is a data: error event followed by [DONE]', async ({ s }) => {
  const response = await fetch(`${s.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...poisoned, stream: true }),
  });
  assert.is(response.status, 200);
  const events = (await response.text()).split('\n\n').filter(Boolean);
  assert.is(events.at(-1), 'data: [DONE]');
  const error = JSON.parse(events.at(-2)!.slice(6)).error;
  assert.is(error.code, 'internal_error');
  assert.is(error.type, 'server_error');
  assert.match(error.message, /NaN/);
  assert.match(events[0]!, /"role":"assistant"/, 'the stream had started');
});

serverSuite('a whole response fails with 500, and the server keeps serving', async ({ s }) => {
  const failed = await post(`${s.url}/v1/chat/completions`, poisoned);
  assert.is(failed.status, 500);
  assert.is(failed.json.error.code, 'internal_error');
  const healthy = await post(`${s.url}/v1/chat/completions`, { ...poisoned, messages: [{ role: 'user', content: 'Tell me about Mary' }], ignore_eos: true });
  assert.is(healthy.status, 200);
  assert.is(healthy.json.usage.completion_tokens, 5);
  assert.is((await fetch(`${s.url}/health`)).status, 200);
});

serverSuite.run();

const stopped = suite('engine stopped under a running server');

stopped('requests fail at once instead of hanging, and /health says why', async () => {
  const s = await startTinyServer();
  await s.engine.dispose();
  try {
    const started = Date.now();
    const response = await post(`${s.url}/v1/chat/completions`, { model: TINY_MODEL_ID, messages: [{ role: 'user', content: 'hi' }], max_tokens: 3 });
    // Not a fault of the server's (a 500): its engine is gone, as in a server shutting down.
    assert.equal([response.status, response.json.error.code], [503, 'server_shutting_down']);
    assert.match(response.json.error.message, /engine is shut down/);
    assert.ok(Date.now() - started < 2000);
    const health = await fetch(`${s.url}/health`);
    assert.is(health.status, 503);
    assert.equal(await health.json(), { status: 'engine_stopped' });
  } finally {
    await s.server.drain(100);
  }
});

stopped.run();
