// What runs before a constrained request's first token holds its grammar deadline and holds up
// nobody else: the format's first token mask is computed by the compile worker (within the
// deadline, off the engine's thread), and a format past its deadline is refused after one
// deadline, also on a model that thinks first (whose format the server wraps). Real HTTP
// servers on the tiny models.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tinyThinkModelPath } from '../../fixtures/paths.js';
import { post, startTinyServer, TINY_MODEL_ID } from '../helpers/tiny-server.js';

const messages = [{ role: 'user', content: 'Pick one.' }];

/**
 * A string enum at the top level: its first mask walks every entry, 2-3 s on the engine thread
 * for 8,000 entries on the 2-core test machine (the compile takes several times that, in a
 * worker), against a few hundred ms to load the compiled format.
 */
function bigEnum(entries: number): object {
  return { type: 'string', enum: Array.from({ length: entries }, (_, i) => `choice-${i}-${(i * 7919).toString(36)}`) };
}

const firstMask = suite('grammar deadline: the first mask');

firstMask('a big enum\'s first mask holds up no concurrent request: it is computed in the compile worker', async () => {
  const s = await startTinyServer({ engine: { grammarTimeoutMs: 120_000 } });
  try {
    // Compiled ahead, so that what the big request costs the engine is all that is measured.
    const schema = bigEnum(8000);
    await s.engine.compileGrammar({ kind: 'json_schema', schema });
    const plain = () => post(`${s.url}/v1/chat/completions`, { model: TINY_MODEL_ID, messages, max_tokens: 1 });
    await plain();
    let done = false;
    const started = performance.now();
    const big = post(`${s.url}/v1/chat/completions`, { model: TINY_MODEL_ID, messages, max_tokens: 1, response_format: { type: 'json_schema', json_schema: { name: 'pick', schema } } }).finally(() => (done = true));
    let slowest = 0;
    let sent = 0;
    while (!done || sent === 0) {
      const t = performance.now();
      assert.is((await plain()).status, 200);
      slowest = Math.max(slowest, performance.now() - t);
      sent++;
    }
    const response = await big;
    const bigMs = performance.now() - started;
    assert.is(response.status, 200, response.text);
    assert.match(response.json.choices[0].message.content, /^"/);
    // When the engine computed that mask, the plain requests waited for it (4.4 s on a machine
    // loaded 10 times over, where this took 1.4 s).
    assert.ok(slowest < 1200, `a plain request took ${slowest.toFixed(0)} ms beside the big enum (${bigMs.toFixed(0)} ms)`);
    assert.ok(bigMs < 2000, `the compiled big enum took ${bigMs.toFixed(0)} ms to its first token`);
  } finally {
    await s.close();
  }
});

firstMask('the later masks of a big enum hold up no concurrent request: the enum is a trie', async () => {
  const s = await startTinyServer({ engine: { grammarTimeoutMs: 120_000 } });
  try {
    const schema = bigEnum(8000);
    await s.engine.compileGrammar({ kind: 'json_schema', schema });
    const plain = () => post(`${s.url}/v1/chat/completions`, { model: TINY_MODEL_ID, messages, max_tokens: 1 });
    await plain();
    let done = false;
    const big = post(`${s.url}/v1/chat/completions`, { model: TINY_MODEL_ID, messages, max_tokens: 12, response_format: { type: 'json_schema', json_schema: { name: 'pick', schema } } }).finally(() => (done = true));
    let slowest = 0;
    let sent = 0;
    while (!done || sent === 0) {
      const t = performance.now();
      assert.is((await plain()).status, 200);
      slowest = Math.max(slowest, performance.now() - t);
      sent++;
    }
    const response = await big;
    assert.is(response.status, 200, response.text);
    // Twelve tokens reach a dozen new states, each mask computed on the engine's thread: built
    // as one branch per entry, each took 1-3 s (compiler/passes/factor-literals.ts).
    assert.match(response.json.choices[0].message.content, /^"choice-/);
    assert.ok(slowest < 1200, `a plain request took ${slowest.toFixed(0)} ms beside the big enum's later masks`);
  } finally {
    await s.close();
  }
});

firstMask.run();

const wrapped = suite('grammar deadline: a thinking model');

wrapped('a format past its deadline is refused after one deadline, not one for the wrapped format and one for the plain', async () => {
  const deadlineMs = 1500;
  const s = await startTinyServer({ engine: { modelPath: tinyThinkModelPath, grammarTimeoutMs: deadlineMs } });
  try {
    await s.engine.compileGrammar({ kind: 'json_object' }); // waits for a ready worker
    const started = performance.now();
    const response = await post(`${s.url}/v1/chat/completions`, { model: TINY_MODEL_ID, messages, max_tokens: 5, response_format: { type: 'json_schema', json_schema: { name: 'pick', schema: bigEnum(40_000) } } });
    const elapsed = performance.now() - started;
    assert.is(response.status, 400);
    assert.is(response.json.error.code, 'grammar_timeout');
    assert.is(response.json.error.param, 'response_format.json_schema.schema');
    // One compile: the format as the thinking model runs it. Compiling the request's own format
    // after that had timed out cost a second deadline.
    assert.is(s.engine.grammarCacheCounts.compiled, 2); // json_object above, and the wrapped format
    assert.ok(elapsed < 2 * deadlineMs, `refused after ${elapsed.toFixed(0)} ms with a deadline of ${deadlineMs} ms`);
  } finally {
    await s.close();
  }
});

wrapped.run();
