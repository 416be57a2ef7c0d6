// `lmforge bench` against a real server started with a key: it sends the key it is given, and
// without one says the server wants a key (it said "is the server up?", and with --model sent
// every request keyless: 0 tok/s, every cell '-').
import { suite } from 'uvu';
import { rejects } from 'node:assert/strict';
import * as assert from 'uvu/assert';
import { benchApiKey } from '../../../cli/bench.js';
import { runBenchmark } from '../../../cli/serve-bench/run-benchmark.js';
import { startTinyServer, type TinyServer } from '../../helpers/tiny-server.js';

const test = suite<{ s: TinyServer }>('bench with an API key');

test.before(async (context) => {
  context.s = await startTinyServer({ server: { apiKeys: ['0123', 'other'] } });
});
test.after(async ({ s }) => {
  await s.close();
});

test('the key given is sent with every request and the model list; none, or a wrong one, is named as the problem', async ({ s }) => {
  const report = await runBenchmark({ url: s.url, apiKey: '0123', numPrompts: 2, inputLen: 8, outputLen: 4, warmup: 0 });
  assert.is(report.completed, 2, JSON.stringify(report.errors));
  await rejects(() => runBenchmark({ url: s.url, numPrompts: 1, inputLen: 8, outputLen: 2 }), /wants an API key \(HTTP 401\): pass --api-key KEY$/);
  await rejects(() => runBenchmark({ url: s.url, apiKey: 'wrong', numPrompts: 1, inputLen: 8, outputLen: 2 }), /pass --api-key KEY \(this one was refused\)/);
});

test('--api-key, else the first of LMFORGE_API_KEY (the list serve reads), else none', () => {
  assert.is(benchApiKey('k', 'a,b'), 'k');
  assert.is(benchApiKey(undefined, ' , a, b'), 'a');
  assert.is(benchApiKey(undefined, undefined), undefined);
  assert.throws(() => benchApiKey(' ', undefined), /--api-key needs a key/);
});

test.run();
