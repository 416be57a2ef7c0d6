// GET /metrics: valid Prometheus text, and counters and histograms that move by exactly what
// real requests did, on the tiny model through a real HTTP server.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiServer } from '../../runtime/server/api-server.js';
import { histogramOf, parsePrometheusText, sampleValue, type MetricFamily } from '../helpers/prometheus-text.js';
import { post, startTinyServer, TINY_MODEL_ID, type TinyServer } from '../helpers/tiny-server.js';

type Families = Map<string, MetricFamily>;

const chat = (extra: object = {}) => ({ model: TINY_MODEL_ID, messages: [{ role: 'user', content: 'Count to ten.' }], max_tokens: 5, ignore_eos: true, ...extra });

async function scrape(s: TinyServer): Promise<Families> {
  const response = await fetch(`${s.url}/metrics`);
  assert.is(response.status, 200);
  assert.match(response.headers.get('content-type')!, /^text\/plain; version=0\.0\.4/);
  return parsePrometheusText(await response.text());
}

/** Scrapes until `ready` holds: the server records some things as a response closes. */
async function scrapeUntil(s: TinyServer, ready: (families: Families) => boolean, what: string): Promise<Families> {
  for (let i = 0; i < 1000; i++) {
    const families = await scrape(s);
    if (ready(families)) return families;
  }
  throw new Error(`the metrics never showed ${what}`);
}

/** Reads a stream until `count` data events have arrived. */
async function readEvents(response: Response, count: number): Promise<string> {
  const reader = response.body!.getReader();
  let received = '';
  while ((received.match(/data: /g) ?? []).length < count) received += new TextDecoder().decode((await reader.read()).value);
  return received;
}

const http = (method: string, path: string, status: string) => ['lmforge_http_requests_total', { method, path, status }] as const;
const delta = (before: Families, after: Families, name: string, labels: Record<string, string> = {}) => sampleValue(after, name, labels) - sampleValue(before, name, labels);
const histogramDelta = (before: Families, after: Families, name: string) => {
  const [a, b] = [histogramOf(before, name), histogramOf(after, name)];
  return { count: b.count - a.count, sum: b.sum - a.sum };
};

const parser = suite('prometheus text parser (test helper)');

parser('reads families, labels with escapes, and histograms', () => {
  const families = parsePrometheusText(
    [
      '# HELP a_total Things\\n counted \\\\ here',
      '# TYPE a_total counter',
      'a_total{path="/x",note="say \\"hi\\"\\n"} 3',
      '# TYPE h histogram',
      'h_bucket{le="0.5"} 1',
      'h_bucket{le="+Inf"} 2',
      'h_sum 1.5',
      'h_count 2',
      '',
    ].join('\n'),
  );
  assert.is(families.get('a_total')!.help, 'Things\n counted \\ here');
  assert.is(sampleValue(families, 'a_total', { note: 'say "hi"\n' }), 3);
  assert.equal(histogramOf(families, 'h'), { count: 2, sum: 1.5, buckets: new Map([[0.5, 1], [Infinity, 2]]) });
});

parser('refuses what Prometheus would refuse', () => {
  const bad: [string, string, RegExp][] = [
    ['no final line feed', 'a 1', /does not end with a line feed/],
    ['bad name', '1a 1\n', /bad metric name "1a"/],
    ['unquoted label', 'a{b=c} 1\n', /not quoted/],
    ['bad escape', 'a{b="\\t"} 1\n', /bad escape \\t/],
    ['label given twice', 'a{b="1",b="2"} 1\n', /given twice/],
    ['not a number', 'a one\n', /not a number/],
    ['duplicate series', 'a{b="1"} 1\na{b="1"} 2\n', /appears twice/],
    ['split family', '# TYPE a gauge\na 1\n# TYPE b gauge\nb 1\na{x="y"} 2\n', /not together/],
    ['TYPE after samples', 'a 1\n# TYPE a gauge\n', /TYPE after/],
    ['unknown type', '# TYPE a meter\n', /unknown type/],
    ['negative counter', '# TYPE a counter\na -1\n', /counter a is -1/],
    ['buckets not cumulative', '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_sum 0\nh_count 1\n', /not cumulative/],
    ['no +Inf bucket', '# TYPE h histogram\nh_bucket{le="1"} 1\nh_sum 0\nh_count 1\n', /le="\+Inf"/],
    ['+Inf differs from _count', '# TYPE h histogram\nh_bucket{le="+Inf"} 1\nh_sum 0\nh_count 2\n', /differs from _count/],
  ];
  for (const [what, text, reason] of bad) assert.throws(() => parsePrometheusText(text), reason, what);
});

