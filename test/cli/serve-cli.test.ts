// `lmforge serve` as users run it: a child process of bin/lmforge.mjs.
import { createServer, type AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tinyModelPath } from '../../fixtures/paths.js';
import { listDevices } from '../../runtime/backend/devices.js';
import { loadLlamaLibrary } from '../../runtime/backend/library.js';
import { kvBytesPerToken, LlamaModel } from '../../runtime/backend/model.js';
import { computeEngineConfig } from '../../runtime/engine/engine-config.js';
import { openPaths } from '../../runtime/server/auth.js';
import { freePort, startCli as start, waitForLine, type CliRun } from '../helpers/cli-process.js';

const test = suite('lmforge serve (CLI)');

/** A command that ends by itself: its exit status and output. */
async function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = start(args, {});
  const code = await run.exit;
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

async function failsWith(args: string[], pattern: RegExp, env: Record<string, string> = {}): Promise<void> {
  const run = start(args, env);
  // A server that starts instead of refusing fails the test rather than leaving it waiting.
  const serving = waitForLine(run, /serving: /).then(
    () => run.child.kill('SIGKILL'),
    () => undefined,
  );
  const code = await run.exit;
  await serving;
  assert.not.match(run.stdout(), /serving: /, `${args.join(' ')} started serving instead of stopping`);
  assert.is(code, 1, `exit status for ${args.join(' ')}`);
  const lines = run.stderr().trim().split('\n');
  assert.is(lines.length, 1, `one line, not a stack trace: ${run.stderr()}`);
  assert.match(lines[0]!, /^lmforge: /);
  assert.match(lines[0]!, pattern);
}

