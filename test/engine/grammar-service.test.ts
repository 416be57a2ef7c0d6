// Output-format compiles that cannot starve each other: a pool of real compile workers, each
// compile's deadline counted from its own start, identical specs compiled once, and errors that
// say what went wrong (invalid_grammar) apart from what was slow (grammar_timeout).
import { mkdtempSync, readdirSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { GrammarCompileError, GrammarService } from '../../runtime/grammar-service/grammar-service.js';
import { GrammarPool } from '../../runtime/grammar-service/grammar-pool.js';
import type { GrammarSpec } from '../../runtime/grammar-service/grammar-spec.js';
import { post, startTinyServer, TINY_MODEL_ID, type TinyServer } from '../helpers/tiny-server.js';

const tokenTexts = ['a', 'b', '{', '}', '"', '<tool>', '</tool>'];

/**
 * An anyOf nested 10 deep, each level holding two copies of the one below, with 1,024 leaves
 * that are strings under distinct patterns and a length bound: alone it compiles for about
 * 8-16 s on the 2-core test machine, far past the deadlines here, while staying under the
 * compiler's 10,000 sub-schema limit. (With plain string leaves the same tree compiled in about
 * 5 s, now in 2.5-3 s, too close to the deadline; the leaves also differ so that no two rules
 * are alike, since alike rules share one automaton.)
 */
function slowSchema(): GrammarSpec {
  let leaf = 0;
  const level = (depth: number): object =>
    depth === 0
      ? { type: 'string', pattern: `^k${leaf++}[a-z]{2,40}-[0-9]{1,12}$`, maxLength: 50 }
      : { anyOf: [{ type: 'object', properties: { a: level(depth - 1) } }, { type: 'array', items: level(depth - 1) }, { type: 'integer' }] };
  return { kind: 'json_schema', schema: level(10) };
}

/** Small schemas, each distinct so none is a cache hit or joins another's compile. */
function smallSchema(i: number): GrammarSpec {
  return { kind: 'json_schema', schema: { type: 'object', properties: { [`n${i}`]: { type: 'integer' }, name: { type: 'string' } }, required: [`n${i}`] } };
}

const wrongFormats: { label: string; spec: GrammarSpec; pointer?: string }[] = [
  { label: 'undefined EBNF rule', spec: { kind: 'ebnf', text: 'root ::= greeting\n' } },
  { label: 'EBNF text "(["', spec: { kind: 'ebnf', text: '"(["' } },
  { label: 'unknown structural-tag type', spec: { kind: 'structural_tag', tag: { type: 'sparkle' } }, pointer: '/type' },
];

/** Settles a compile into a labelled event, in the order they happen. */
function record(events: string[], label: string, compiling: Promise<Uint8Array>): Promise<Uint8Array | GrammarCompileError> {
  return compiling.then(
    (artifact) => {
      events.push(`${label} compiled`);
      return artifact;
    },
    (error: GrammarCompileError) => {
      events.push(`${label} ${error.timedOut ? 'timed out' : 'failed'}`);
      return error;
    },
  );
}

const DEADLINE_MS = 2500;
const pooled = suite<{ service: GrammarService }>('grammar service: a pool of compile workers');

pooled.before(async (context) => {
  context.service = new GrammarService({ tokenTexts, timeoutMs: DEADLINE_MS, workers: 2 });
  // Ready workers, so the slow compile's deadline runs while the small ones have a worker too.
  await context.service.warmUp();
});
pooled.after(async ({ service }) => {
  await service.dispose();
});

pooled('a slow format times out alone: ten small ones sent with it all compile before its deadline fires', async ({ service }) => {
  const events: string[] = [];
  const sent = performance.now();
  const slow = record(events, 'slow', service.compile(slowSchema()));
  const tookMs: number[] = [];
  const small = Array.from({ length: 10 }, (_, i) =>
    record(events, `small ${i}`, service.compile(smallSchema(i))).finally(() => tookMs.push(performance.now() - sent)),
  );
  const results = await Promise.all(small);
  for (const [i, result] of results.entries()) assert.instance(result, Uint8Array, `small ${i}: ${String(result)}`);
  const error = await slow;
  assert.instance(error, GrammarCompileError);
  assert.ok((error as GrammarCompileError).timedOut, 'the slow one is a timeout');
  assert.is(events.at(-1), 'slow timed out', `every small one settled before the slow one's deadline: ${events.join(', ')}`);
  console.log(`  small formats beside a slow one: slowest done ${Math.max(...tookMs).toFixed(0)} ms after sending (deadline ${DEADLINE_MS} ms)`);
});

pooled('the cut-off worker is replaced, and compiles go on', async ({ service }) => {
  assert.is(service.workersStarted, 3, 'two at warm-up, one in place of the cut-off one');
  const artifacts = await Promise.all([service.compile(smallSchema(100)), service.compile(smallSchema(101)), service.compile({ kind: 'regex', pattern: '[ab]+' })]);
  for (const artifact of artifacts) assert.instance(artifact, Uint8Array);
});

pooled('wrong formats are invalid, not timed out, even while a slow compile runs', async ({ service }) => {
  const events: string[] = [];
  const slow = record(events, 'slow', service.compile(slowSchema()));
  const wrong = await Promise.all(wrongFormats.map(({ label, spec }) => record(events, label, service.compile(spec))));
  for (const [i, error] of wrong.entries()) {
    const { label, pointer } = wrongFormats[i]!;
    assert.instance(error, GrammarCompileError, label);
    assert.is((error as GrammarCompileError).timedOut, false, `${label}: ${(error as Error).message}`);
    if (pointer) assert.is((error as GrammarCompileError).pointer, pointer, label);
  }
  // Which settles first is the machine's business (a loaded one may reach the slow deadline
  // before the last refusal); what matters is that no refusal waited for it or became a timeout.
  assert.ok(((await slow) as GrammarCompileError).timedOut, events.join(', '));
});

pooled('the same spec asked by many at once compiles once, and all get its artifact', async ({ service }) => {
  const before = service.compilesStarted;
  const spec: GrammarSpec = { kind: 'regex', pattern: '(yes|no)-[0-9]{2}' };
  const artifacts = await Promise.all(Array.from({ length: 8 }, () => service.compile(spec)));
  assert.is(service.compilesStarted - before, 1);
  for (const artifact of artifacts) assert.is(artifact, artifacts[0]);
  // Afterwards it is a cache hit, which starts no compile either.
  assert.is(await service.compile(spec), artifacts[0]);
  assert.is(service.compilesStarted - before, 1);
});

pooled('the same wrong spec asked by many at once compiles once, and all get its error', async ({ service }) => {
  const before = service.compilesStarted;
  const errors = await Promise.all(Array.from({ length: 5 }, () => service.compile(wrongFormats[0]!.spec).catch((error: Error) => error)));
  assert.is(service.compilesStarted - before, 1);
  for (const error of errors) {
    assert.instance(error, GrammarCompileError);
    assert.is(error, errors[0]);
  }
});

pooled.run();

const waiting = suite('grammar pool: waiting for a worker');

waiting('with every worker busy, compiles wait in arrival order; one waiting too long is refused as overload', async () => {
  const pool = new GrammarPool({ tokenTexts, timeoutMs: DEADLINE_MS, workers: 1 });
  try {
    await pool.warmUp();
    const events: string[] = [];
    const firsts = [0, 1, 2].map((i) => record(events, `small ${i}`, pool.compile(smallSchema(i))));
    await Promise.all(firsts);
    assert.equal(events, ['small 0 compiled', 'small 1 compiled', 'small 2 compiled']);
    events.length = 0;
    const short = new GrammarPool({ tokenTexts, timeoutMs: DEADLINE_MS, workers: 1, maxQueueWaitMs: 50 });
    try {
      await short.warmUp();
      const slow = record(events, 'slow', short.compile(slowSchema()));
      const behind = await short.compile(smallSchema(3)).catch((error: Error) => error);
      events.push('small 3 refused');
      assert.instance(behind, GrammarCompileError);
      assert.is((behind as GrammarCompileError).overloaded, true, 'refused because no worker was free');
      assert.is((behind as GrammarCompileError).timedOut, false, 'not a timeout: its own compile never started');
      assert.ok(((await slow) as GrammarCompileError).timedOut);
      assert.equal(events, ['small 3 refused', 'slow timed out']);
    } finally {
      await short.dispose();
    }
  } finally {
    await pool.dispose();
  }
});

waiting.run();

// A stand-in worker speaking grammar-worker.ts's messages: 'crash' throws; 'hold' says
// 'holding' on a BroadcastChannel and answers once the test says 'go' there; anything else
// compiles to one byte.
const standIn = `
import { parentPort, BroadcastChannel } from 'node:worker_threads';
const channel = new BroadcastChannel('grammar-pool-test');
let held = [];
channel.onmessage = () => { for (const id of held) parentPort.postMessage({ type: 'compiled', id, artifact: new Uint8Array([2]) }); held = []; };
parentPort.on('message', (job) => {
  if (job.spec.pattern === 'crash') throw new Error('the stand-in crashed');
  if (job.spec.pattern !== 'hold') return parentPort.postMessage({ type: 'compiled', id: job.id, artifact: new Uint8Array([1]) });
  held.push(job.id);
  channel.postMessage('holding');
});
parentPort.postMessage({ type: 'ready' });
channel.unref();
`;
const dataUrl = (source: string) => new URL(`data:text/javascript,${encodeURIComponent(source)}`);

const crashes = suite('grammar pool: crashed workers');

crashes('a crash fails only the compile on that worker, not as a timeout; the worker is replaced', async () => {
  const { BroadcastChannel } = await import('node:worker_threads');
  const pool = new GrammarPool({ tokenTexts, timeoutMs: 60_000, workers: 2, entry: { url: dataUrl(standIn) } });
  const channel = new BroadcastChannel('grammar-pool-test');
  const holding = new Promise((resolve) => (channel.onmessage = resolve));
  try {
    await pool.warmUp();
    const held = pool.compile({ kind: 'regex', pattern: 'hold' });
    await holding;
    const crashed = await pool.compile({ kind: 'regex', pattern: 'crash' }).catch((error: Error) => error);
    assert.instance(crashed, GrammarCompileError);
    assert.is((crashed as GrammarCompileError).timedOut, false);
    assert.match((crashed as Error).message, /the grammar compiler failed on this format \(the stand-in crashed\)/);
    // The compile on the other worker was running all along, and still finishes.
    channel.postMessage('go');
    assert.equal([...(await held)], [2]);
    assert.equal([...(await pool.compile({ kind: 'regex', pattern: 'after' }))], [1]);
    assert.is(pool.workersStarted, 3);
  } finally {
    channel.close();
    await pool.dispose();
  }
});

crashes('workers that cannot start fail the waiting compiles instead of leaving them hanging', async () => {
  const pool = new GrammarPool({ tokenTexts, timeoutMs: 60_000, workers: 2, entry: { url: dataUrl("throw new Error('no compiler here');") } });
  try {
    const error = await pool.compile({ kind: 'regex', pattern: 'a' }).catch((e: Error) => e);
    assert.instance(error, GrammarCompileError);
    assert.is((error as GrammarCompileError).timedOut, false);
    assert.match((error as Error).message, /could not start \(no compiler here\)/);
  } finally {
    await pool.dispose();
  }
});

crashes.run();

const http = suite<{ s: TinyServer }>('grammar compiles through HTTP');

http.before(async (context) => {
  context.s = await startTinyServer({ engine: { grammarTimeoutMs: DEADLINE_MS } });
});
http.after(async ({ s }) => {
  await s.close();
});

const askWith = (s: TinyServer) => (response_format: object) =>
  post(`${s.url}/v1/chat/completions`, { model: TINY_MODEL_ID, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 2, response_format });

http('beside a slow format, small ones answer 200 and wrong ones 400 invalid_grammar with a param into response_format', async ({ s }) => {
  const ask = askWith(s);
  const compileGrammar = s.engine.compileGrammar;
  try {
    // The others are sent once the server has asked for the slow compile, so they come after it.
    const slowAsked = new Promise<void>((resolve) => {
      s.engine.compileGrammar = (spec) => {
        if (spec.kind === 'json_schema' && (spec.schema as { anyOf?: unknown }).anyOf) resolve();
        return compileGrammar.call(s.engine, spec);
      };
    });
    const slow = ask({ type: 'json_schema', json_schema: { name: 'slow', schema: (slowSchema() as { schema: object }).schema } });
    await slowAsked;
    const small = [0, 1, 2].map((i) => ask({ type: 'json_schema', json_schema: { name: `small${i}`, schema: (smallSchema(i) as { schema: object }).schema } }));
    const wrong = [
      ask({ type: 'grammar', grammar: 'root ::= greeting\n' }),
      ask({ type: 'grammar', grammar: '"(["' }),
      ask({ type: 'structural_tag', format: { type: 'sparkle' } }),
    ];
    for (const response of await Promise.all(small)) assert.is(response.status, 200, response.text);
    const [undefinedRule, unbalanced, unknownTag] = await Promise.all(wrong);
    for (const response of [undefinedRule!, unbalanced!, unknownTag!]) {
      assert.is(response.status, 400, response.text);
      assert.is(response.json.error.code, 'invalid_grammar', response.text);
    }
    assert.is(undefinedRule!.json.error.param, 'response_format.grammar');
    assert.is(unbalanced!.json.error.param, 'response_format.grammar');
    assert.is(unknownTag!.json.error.param, 'response_format.format/type');
    const timedOut = await slow;
    assert.is(timedOut.status, 400);
    assert.is(timedOut.json.error.code, 'grammar_timeout');
    assert.is(timedOut.json.error.param, 'response_format.json_schema.schema');
  } finally {
    s.engine.compileGrammar = compileGrammar;
  }
});

http('a format that found no free compile worker is a 503 server_is_overloaded, not a grammar error', async ({ s }) => {
  const compileGrammar = s.engine.compileGrammar;
  // Standing in for a minute-long wait behind other compiles: the pool refuses it this way.
  s.engine.compileGrammar = () => Promise.reject(new GrammarCompileError('every grammar compiler stayed busy with other formats for 60 s; retry later', undefined, false, true));
  try {
    const response = await askWith(s)({ type: 'regex', pattern: 'ok' });
    assert.is(response.status, 503, response.text);
    assert.is(response.json.error.code, 'server_is_overloaded');
    assert.is(response.json.error.type, 'server_error');
  } finally {
    s.engine.compileGrammar = compileGrammar;
  }
});

http.run();

const disk = suite<{ dir: string }>('grammar service: its disk cache');

disk.before.each((context) => {
  context.dir = mkdtempSync(join(tmpdir(), 'lmforge-grammar-service-'));
});
disk.after.each(({ dir }) => rmSync(dir, { recursive: true, force: true }));

disk("a format answered from memory marks its disk file used, so the disk's bound keeps the formats in use", async ({ dir }) => {
  const service = new GrammarService({ tokenTexts, timeoutMs: 10_000, workers: 1, cacheDir: dir, markUsedIntervalMs: 0 });
  try {
    await service.compile(smallSchema(1));
    const [file] = readdirSync(dir).filter((name) => name.endsWith('.lmgrammar'));
    const path = join(dir, file!);
    const hourAgo = Date.now() / 1000 - 3600;
    utimesSync(path, hourAgo, hourAgo);
    await service.compile(smallSchema(1)); // from memory
    assert.equal(service.cacheCounts.compiled, 1);
    // The mark is made off the request's path: wait for it.
    for (let i = 0; i < 50 && statSync(path).mtimeMs < Date.now() - 60_000; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.ok(statSync(path).mtimeMs > Date.now() - 60_000, 'marked used by the memory hit');
  } finally {
    await service.dispose();
  }
});

disk.run();