parser.run();

const metrics = suite<{ s: TinyServer }>('/metrics');
metrics.before(async (context) => {
  // Two sequences at most: a request with n=2 fills them, and the next one waits in the queue.
  context.s = await startTinyServer({ engine: { overrides: { context_window_size: 512, max_num_sequence: 2 } } });
});
metrics.after(async (context) => {
  await context.s.close();
});

metrics('every family has HELP and TYPE; the engine gauges read its figures', async ({ s }) => {
  const families = await scrape(s);
  for (const family of families.values()) {
    assert.ok(family.name.startsWith('lmforge_'), family.name);
    assert.ok(family.help && family.help.length > 10, `${family.name} has a HELP`);
    assert.is.not(family.type, 'untyped', `${family.name} has a TYPE`);
  }
  const stats = await s.engine.stats();
  assert.is(sampleValue(families, 'lmforge_kv_cells_total'), s.engine.info.config.maxTotalSeqLength);
  assert.is(sampleValue(families, 'lmforge_requests_running'), 0);
  assert.is(sampleValue(families, 'lmforge_requests_waiting'), 0);
  assert.is(sampleValue(families, 'lmforge_kv_cells_used'), 0);
  assert.is(sampleValue(families, 'lmforge_preemptions_total'), stats.preemptions);
  assert.is(families.get('lmforge_preemptions_total')!.type, 'counter');
  assert.is(families.get('lmforge_recomputed_tokens_total')!.type, 'counter');
  assert.is(families.get('lmforge_time_to_first_token_seconds')!.type, 'histogram');
});

metrics('a whole response moves the counters and histograms by exactly its usage', async ({ s }) => {
  const before = await scrape(s);
  const response = await post(`${s.url}/v1/chat/completions`, chat());
  assert.is(response.status, 200);
  const usage = response.json.usage;
  const after = await scrapeUntil(s, (f) => delta(before, f, ...http('POST', '/v1/chat/completions', '200')) === 1, 'the request counted');
  assert.is(delta(before, after, 'lmforge_prompt_tokens_total'), usage.prompt_tokens);
  assert.is(delta(before, after, 'lmforge_completion_tokens_total'), 5);
  assert.is(delta(before, after, 'lmforge_cached_prompt_tokens_total'), usage.prompt_tokens_details.cached_tokens);
  assert.is(delta(before, after, 'lmforge_choices_finished_total', { finish_reason: 'length' }), 1);
  const ttft = histogramDelta(before, after, 'lmforge_time_to_first_token_seconds');
  const itl = histogramDelta(before, after, 'lmforge_inter_token_latency_seconds');
  const e2e = histogramDelta(before, after, 'lmforge_e2e_request_latency_seconds');
  assert.is(ttft.count, 1);
  assert.is(itl.count, 4, 'one gap between each two of the five tokens');
  assert.is(e2e.count, 1);
  assert.ok(ttft.sum > 0 && itl.sum > 0);
  assert.ok(ttft.sum + itl.sum <= e2e.sum, 'the first token and the gaps after it fit in the whole request');
});

metrics('a second identical prompt is served from the prefix cache, and the counter says how much', async ({ s }) => {
  const messages = [{ role: 'user', content: 'A prompt long enough to leave whole cached blocks behind it, said twice over.' }];
  await post(`${s.url}/v1/chat/completions`, chat({ messages, max_tokens: 2 }));
  const before = await scrape(s);
  const again = await post(`${s.url}/v1/chat/completions`, chat({ messages, max_tokens: 2 }));
  const cached = again.json.usage.prompt_tokens_details.cached_tokens;
  assert.ok(cached > 0, 'the prefix cache served part of the prompt');
  const after = await scrapeUntil(s, (f) => delta(before, f, ...http('POST', '/v1/chat/completions', '200')) === 1, 'the request counted');
  assert.is(delta(before, after, 'lmforge_cached_prompt_tokens_total'), cached);
  assert.is(delta(before, after, 'lmforge_prompt_tokens_total'), again.json.usage.prompt_tokens);
});