test('serve --help documents every option of the spec with its default', async () => {
  const run = start(['serve', '--help']);
  assert.is(await run.exit, 0);
  const help = run.stdout();
  for (const option of ['--model-lib', '--device', '--mode', '--additional-models', '--speculative-mode', '--overrides', '--enable-tracing', '--host', '--port', '--allow-credentials', '--allowed-origins', '--allowed-methods', '--allowed-headers', '--max-batch-size', '--max-total-seq-length', '--prefill-chunk-size', '--api-key', '--served-model-name', '--chat-template', '--no-ui']) {
    assert.ok(help.includes(option), `${option} is documented`);
  }
  assert.match(help, /--api-key <key> +Require Authorization: Bearer KEY .*repeat the flag or comma-separate .*\$LMFORGE_API_KEY/);
  const apiKeyHelp = /--api-key <key> +(.*)/.exec(help)![1]!;
  for (const path of openPaths(true)) assert.ok(apiKeyHelp.includes(` ${path}`), `--api-key's help names ${path}, open with keys set`);
  assert.match(apiKeyHelp, /unless --no-ui, the chat page's \/, \/ui\/\* \(static files with no data; every API call the page makes needs the key\)/);
  assert.match(help, /--chat-template <template> +A Jinja file, or a built-in template \(chatml, gemma, llama3, plain\), used instead of the model's own/);
  assert.match(help, /--threads <n> +CPU threads for llama\.cpp, used as given \(default: every usable CPU, fewer while other processes keep CPUs busy\)/);
  assert.match(help, /--grammar-cache-max-bytes <n> +Bytes of compiled response formats kept on disk .*least recently used are removed \(0: memory only\) \(default: 1073741824\)/);
  for (const fallback of ['(default: auto)', '(default: local)', '(default: 127.0.0.1)', '(default: 8000)', '(default: disable)', '(default: ["*"])']) {
    assert.ok(help.includes(fallback), `${fallback} is shown`);
  }
});

test("help and version under a command given its arguments: printed, exit 0 (it said the model was an unknown command, and --version printed nothing); a text value keeps its text", async () => {
  for (const args of [['serve', tinyModelPath, '--help'], ['compile', 'smollm2', '-h'], ['backend', 'build', 'cuda', '--help']]) {
    const run = await runCli(args);
    assert.is(run.code, 0, `${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stdout, /Usage:/);
    assert.not.match(run.stderr, /unknown command/);
  }
  const version = await runCli(['serve', '--version']);
  assert.is(version.code, 0);
  assert.match(version.stdout, /^lmforge\/\d+\.\d+\.\d+/);
  // An option with no command is a mistake, as an unknown command is (it printed the help and exited 0).
  const bare = await runCli(['--foo']);
  assert.is(bare.code, 1);
  assert.match(bare.stderr, /--foo is not an option of lmforge itself/);
  // The parser read 0123 as 123: another regex, compiled and called ok.
  const regex = await runCli(['compile-grammar', '--check', '--regex', '0123']);
  assert.match(regex.stdout, /ok regex "0123"/);
});

test('bad flags fail before loading anything, each with one line naming it', async () => {
  await failsWith(['serve', tinyModelPath, '--overrides', 'max_num_sequence=0'], /max_num_sequence=0 is not valid/);
  await failsWith(['serve', tinyModelPath, '--overrides', 'bogus=1'], /unknown key 'bogus'/);
  // Named as typed, not as cac's camelCase (--apiKeyy).
  await failsWith(['serve', tinyModelPath, '--api-keyy', 'K'], /Unknown option `--api-keyy`/);
  await failsWith(['bogus'], /unknown command 'bogus'/);
  await failsWith(['check', '--help'], /unknown command 'check'/); // the general help is printed, and the exit status says the command was wrong
  await failsWith(['serve', tinyModelPath, '--device', 'tpu'], /--device 'tpu' is not valid/);
  await failsWith(['serve', tinyModelPath, '--mode', 'fast'], /--mode 'fast' is not valid/);
  await failsWith(['serve', tinyModelPath, '--kv-layout', 'unified'], /--kv-layout 'unified' is not valid: use one of shared, per-sequence/);
  await failsWith(['serve', tinyModelPath, '--kv-layout', 'per-sequence', '--overrides', 'max_total_seq_length=2048'], /--kv-layout per-sequence: 2048 KV cells cannot give each of 20 sequence ids/);
  await failsWith(['serve', tinyModelPath, '--allowed-origins', 'http://x'], /--allowed-origins .* JSON list of strings/);
  // Entries that could never match were taken: browsers send an origin without a path or slash, methods and headers are tokens.
  await failsWith(['serve', tinyModelPath, '--allowed-origins', '["http://localhost:3000/"]'], /--allowed-origins .* is not valid: "http:\/\/localhost:3000\/" is not an origin as browsers send it; write "http:\/\/localhost:3000"/);
  await failsWith(['serve', tinyModelPath, '--allowed-origins', '["localhost:3000"]'], /is not valid: "localhost:3000" is not an origin such as "http:\/\/localhost:3000"/);
  await failsWith(['serve', tinyModelPath, '--allowed-methods', '["FOO BAR"]'], /--allowed-methods .* is not valid: "FOO BAR" is not an HTTP method/);
  await failsWith(['serve', tinyModelPath, '--allowed-headers', '["x:y"]'], /--allowed-headers .* is not valid: "x:y" is not a header name/);
  await failsWith(['serve', tinyModelPath, '--speculative-mode', 'eagle'], /--speculative-mode eagle needs an EAGLE-3 draft: give it with --additional-models EAGLE3\.gguf/);
  await failsWith(['serve', tinyModelPath, '--speculative-mode', 'small_draft'], /small_draft needs a draft model: give it with --additional-models PATH/);
  await failsWith(['serve', tinyModelPath, '--additional-models', tinyModelPath], /is a draft model, an EAGLE-3 draft or Medusa heads: add --speculative-mode small_draft, eagle or medusa/);
  await failsWith(['serve', tinyModelPath, '--speculative-mode', 'ngram', '--additional-models', tinyModelPath], /--speculative-mode ngram drafts from the text so far and takes no additional model/);
  await failsWith(['serve', tinyModelPath, '--speculative-mode', 'small_draft', '--additional-models', `${tinyModelPath},/lib/libllama.so`], /a separate model library for the draft is not supported/);
  await failsWith(['serve', tinyModelPath, '--overrides', 'spec_draft_length=4'], /spec_draft_length=4 needs speculative decoding: add --speculative-mode ngram, small_draft, eagle or medusa/);
  await failsWith(['serve', tinyModelPath, '--speculative-mode', 'fastest'], /--speculative-mode 'fastest' is not valid/);
  await failsWith(['serve', tinyModelPath, '--max-batch-size', '2', '--overrides', 'max_num_sequence=3'], /both set the same limit/);
  // The older variant's flags keep --overrides' rules, named as typed.
  await failsWith(['serve', tinyModelPath, '--max-total-seq-length', '8'], /--max-total-seq-length 8 is not valid: it must be an integer ≥ 16/);
  // A negative number after a space is the option's value, not a flag of its own.
  await failsWith(['serve', tinyModelPath, '--max-batch-size', '-3'], /--max-batch-size -3 is not valid: it must be an integer ≥ 1/);
  await failsWith(['serve', tinyModelPath, '--drain-seconds', '-1'], /--drain-seconds -1 is not valid/);
  // A switch given a value kept the text, which read as on (--enable-tracing=false printed 'tracing: on'); twice, a list read as off.
  await failsWith(['serve', tinyModelPath, '--enable-tracing=false'], /--enable-tracing is a switch and takes no value \(got 'false'\)/);
  await failsWith(['serve', tinyModelPath, '--enableTracing='], /--enable-tracing is a switch and takes no value \(got ''\)/);
  await failsWith(['serve', tinyModelPath, '--no-ui=false'], /--no-ui is a switch and takes no value/);
  await failsWith(['serve', tinyModelPath, '--enable-tracing', '--enable-tracing'], /--enable-tracing is given 2 times \(--enable-tracing --enable-tracing\); give it once/);
  await failsWith(['serve', tinyModelPath, '--kvLayout', 'shared', '--kv-layout', 'shared'], /--kv-layout is given 2 times; give it once/);
  await failsWith(['compile-grammar', '--check', '--regex', 'a', '--any-order', '--any-order'], /--any-order is given 2 times \(--any-order --any-order\); give it once/);
  await failsWith(['compile-grammar', '--check', '--regex', 'a', '--strict-mode=false'], /--strict-mode is a switch and takes no value/);
  // compile-grammar's numbers as typed too (0x2 was 2), and separators that free whitespace would drop are refused.
  await failsWith(['compile-grammar', '--check', '--regex', 'a', '--no-any-whitespace', '--indent', '0x2'], /--indent must be a whole number of spaces from 0 to 64, not '0x2'/);
  await failsWith(['compile-grammar', '--check', '--regex', 'a', '--max-whitespace-count', '1e2'], /--max-whitespace-count must be a whole number of at least 0, not '1e2'/);
  await failsWith(['compile-grammar', '--check', '--regex', 'a', '--item-separator', 'abc'], /--item-separator lays out JSON only with --no-any-whitespace/);
  // What the parser would read otherwise than typed: a dotted name became a nested option (a key given so served with no key),
  // arguments after -- were dropped (pull -- gemma3-270m pulled the default), a mixed-case name slipped past the as-typed reads.
  await failsWith(['serve', tinyModelPath, '--api-key.x', 'secret'], /--api-key\.x is not an option: option names have no dots/);
  await failsWith(['pull', '--', 'gemma3-270m'], /arguments after '--' are not read \(gemma3-270m\)/);
  await failsWith(['serve', tinyModelPath, '--max-batchSize', '0x2'], /--max-batch-size 0x2 is not valid/);
  await failsWith(['serve', tinyModelPath, '--no-ui', '--noUi'], /--no-ui is given 2 times \(--no-ui --no-ui\); give it once/);
  await failsWith(['serve', tinyModelPath, '--ui', '--no-ui'], /--no-ui is given 2 times/);
  await failsWith(['serve', tinyModelPath, '--Foo'], /Unknown option `--foo`/);
  await failsWith(['compile', '--check', tinyModelPath, '--chat-template', 'chatml'], /--chat-template goes with compile MODEL; --check validates definitions/);
  // Past Node's longest timer it is refused, as the other seconds flags are (it was cut to 24.8 days unsaid).
  await failsWith(['serve', tinyModelPath, '--drain-seconds', '9999999999'], /--drain-seconds 9999999999 is not valid: it must be a whole number of seconds from 1 to 2147483/);
  // Whole numbers as typed: the parser read 0x10 as port 16, an empty value as port 0, 1e3 as 1000.
  await failsWith(['serve', tinyModelPath, '--port', '0x10'], /--port 0x10 is not valid: use 0 to 65535/);
  await failsWith(['serve', tinyModelPath, '--port', ''], /--port '' is not valid: use 0 to 65535/);
  await failsWith(['serve', tinyModelPath, '--max-total-seq-length', '1e3'], /--max-total-seq-length 1e3 is not valid: it must be an integer ≥ 16/);
  await failsWith(['serve', tinyModelPath, '--threads', '99999999999999999999'], /--threads 99999999999999999999 is not valid: it must be a whole number from 1 to 512/);
  // Past ggml's most the engine aborted (std::bad_alloc), reported as a llama.cpp build unfit for the CPU.
  await failsWith(['serve', tinyModelPath, '--grammar-cache-max-bytes', '512M'], /--grammar-cache-max-bytes 512M is not valid: it must be a whole number of bytes ≥ 0 \(0: compiled formats kept in memory only\)/);
  await failsWith(['serve', tinyModelPath, '--threads', '513'], /--threads 513 is not valid: it must be a whole number from 1 to 512 \(ggml's most\)/);
  // Every command's numbers as typed: bench and train-heads took 0x2 as 2, and bench's --timeout was quoted in milliseconds.
  await failsWith(['bench', '--url', 'http://127.0.0.1:9', '--num-prompts', '0x2'], /--num-prompts must be a number in decimal digits, got '0x2'/);
  await failsWith(['bench', '--url', 'http://127.0.0.1:9', '--timeout', '-1'], /--timeout must be a positive number of seconds, got -1$/);
  await failsWith(['train-heads', '--heads', '0x3'], /--heads 0x3 is not valid/);
  await failsWith(['serve', tinyModelPath, '--served-model-name', 'a', '--servedModelName', 'b'], /--served-model-name is given 2 times; give it once/);
  // A flag that needs a value and has none (an empty regex compiled), and bench's one key given twice (sent joined by a comma).
  await failsWith(['compile-grammar', '--check', '--regex'], /--regex needs a value$/);
  await failsWith(['compile-grammar', '--check', '--regex', '--any-order'], /--regex needs a value \(--any-order is a flag of its own; a value spelt like a flag goes as --regex=VALUE\)/);
  await failsWith(['bench', '--url', 'http://127.0.0.1:9', '--api-key', 'a', '--api-key', 'b'], /--api-key is given 2 times; give it once/);
  // A value that starts with '-' and is no flag is the value (it was 'Unknown option `-?`').
  const dashValue = await runCli(['compile-grammar', '--check', '--regex', '-?\\d+']);
  assert.is(dashValue.code, 0, dashValue.stderr);
  assert.match(dashValue.stdout, /^ok regex "-\?\\\\d\+"/);
  // A flag given twice says so (cac joined the values: "--port 8631,8632 is not valid").
  await failsWith(['serve', tinyModelPath, '--port', '8631', '--port', '8632'], /--port is given 2 times; give it once/);
  await failsWith(['serve', '/no/such/model.gguf'], /\/no\/such\/model\.gguf/);
  await failsWith(['serve', tinyModelPath, '--chat-template', '/no/such/template.jinja'], /--chat-template \/no\/such\/template\.jinja is neither a built-in template \(chatml, gemma, llama3, plain\) nor a readable Jinja file: no such file/);
});

test('a GPU that is not there stops start-up with one line saying what exists and what to do', async () => {
  // The CUDA and Vulkan builds are installed (optional dependencies), but this machine has no GPU.
  await failsWith(['serve', tinyModelPath, '--device', 'cuda', '--port', String(await freePort())], /--device cuda: no cuda device is present \(present: cpu:0 .*\); check the cuda driver, or use --device cpu/);
  await failsWith(['serve', tinyModelPath, '--device', 'vulkan:1', '--port', String(await freePort())], /--device vulkan:1: no vulkan device is present \(present: cpu:0/);
  await failsWith(['serve', tinyModelPath, '--device', 'rocm', '--port', String(await freePort())], /no llama\.cpp build is installed for rocm.*no prebuilt package.*--model-lib/);
});

test('a port already in use is one clear line', async () => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const { port } = blocker.address() as AddressInfo;
  try {
    await failsWith(['serve', tinyModelPath, '--port', String(port)], new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use`));
  } finally {
    blocker.close();
  }
});

test('start-up prints address, model, device and limits; SIGTERM drains a running request and exits 0', async () => {
  const port = await freePort();
  const run = start(['serve', tinyModelPath, '--port', String(port), '--max-batch-size', '2', '--overrides', 'context_window_size=256', '--threads', '1']);
  try {
    await waitForLine(run, /serving: /);
    const out = run.stdout();
    assert.match(out, new RegExp(`serving: http://127\\.0\\.0\\.1:${port}/v1`));
    assert.match(out, /model: .*tiny-gpt2\.gguf/);
    assert.match(out, /device: +cpu:0/);
    assert.match(out, /engine: +mode=local max_num_sequence=2 max_total_seq_length=256 prefill_chunk_size=256 context_window_size=256/);
    assert.match(out, /memory: +kv cache: 256 cells \(64 KiB\) for the 256-token context window; \d+ MiB of [\d.]+ GiB \([\d.]+ GiB available RAM less 10% of [\d.]+ GiB kept free\)/);
    assert.match(out, /api key: +none: every endpoint is open/);
    assert.match(out, /speculative: off\n/);
    assert.match(out, /grammars: compiled formats cached in .*grammars, least recently used removed past 1073741824 bytes \(--grammar-cache-max-bytes\)\n/);
    assert.match(out, /template: +the model's own\n/);
    assert.match(out, new RegExp(`metrics: +http://127\\.0\\.0\\.1:${port}/metrics`));
    assert.match(out, new RegExp(`chat: +http://127\\.0\\.0\\.1:${port}/ \\(the web chat page\\)`));
    assert.not.match(run.stderr(), /warning/, 'a loopback address needs no key');
    const pending = fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: tinyModelPath, messages: [{ role: 'user', content: 'hi' }], max_tokens: 150, ignore_eos: true }),
    });
    // Let the request start, then ask the server to stop.
    await new Promise((resolve) => setTimeout(resolve, 150));
    run.child.kill('SIGTERM');
    const response = await pending;
    assert.is(response.status, 200, 'the in-flight request finishes');
    const body = (await response.json()) as { usage: { completion_tokens: number } };
    assert.is(body.usage.completion_tokens, 150);
    assert.is(await run.exit, 0);
    assert.match(run.stdout(), /SIGTERM: finishing running requests/);
  } finally {
    run.child.kill('SIGKILL');
  }
});

