// What runs before a constrained request's first token holds its grammar deadline: a format
// past its deadline is refused after one deadline, also on a model that thinks first (whose
// format the server wraps). Real HTTP servers on the tiny models.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tinyThinkModelPath } from '../../fixtures/paths.js';
import { post, startTinyServer, TINY_MODEL_ID } from '../helpers/tiny-server.js';

const messages = [{ role: 'user', content: 'Pick one.' }];

/** A string enum at the top level, slow to compile at tens of thousands of entries. */
function bigEnum(entries: number): object {
  return { type: 'string', enum: Array.from({ length: entries }, (_, i) => `choice-${i}-${(i * 7919).toString(36)}`) };
}

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