metrics('a stream of n=2 counts each choice: gaps per choice, tokens and finish reasons', async ({ s }) => {
  const before = await scrape(s);
  const stream = await s.client.chat.completions.create({ ...chat({ max_tokens: 6, n: 2 }), stream: true, stream_options: { include_usage: true } } as any);
  let usage: any;
  for await (const chunk of stream as any) if (chunk.usage) usage = chunk.usage;
  assert.is(usage.completion_tokens, 12);
  const after = await scrapeUntil(s, (f) => delta(before, f, ...http('POST', '/v1/chat/completions', '200')) === 1, 'the request counted');
  assert.is(delta(before, after, 'lmforge_completion_tokens_total'), 12);
  assert.is(delta(before, after, 'lmforge_prompt_tokens_total'), usage.prompt_tokens);
  assert.is(delta(before, after, 'lmforge_choices_finished_total', { finish_reason: 'length' }), 2);
  assert.is(histogramDelta(before, after, 'lmforge_time_to_first_token_seconds').count, 1, 'one first token per request');
  assert.is(histogramDelta(before, after, 'lmforge_inter_token_latency_seconds').count, 10, 'five gaps in each of two choices');
  assert.is(histogramDelta(before, after, 'lmforge_e2e_request_latency_seconds').count, 1);
});

metrics('errors are counted by status and path, with no latency or tokens', async ({ s }) => {
  const before = await scrape(s);
  assert.is((await post(`${s.url}/v1/chat/completions`, '{')).status, 400);
  assert.is((await post(`${s.url}/v1/chat/completions`, chat({ model: 'gpt-4o' }))).status, 404);
  assert.is((await fetch(`${s.url}/no/such/path`)).status, 404);
  assert.is((await post(`${s.url}/v1/models`, {})).status, 405);
  const after = await scrapeUntil(s, (f) => delta(before, f, ...http('POST', '/v1/models', '405')) === 1, 'the 405 counted');
  assert.is(delta(before, after, ...http('POST', '/v1/chat/completions', '400')), 1);
  assert.is(delta(before, after, ...http('POST', '/v1/chat/completions', '404')), 1);
  assert.is(delta(before, after, ...http('GET', 'other', '404')), 1, 'unknown paths share one label');
  assert.is(delta(before, after, ...http('GET', '/metrics', '200')) >= 1, true, 'scrapes count too');
  assert.is(delta(before, after, 'lmforge_prompt_tokens_total'), 0);
  assert.is(histogramDelta(before, after, 'lmforge_time_to_first_token_seconds').count, 0);
  assert.is(histogramDelta(before, after, 'lmforge_e2e_request_latency_seconds').count, 0);
});