/** Starts `serve` on the tiny model with `args`, waits until it serves, runs `check`, and stops it. */
async function whileServing(args: string[], env: Record<string, string | undefined>, check: (run: CliRun, url: string) => Promise<void>, model = tinyModelPath): Promise<void> {
  const port = await freePort();
  const run = start(['serve', model, '--port', String(port), '--threads', '1', '--overrides', 'context_window_size=256', ...args], env);
  try {
    await waitForLine(run, /serving: /);
    await check(run, `http://127.0.0.1:${port}`);
  } finally {
    run.child.kill('SIGKILL');
    await run.exit;
  }
}

const withKey = (key: string) => ({ authorization: `Bearer ${key}` });

test('listening beyond loopback without an API key prints a warning', async () => {
  await whileServing(['--host', '0.0.0.0'], { LMFORGE_API_KEY: undefined }, async (run) => {
    assert.match(run.stderr(), /lmforge: warning: listening on 0\.0\.0\.0 \(0\.0\.0\.0\) without an API key: anyone who can reach this address can use the model; pass --api-key KEY or set LMFORGE_API_KEY/);
  });
});

test('LMFORGE_API_KEY (comma-separated) guards the server; the model is served as its file stem, its path still works', async () => {
  await whileServing(['--host', '0.0.0.0'], { LMFORGE_API_KEY: 'env-one,env-two' }, async (run, url) => {
    assert.not.match(run.stderr(), /warning/);
    assert.match(run.stdout(), /api key: +required \(2 keys\); \/health, \/docs, \/openapi\.json, \/, \/ui\/\* stay open/);
    assert.match(run.stdout(), /model: +tiny-gpt2 from .*tiny-gpt2\.gguf/);
    assert.is((await fetch(`${url}/v1/models`)).status, 401);
    assert.is((await fetch(`${url}/health`)).status, 200);
    const list = (await (await fetch(`${url}/v1/models`, { headers: withKey('env-two') })).json()) as { data: { id: string }[] };
    assert.equal(list.data.map((model) => model.id), ['tiny-gpt2']);
    const reply = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...withKey('env-one') },
      body: JSON.stringify({ model: tinyModelPath, messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 }),
    });
    assert.is(reply.status, 200);
    assert.is(((await reply.json()) as { model: string }).model, 'tiny-gpt2');
  });
});

