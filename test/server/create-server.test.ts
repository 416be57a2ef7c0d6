// createServer, the library's `lmforge serve`: it serves the model under its file's stem, and
// close() (or a model that fails to load) leaves no port open behind it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tinyModelPath } from '../../fixtures/paths.js';
import { createServer } from '../../runtime/server/create-server.js';
import { freePort } from '../helpers/cli-process.js';

const test = suite('createServer');
const dir = mkdtempSync(join(tmpdir(), 'lmforge-create-server-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

/** Whether nothing listens on the port: it can be bound again. */
async function portIsFree(port: number): Promise<boolean> {
  const probe = createNetServer();
  return new Promise((resolve) => {
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

test('serves the model under its stem, announces the port before loading, and close() frees it', async () => {
  const port = await freePort();
  const heard: string[] = [];
  const server = await createServer({ model: tinyModelPath, port, device: 'cpu', threads: 1, overrides: { context_window_size: 256 }, grammarCacheDir: dir, onListening: ({ url }) => heard.push(url) });
  try {
    assert.equal(heard, [`http://127.0.0.1:${port}`]);
    assert.is(server.url, heard[0]);
    assert.is(server.servedModelName, 'tiny-gpt2');
    assert.is(server.modelPath, tinyModelPath);
    const models = (await (await fetch(`${server.url}/v1/models`)).json()) as { data: { id: string }[] };
    assert.equal(models.data.map((model) => model.id), ['tiny-gpt2']);
    assert.ok(server.engine.alive);
  } finally {
    await server.close();
  }
  assert.not.ok(server.engine.alive);
  assert.ok(await portIsFree(port));
});

test('a file that is no model: createServer rejects and closes the port it opened', async () => {
  const notAModel = join(dir, 'not-a-model.gguf');
  writeFileSync(notAModel, 'not a GGUF file');
  const port = await freePort();
  let opened = false;
  let failure: unknown;
  await createServer({ model: notAModel, port, device: 'cpu', threads: 1, grammarCacheDir: dir, onListening: () => (opened = true) }).catch((error) => (failure = error));
  assert.ok(opened, 'it got as far as listening');
  assert.instance(failure, Error);
  assert.ok(await portIsFree(port));
});

test('a chat template that parses but cannot render one user message is refused at start, leaving nothing running (every chat request was a 400 blaming the messages)', async () => {
  const port = await freePort();
  let failure: unknown;
  const chatTemplate = { source: "{{ messages[0].content | no_such_filter }}", stop: [], label: 'broken.jinja' };
  await createServer({ model: tinyModelPath, port, device: 'cpu', threads: 1, overrides: { context_window_size: 256 }, grammarCacheDir: dir, chatTemplate }).catch((error) => (failure = error));
  assert.instance(failure, Error);
  assert.match((failure as Error).message, /^the chat template broken\.jinja cannot render a conversation of one user message: .*no_such_filter/);
  assert.ok(await portIsFree(port));
});

test('spaces around a key are no part of it, as serve reads keys (the key was kept with them, and no client could present it)', async () => {
  const server = await createServer({ model: tinyModelPath, port: 0, device: 'cpu', threads: 1, overrides: { context_window_size: 256 }, grammarCacheDir: dir, apiKeys: [' k '] });
  try {
    const response = await fetch(`${server.url}/v1/models`, { headers: { authorization: 'Bearer k' } });
    assert.is(response.status, 200);
  } finally {
    await server.close();
  }
});

test('a built-in chat template by name, as --chat-template takes it', async () => {
  const server = await createServer({ model: tinyModelPath, port: 0, device: 'cpu', threads: 1, overrides: { context_window_size: 256 }, grammarCacheDir: dir, chatTemplate: 'plain' });
  try {
    assert.match(server.http.templateNote, /^plain, built in \(--chat-template\)/);
  } finally {
    await server.close();
  }
});

test('options a JavaScript caller got wrong are refused by name before anything starts', async () => {
  const refusal = async (options: Record<string, unknown>): Promise<string> => {
    let opened = false;
    const failure = await createServer({ device: 'cpu', threads: 1, grammarCacheDir: dir, ...options, onListening: () => (opened = true) } as never).then(
      () => assert.unreachable('should be refused'),
      (error: Error & { status?: number; type?: string }) => {
        // The caller's mistake, as a GrammarError is: not a server error.
        if (/^createServer: (options\.\w+ must|unknown option)/.test(error.message)) assert.equal([error.status, error.type], [400, 'invalid_request_error'], error.message);
        return error.message;
      },
    );
    assert.not.ok(opened, 'nothing listened');
    return failure as string;
  };
  // A port of 'abc' listened on a Unix socket named abc; a mode of 'bogus' started as 'bogus'.
  assert.match(await refusal({ model: tinyModelPath, port: 'abc' }), /^createServer: options\.port must be an integer from 0 to 65535, got "abc"$/);
  assert.match(await refusal({ model: tinyModelPath, mode: 'bogus' }), /^createServer: options\.mode must be one of local, interactive, server, got "bogus"$/);
  assert.match(await refusal({ model: 42 }), /^createServer: options\.model must be a GGUF file, a model folder or a known name/);
  // A bad tool format failed after the model loaded, leaving the port open and the engine running.
  assert.match(await refusal({ model: tinyModelPath, toolFormat: 'bogus' }), /^createServer: options\.toolFormat must be one of .*hermes.*, got "bogus"$/);
  // A typo of apiKeys served with no key at all.
  assert.match(await refusal({ model: tinyModelPath, apiKey: 'secret' }), /^createServer: unknown option 'apiKey'; the options are .*apiKeys/);
  // Keys are secrets: a refusal names the entry, never its text.
  assert.match(await refusal({ model: tinyModelPath, apiKeys: 'secret' }), /^createServer: options\.apiKeys must be a list of keys \(strings of printable ASCII: a client sends a key in an HTTP header\), got one string$/);
  // A UTF-8 key could never be presented: Node reads a header's bytes as Latin-1.
  assert.match(await refusal({ model: tinyModelPath, apiKeys: ['sk-ok', 'clé'] }), /^createServer: options\.apiKeys must be a list of keys \(strings of printable ASCII.*; entry 1 is not printable ASCII$/);
  assert.match(await refusal({ model: tinyModelPath, apiKeys: ['sk-ok', ' '] }), /entry 1 is empty$/);
  assert.match(await refusal({ model: tinyModelPath, overrides: { max_num_sequence: -3 } }), /^createServer: options\.overrides\.max_num_sequence=-3 is not valid: it must be an integer ≥ 1$/);
  assert.match(await refusal({ model: tinyModelPath, overrides: { max_num_seqs: 3 } }), /unknown key 'max_num_seqs'/);
  assert.match(await refusal({ model: tinyModelPath, chatTemplate: 'no-such-template' }), /^createServer: options\.chatTemplate must be a built-in template's name \(chatml, gemma, llama3, plain\)/);
  // A bad CORS field took the whole process down at the first request with an Origin header.
  assert.match(await refusal({ model: tinyModelPath, cors: { allowedOrigins: null } }), /^createServer: options\.cors\.allowedOrigins must be a list of origins/);
  assert.match(await refusal({ model: tinyModelPath, cors: { allowedOrigins: ['https://App.example:443'] } }), /^createServer: options\.cors\.allowedOrigins: "https:\/\/App\.example:443" is not an origin as browsers send it; write "https:\/\/app\.example"$/);
  assert.match(await refusal({ model: tinyModelPath, cors: { allowedMethods: ['GET', 'P OST'] } }), /^createServer: options\.cors\.allowedMethods: "P OST" is not an HTTP method$/);
  assert.match(await refusal({ model: tinyModelPath, cors: { allowedMethods: 'POST' } }), /^createServer: options\.cors\.allowedMethods must be a list of methods/);
  assert.match(await refusal({ model: tinyModelPath, cors: { foo: 1 } }), /^createServer: unknown option 'cors\.foo'/);
  // A template whose stop strings could never be sent, or whose Jinja does not parse, is refused before the model loads.
  assert.match(await refusal({ model: tinyModelPath, chatTemplate: { source: '{{ x }}', stop: [''], label: 'l' } }), /^createServer: options\.chatTemplate must be/);
  assert.match(await refusal({ model: tinyModelPath, chatTemplate: { source: '{% if %}', stop: [], label: 'bad' } }), /^createServer: options\.chatTemplate must be valid Jinja/);
  // Node's timers hold 2³¹ − 1 ms; a longer one fired at once.
  assert.match(await refusal({ model: tinyModelPath, grammarTimeoutMs: 3e9 }), /^createServer: options\.grammarTimeoutMs must be a number of milliseconds > 0 and at most 2147483647/);
  // Names every object has are not engine fields; a Map's entries are not its keys.
  assert.match(await refusal({ model: tinyModelPath, overrides: { toString: 1 } }), /unknown key 'toString'/);
  assert.match(await refusal({ model: tinyModelPath, overrides: new Map([['max_num_sequence', 2]]) }), /must be a plain object of engine fields/);
  assert.match(await refusal({ model: tinyModelPath, threads: 5n }), /^createServer: options\.threads must be a whole number from 1 to 512, got 5$/);
  assert.match(await refusal({ model: tinyModelPath, threads: 1_000_000 }), /^createServer: options\.threads must be a whole number from 1 to 512, got 1000000$/);
  // The disk cache's bound: a whole number of bytes, 0 for none on disk.
  assert.match(await refusal({ model: tinyModelPath, grammarCacheMaxBytes: '1G' }), /^createServer: options\.grammarCacheMaxBytes must be a whole number of bytes ≥ 0 \(0: compiled formats kept in memory only\), got "1G"$/);
  assert.match(await refusal({ model: tinyModelPath, grammarCacheMaxBytes: -1 }), /^createServer: options\.grammarCacheMaxBytes must be a whole number of bytes ≥ 0/);
  assert.match(await refusal({ model: tinyModelPath, grammarCacheMaxBytes: 1.5 }), /^createServer: options\.grammarCacheMaxBytes must be a whole number of bytes ≥ 0/);
  // JSON would quote both as null.
  assert.match(await refusal({ model: tinyModelPath, grammarCacheMaxBytes: Infinity }), /, got Infinity$/);
  assert.match(await refusal({ model: tinyModelPath, grammarCacheMaxBytes: NaN }), /, got NaN$/);
  for (const [option, value] of [['reasoning', 'maybe'], ['kvLayout', 'paged'], ['sampling', 'gpu'], ['threads', 0], ['watchdogMs', -1], ['device', 7], ['ui', 'no']] as const) {
    assert.match(await refusal({ model: tinyModelPath, [option]: value }), new RegExp(`^createServer: options\\.${option} must be `), option);
  }
  const { Engine } = await import('../../runtime/engine/client/engine.js');
  await Engine.create({} as never).then(
    () => assert.unreachable('Engine.create({}) should be refused'),
    (error: Error) => assert.match(error.message, /^Engine\.create: options\.modelPath must be the path of a GGUF file, got undefined$/),
  );
  await Engine.create({ modelPath: dir, device: 'cpu', mode: 'local', overrides: {} }).then(
    () => assert.unreachable('a folder is no model'),
    (error: Error) => assert.match(error.message, /is not a file \(a GGUF file is needed\)$/),
  );
});

test('Engine.create: a wrong option is refused by name, an unknown one too; device, mode and overrides have defaults; a request after dispose is no server fault', async () => {
  const { Engine, EngineRequestError } = await import('../../runtime/engine/client/engine.js');
  const refused = (options: Record<string, unknown>): Promise<string> =>
    Engine.create({ modelPath: tinyModelPath, threads: 1, ...options } as never).then(
      (): string => assert.unreachable(`${JSON.stringify(options)} should be refused`) as never,
      (error: Error & { userFacing?: boolean }) => {
        assert.ok(error.userFacing, error.message);
        return error.message;
      },
    );
  // Each was taken before: 'fiber' started a process, 'modelpath' was ignored, a device of 5 crashed inside the engine.
  assert.match(await refused({ isolation: 'fiber' }), /^Engine\.create: options\.isolation must be one of process, thread, got "fiber"$/);
  assert.match(await refused({ modelpath: 'x' }), /^Engine\.create: unknown option 'modelpath'; the options are modelPath, isolation, device, /);
  assert.match(await refused({ device: 5 }), /^Engine\.create: options\.device must be a device such as 'auto', 'cpu' or 'cuda:0', got 5$/);
  // Only modelPath given (a missing device crashed in the engine's process: "Cannot read properties of undefined").
  const engine = await Engine.create({ modelPath: tinyModelPath, threads: 1 });
  try {
    assert.is(engine.info.config.mode, 'local');
    let text = '';
    for await (const event of engine.generate({ prompt: 'Hello', maxTokens: 3 })) if (event.type === 'delta') text += event.text;
    assert.ok(text.length > 0);
  } finally {
    await engine.dispose();
  }
  const after = await (async () => {
    for await (const _ of engine.generate({ prompt: 'Hello', maxTokens: 1 })) return 'generated';
    return 'nothing';
  })().catch((error: unknown) => error);
  assert.instance(after, EngineRequestError);
  assert.equal([(after as InstanceType<typeof EngineRequestError>).status, (after as InstanceType<typeof EngineRequestError>).code], [503, 'server_shutting_down']);
});

test.run();