metrics('running and waiting requests, sequences and KV cells show while they run; a cancelled stream is counted', async ({ s }) => {
  const before = await scrape(s);
  const controllers = [new AbortController(), new AbortController()];
  const open = (index: number) =>
    fetch(`${s.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(chat({ max_tokens: 400, n: 2, stream: true })),
      signal: controllers[index]!.signal,
    });
  // Two choices fill both sequence slots; the second request waits for them.
  const first = await open(0);
  await readEvents(first, 4);
  const second = open(1);
  const busy = await scrapeUntil(s, (f) => sampleValue(f, 'lmforge_requests_waiting') === 1, 'the second request waiting');
  assert.is(sampleValue(busy, 'lmforge_requests_running'), 1);
  assert.is(sampleValue(busy, 'lmforge_sequences_running'), 2);
  assert.ok(sampleValue(busy, 'lmforge_kv_cells_used') > 0, 'the running choices hold KV cells');
  controllers[0]!.abort();
  const secondResponse = await second;
  await readEvents(secondResponse, 4);
  controllers[1]!.abort();
  const after = await scrapeUntil(
    s,
    (f) => delta(before, f, 'lmforge_choices_finished_total', { finish_reason: 'cancelled' }) === 4 && sampleValue(f, 'lmforge_requests_running') === 0,
    'both streams cancelled',
  );
  assert.is(sampleValue(after, 'lmforge_kv_cells_used'), 0);
  assert.is(delta(before, after, ...http('POST', '/v1/chat/completions', '200')), 2, 'a stream that began is a 200');
  assert.is(histogramDelta(before, after, 'lmforge_e2e_request_latency_seconds').count, 0, 'cancelled requests have no end-to-end time');
  assert.ok(delta(before, after, 'lmforge_completion_tokens_total') >= 4, 'tokens sent before the cancel are counted');
});

metrics('grammar compiles, cache hits and compile time', async ({ s }) => {
  const before = await scrape(s);
  const format = { type: 'json_schema', json_schema: { name: 'n', schema: { type: 'object', properties: { metric: { type: 'integer' } }, required: ['metric'] } } };
  for (let i = 0; i < 2; i++) {
    const response = await post(`${s.url}/v1/chat/completions`, chat({ max_tokens: 20, ignore_eos: false, response_format: format }));
    assert.is(response.status, 200, response.text);
  }
  const after = await scrape(s);
  assert.is(delta(before, after, 'lmforge_grammar_compiles_total'), 1);
  assert.is(delta(before, after, 'lmforge_grammar_cache_hits_total'), 1);
  const compile = histogramDelta(before, after, 'lmforge_grammar_compile_seconds');
  assert.is(compile.count, 2, 'each request waited for its format once');
  assert.ok(compile.sum > 0);
});

metrics('each cache shows its bytes, and a new format grows the grammar caches by what it holds', async ({ s }) => {
  const cacheBytes = (families: Families, cache: string) => sampleValue(families, 'lmforge_cache_bytes', { cache });
  const before = await scrape(s);
  assert.is(before.get('lmforge_cache_bytes')?.type, 'gauge');
  const format = { type: 'json_schema', json_schema: { name: 'c', schema: { type: 'object', properties: { gauge: { type: 'string', enum: ['bytes', 'entries', 'masks'] } }, required: ['gauge'] } } };
  const response = await post(`${s.url}/v1/chat/completions`, chat({ max_tokens: 20, ignore_eos: false, response_format: format }));
  assert.is(response.status, 200, response.text);
  const after = await scrape(s);
  // An artifact of a few KiB on the HTTP thread; on the engine's, its grammar and at least one mask more.
  const artifact = cacheBytes(after, 'grammar_artifacts') - cacheBytes(before, 'grammar_artifacts');
  assert.ok(artifact > 100 && artifact < 1 << 20, `grammar_artifacts grew ${artifact} bytes`);
  assert.ok(cacheBytes(after, 'compiled_grammars') - cacheBytes(before, 'compiled_grammars') > artifact, 'the engine holds the artifact and its masks');
  assert.equal(after.get('lmforge_cache_bytes')!.samples.map((sample) => sample.labels.cache).sort(), ['compiled_grammars', 'grammar_artifacts', 'vocabulary']);
});

metrics.run();

const speculative = suite<{ s: TinyServer }>('/metrics: speculative decoding');
speculative.before(async (context) => {
  context.s = await startTinyServer({ engine: { overrides: { context_window_size: 512, spec_draft_length: 4 }, speculativeMode: 'ngram' } });
});
speculative.after(async (context) => {
  await context.s.close();
});

speculative('draft and accepted tokens mirror the engine; tokens accepted together still give one gap per token', async ({ s }) => {
  const before = await scrape(s);
  // Greedy decoding of a repeated phrase: prompt lookup finds drafts, and the model takes some.
  const phrase = 'one two three four five six seven eight nine ten ';
  const response = await post(`${s.url}/v1/chat/completions`, chat({ messages: [{ role: 'user', content: phrase.repeat(8) }], max_tokens: 60, temperature: 0 }));
  assert.is(response.status, 200, response.text);
  const after = await scrapeUntil(s, (f) => delta(before, f, ...http('POST', '/v1/chat/completions', '200')) === 1, 'the request counted');
  const stats = await s.engine.stats();
  assert.ok(stats.acceptedDraftTokens > 0, 'drafts were proposed and some accepted, so some deltas carried several tokens');
  assert.is(sampleValue(after, 'lmforge_spec_draft_tokens_total'), stats.draftTokens);
  assert.is(sampleValue(after, 'lmforge_spec_accepted_tokens_total'), stats.acceptedDraftTokens);
  assert.is(delta(before, after, 'lmforge_completion_tokens_total'), 60);
  assert.is(histogramDelta(before, after, 'lmforge_inter_token_latency_seconds').count, 59);
});

speculative.run();

const apart = suite('/metrics: one registry per server');

apart('two servers in one process count apart', async () => {
  const options = { modelId: 'm', cors: { allowCredentials: false, allowedOrigins: ['*'], allowedMethods: ['*'], allowedHeaders: ['*'] }, tracing: false, maxBodyBytes: 1024, version: 'test' };
  const [a, b] = [new ApiServer(options), new ApiServer(options)];
  a.metrics.promptTokens.inc(7);
  assert.is(sampleValue(parsePrometheusText(await a.metrics.render(undefined)), 'lmforge_prompt_tokens_total'), 7);
  assert.is(sampleValue(parsePrometheusText(await b.metrics.render(undefined)), 'lmforge_prompt_tokens_total'), 0);
});

apart.run();