test('--api-key, repeated and comma-separated, kept exactly as typed, replaces LMFORGE_API_KEY; --served-model-name names the model; camelCase spellings count the same', async () => {
  // cac takes --apiKey too: read only as --api-key, a key given so served with no key.
  await whileServing(['--api-key', '0123', '--apiKey', 'b,c', '--servedModelName', 'my-model'], { LMFORGE_API_KEY: 'from-env' }, async (run, url) => {
    assert.match(run.stdout(), /api key: +required \(3 keys\)/);
    assert.match(run.stdout(), /model: +my-model from /);
    for (const key of ['0123', 'b', 'c']) assert.is((await fetch(`${url}/v1/models/my-model`, { headers: withKey(key) })).status, 200, key);
    for (const key of ['123', 'from-env']) assert.is((await fetch(`${url}/v1/models`, { headers: withKey(key) })).status, 401, key);
    const list = (await (await fetch(`${url}/v1/models`, { headers: withKey('c') })).json()) as { data: { id: string }[] };
    assert.equal(list.data.map((model) => model.id), ['my-model']);
    assert.is((await fetch(`${url}/v1/models/tiny-gpt2`, { headers: withKey('c') })).status, 404, 'the stem is not a name once another is given');
  });
});

test('serve smollm2: served as the name typed, which /v1/models lists and responses carry; the file stem still works', async () => {
  await whileServing([], {}, async (run, url) => {
    assert.match(run.stdout(), /model: +smollm2 from .*SmolLM2-135M-Instruct\.Q4_1\.gguf/);
    const list = (await (await fetch(`${url}/v1/models`)).json()) as { data: { id: string }[] };
    assert.equal(list.data.map((model) => model.id), ['smollm2']);
    for (const name of ['smollm2', 'SmolLM2-135M-Instruct.Q4_1']) {
      const reply = await fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: name, messages: [{ role: 'user', content: 'hi' }], max_tokens: 1 }),
      });
      assert.is(reply.status, 200, name);
      assert.is(((await reply.json()) as { model: string }).model, 'smollm2', `asked as ${name}`);
    }
  }, 'smollm2');
});

test('--sampling says at start-up where tokens are chosen: device, in the graph for every request; the host by default on a CPU', async () => {
  await whileServing(['--sampling', 'device'], {}, async (run) => {
    assert.match(run.stdout(), /sampling: +in the model's graph: every request's tokens are chosen there, and only they \(with the logprobs asked for\) come back\n/);
  });
  await whileServing([], {}, async (run) => {
    assert.match(run.stdout(), /sampling: +on the host, from each sequence's logits \(--sampling auto\)\n/);
    // And, by default, the tool calls' arguments form, with the flag OpenAI's SDKs need.
    assert.match(run.stdout(), /tools: +.*; function\.arguments as objects, as the spec says \(OpenAI's SDKs .* --tool-call-arguments string\)\n/);
  });
});

test('--kv-layout per-sequence: a stream per sequence id, said at start-up, and a repeated prompt served from cache', async () => {
  // 2 running and 16 cached sequence ids, each a stream of the 256-token context window.
  await whileServing(['--kv-layout', 'per-sequence', '--max-batch-size', '2'], {}, async (run, url) => {
    assert.match(run.stdout(), /engine: +mode=local max_num_sequence=2 max_total_seq_length=4608 .* kv_layout=per-sequence stream_cells=256/);
    assert.match(run.stdout(), /memory: +kv cache: .*per-sequence layout: 18 streams of 256 cells/);
    const body = { model: tinyModelPath, messages: [{ role: 'user', content: 'one two three four five six seven eight nine ten '.repeat(4) }], max_tokens: 4, temperature: 0 };
    const ask = async () => {
      const response = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      assert.is(response.status, 200);
      return (await response.json()) as { choices: { message: { content: string } }[]; usage: { prompt_tokens: number; prompt_tokens_details: { cached_tokens: number } } };
    };
    const first = await ask();
    const again = await ask();
    assert.is(first.usage.prompt_tokens_details.cached_tokens, 0);
    assert.is(again.usage.prompt_tokens_details.cached_tokens, again.usage.prompt_tokens - 1, 'all but the last prompt token, copied into the new stream');
    assert.is(again.choices[0]!.message.content, first.choices[0]!.message.content);
  });
});

test('the chat page is at / unless --no-ui, which makes / a 404', async () => {
  await whileServing([], {}, async (_run, url) => {
    const page = await fetch(`${url}/`);
    assert.is(page.status, 200);
    assert.match(await page.text(), /<title>lmforge chat<\/title>/);
  });
  await whileServing(['--no-ui'], {}, async (run, url) => {
    assert.match(run.stdout(), /chat: +off \(--no-ui\)\n/);
    for (const path of ['/', '/ui/main.js']) {
      const response = await fetch(`${url}${path}`);
      assert.is(response.status, 404, path);
      assert.is(((await response.json()) as { error: { code: string } }).error.code, 'not_found');
    }
  });
});

test('--chat-template NAME replaces the model\'s own template, and start-up says which is used', async () => {
  await whileServing(['--chat-template', 'plain'], {}, async (run, url) => {
    assert.match(run.stdout(), /template: +plain, built in \(--chat-template\)\n/);
    // "Assistant:" ends the prompt, so an answer's first token carries the space that parts it
    // from the label (" The", GPT-2's 383): the content leaves that space out, streamed or not.
    const body = { model: 'tiny-gpt2', messages: [{ role: 'user', content: 'hi' }], max_tokens: 3, temperature: 0, logit_bias: { '383': 100 }, logprobs: true };
    const whole = (await (await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json()) as any;
    assert.is(whole.choices[0].message.content, 'The The The');
    assert.equal(whole.choices[0].logprobs.content.map((entry: { token: string }) => entry.token), [' The', ' The', ' The'], 'the tokens are as the model wrote them');
    const sse = await (await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...body, stream: true }) })).text();
    const streamed = sse.split('\n').filter((line) => line.startsWith('data: {')).map((line) => JSON.parse(line.slice(6)).choices[0]?.delta?.content ?? '').join('');
    assert.is(streamed, 'The The The');
    // Under an output format every byte is the format's: a space it asks for stays.
    const formatted = { ...body, response_format: { type: 'regex', pattern: ' The The The' } };
    const kept = (await (await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(formatted) })).json()) as any;
    assert.is(kept.choices[0].message.content, ' The The The');
  });
});

test('--mode server sizes the KV cache from LMFORGE_MEMORY_LIMIT_BYTES and says how', async () => {
  // 1.5 GiB: the logits of 256 sequence ids (128 running, 128 kept for the prefix cache) take ~100 MiB.
  const limit = 1.5 * 2 ** 30;
  // The expected limits, from the tiny model's own figures and the same 1.5 GiB.
  const { api } = loadLlamaLibrary({ kinds: ['cpu'] });
  const model = await LlamaModel.create(api, { path: tinyModelPath, devices: listDevices(api).filter((d) => d.kind === 'cpu').slice(0, 1) });
  const expected = computeEngineConfig('server', {}, {
    contextLength: model.info.contextLength,
    slidingWindow: 0,
    kvBytesPerToken: kvBytesPerToken(model.info),
    modelBytes: model.info.sizeBytes,
    vocabSize: model.vocabulary.size,
    embeddingLength: model.info.embeddingLength,
    memory: { onDevice: false, totalBytes: limit, availableBytes: limit, source: 'LMFORGE_MEMORY_LIMIT_BYTES' },
    maxParallelSequences: api.llama_max_parallel_sequences(),
  });
  model.dispose();
  // 40% of 1.5 GiB holds fewer cells than 128 sequences × the 2048-token context.
  assert.ok(expected.maxTotalSeqLength >= 256 && expected.maxTotalSeqLength < 128 * 2048);
  const run = start(['serve', tinyModelPath, '--mode', 'server', '--port', String(await freePort()), '--threads', '1'], { LMFORGE_MEMORY_LIMIT_BYTES: String(limit) });
  try {
    await waitForLine(run, /serving: /);
    const out = run.stdout();
    assert.match(out, new RegExp(`engine: +mode=server max_num_sequence=128 max_total_seq_length=${expected.maxTotalSeqLength} `));
    assert.match(out, new RegExp(`memory: +kv cache: ${expected.maxTotalSeqLength} cells \\(\\d+ MiB\\) = 40% of 1\\.5 GiB total \\(LMFORGE_MEMORY_LIMIT_BYTES\\) after 25 MiB weights and \\d+ MiB buffers and runtime\n`));
    assert.match(out, /threads: +1 \(--threads\)/);
  } finally {
    run.child.kill('SIGKILL');
    await run.exit;
  }
});

test('a model that cannot fit stops start-up with one line, in every mode', async () => {
  const env = { LMFORGE_MEMORY_LIMIT_BYTES: String(300 * 2 ** 20) };
  for (const mode of ['server', 'local', 'interactive']) {
    await failsWith(['serve', tinyModelPath, '--mode', mode, '--port', String(await freePort())], /not enough memory for this model: 25 MiB weights \+ \d+ MiB buffers and runtime \+ the smallest KV cache \(256 cells, 64 KiB\) need \d+ MiB, but the budget is \d+ MiB \(.*LMFORGE_MEMORY_LIMIT_BYTES/, env);
  }
  await failsWith(['serve', tinyModelPath, '--port', String(await freePort())], /LMFORGE_MEMORY_LIMIT_BYTES=lots is not valid/, { LMFORGE_MEMORY_LIMIT_BYTES: 'lots' });
});

test.run();
