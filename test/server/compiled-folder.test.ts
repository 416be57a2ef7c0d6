// `serve DIR` on a folder `lmforge compile` wrote: the vocabulary tables and the JSON grammar
// come from the folder (no compile on the first json_object request), and artifacts made by
// another lmforge version or for another vocabulary are rebuilt, never used.
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tinyLlama3Path, tinyModelPath, tinyUntemplatedModelPath } from '../../fixtures/paths.js';
import { BUILTIN_TEMPLATES } from '../../runtime/chat-format/builtin-templates.js';
import { grammarVocabularyFromGGUF } from '../../runtime/engine/worker/grammar-vocabulary.js';
import { checkModel } from '../../runtime/models/check/check-model.js';
import { writeCompiledFolder } from '../../runtime/models/compiled-folder.js';
import { createServer, type LmforgeServer } from '../../runtime/server/create-server.js';

const test = suite('serve a compiled folder');
let dir = '';
test.before.each(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lmforge-compiled-'));
});
test.after.each(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function compiled(gguf: string, name: string): Promise<string> {
  const out = join(dir, name);
  await writeCompiledFolder(gguf, await checkModel(gguf), out);
  return out;
}

/** A server on `model` with an empty grammar cache of its own, so nothing comes from an earlier run. */
async function serve(model: string): Promise<LmforgeServer> {
  return createServer({ model, port: 0, device: 'cpu', threads: 1, overrides: { context_window_size: 256 }, grammarCacheDir: await mkdtemp(join(dir, 'grammars-')) });
}

/** A json_object answer, checked to be one JSON object. */
async function jsonObject(server: LmforgeServer): Promise<void> {
  const response = await fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: server.servedModelName, messages: [{ role: 'user', content: 'JSON please' }], response_format: { type: 'json_object' }, max_tokens: 24, seed: 1 }),
  });
  assert.is(response.status, 200, await response.clone().text());
  const body = (await response.json()) as { choices: { message: { content: string }; finish_reason: string }[] };
  const text = body.choices[0]!.message.content;
  assert.ok(text.trimStart().startsWith('{'), text);
}

test('the first json_object request compiles nothing: its grammar and the vocabulary tables come from the folder', async () => {
  const folder = await compiled(tinyModelPath, 'tiny');
  const server = await serve(folder);
  try {
    assert.match(server.artifactsNote, /^loaded from .*tiny \(vocabulary tables, json_object grammar with its token masks\)$/);
    await jsonObject(server);
    assert.equal(server.engine.grammarCacheCounts, { hits: 1, joined: 0, compiled: 0 });
  } finally {
    await server.close();
  }
  // The same model as a plain GGUF compiles its grammar on that request.
  const raw = await serve(tinyModelPath);
  try {
    assert.match(raw.artifactsNote, /^none/);
    await jsonObject(raw);
    assert.is(raw.engine.grammarCacheCounts.compiled, 1);
  } finally {
    await raw.close();
  }
});

test('artifacts of another lmforge version are rebuilt, with the reason in one line', async () => {
  const folder = await compiled(tinyModelPath, 'old');
  const configPath = join(folder, 'lmforge-config.json');
  const config = JSON.parse(await readFile(configPath, 'utf8'));
  config.artifacts.lmforge_version = '0.0.1';
  await writeFile(configPath, JSON.stringify(config));
  const server = await serve(folder);
  try {
    assert.match(server.artifactsNote, /^rebuilt in .*old: the ones there were made by lmforge 0\.0\.1, this is \d+\.\d+\.\d+$/);
    assert.not.match(server.artifactsNote, /\n/);
    await jsonObject(server);
    assert.is(server.engine.grammarCacheCounts.compiled, 0);
    const rewritten = JSON.parse(await readFile(configPath, 'utf8'));
    assert.is.not(rewritten.artifacts.lmforge_version, '0.0.1');
  } finally {
    await server.close();
  }
});

test('artifacts made for another vocabulary are rebuilt for this one, never used', async () => {
  // A folder compiled for GPT-2's vocabulary whose GGUF is then swapped for Llama 3's.
  const folder = await compiled(tinyModelPath, 'swapped');
  const configPath = join(folder, 'lmforge-config.json');
  const config = JSON.parse(await readFile(configPath, 'utf8'));
  const gpt2Fingerprint = config.artifacts.vocabulary_fingerprint;
  await symlink(tinyLlama3Path, join(folder, 'tiny-llama3.gguf'));
  await writeFile(configPath, JSON.stringify({ ...config, model_file: 'tiny-llama3.gguf' }));
  const server = await serve(folder);
  try {
    assert.match(server.artifactsNote, /^rebuilt in .*swapped: the ones there were made for another GGUF header \(its metadata, the vocabulary among them, changed\)$/);
    await jsonObject(server);
    const rebuilt = JSON.parse(await readFile(configPath, 'utf8')).artifacts;
    assert.is.not(rebuilt.vocabulary_fingerprint, gpt2Fingerprint);
    assert.is(rebuilt.vocabulary_fingerprint, (await grammarVocabularyFromGGUF(tinyLlama3Path)).fingerprint);
  } finally {
    await server.close();
  }
});

test('an artifact changed after compile (bytes flipped, or cut short) is rebuilt, never used', async () => {
  const folder = await compiled(tinyModelPath, 'damaged');
  const config = JSON.parse(await readFile(join(folder, 'lmforge-config.json'), 'utf8'));
  const vocabularyFile = join(folder, config.artifacts.vocabulary);
  const flipped = await readFile(vocabularyFile);
  for (let i = 1000; i < 1064; i++) flipped[i]! ^= 0xff;
  await writeFile(vocabularyFile, flipped);
  const grammarFile = join(folder, config.artifacts.grammars[0].file);
  for (const damage of ['flipped', 'cut'] as const) {
    if (damage === 'cut') await writeFile(grammarFile, (await readFile(grammarFile)).subarray(0, 5000));
    const file = damage === 'flipped' ? 'vocabulary.lmvocab' : 'json-object.lmgrammar';
    const server = await serve(folder);
    try {
      assert.match(server.artifactsNote, new RegExp(`^rebuilt in .*damaged: the ones there were not usable \\(artifacts/${file.replace('.', '\\.')} is not the file lmforge compile wrote: its SHA-256 differs\\)$`));
      await jsonObject(server);
      assert.is(server.engine.grammarCacheCounts.compiled, 0);
    } finally {
      await server.close();
    }
  }
});

test('a template chosen with compile --chat-template is the one serve DIR renders with', async () => {
  const out = join(dir, 'base');
  const check = await checkModel(tinyUntemplatedModelPath, { chatTemplate: { ...BUILTIN_TEMPLATES.chatml, label: 'chatml, built in' } });
  await writeCompiledFolder(tinyUntemplatedModelPath, check, out);
  const server = await serve(out);
  try {
    assert.is(server.http.templateNote, 'chatml, built in from lmforge-config.json (--chat-template)');
  } finally {
    await server.close();
  }
});

test('a recorded template edited into bad Jinja is refused by file and field before the model loads (it was an internal error with a stack)', async () => {
  const out = join(dir, 'edited');
  const check = await checkModel(tinyUntemplatedModelPath, { chatTemplate: { ...BUILTIN_TEMPLATES.chatml, label: 'chatml, built in' } });
  await writeCompiledFolder(tinyUntemplatedModelPath, check, out);
  const configPath = join(out, 'lmforge-config.json');
  const config = JSON.parse(await readFile(configPath, 'utf8'));
  config.chat_template.source = '{% for m in messages %}{{ m.content ';
  await writeFile(configPath, JSON.stringify(config));
  const error = await serve(out).then(async (server) => {
    await server.close();
    return undefined;
  }, (e: Error) => e);
  assert.is(error?.name, 'ModelError', String(error));
  assert.ok(error!.message.includes(`${configPath}: chat_template.source is not a valid Jinja template`), error!.message);
  assert.match(error!.message, /compile the folder again, or give --chat-template/);
  // Other edits are refused by field too: an empty stop string made every request a 400 blaming its client, a wrong type served the model's own template unsaid.
  for (const [edit, message] of [
    [(c: { chat_template: Record<string, unknown> }) => (c.chat_template.stop = ['']), /chat_template\.stop must be a list of non-empty strings/],
    [(c: { chat_template: Record<string, unknown> }) => (c.chat_template.source = 123), /chat_template\.source must be the template text/],
    [(c: { chat_template: unknown }) => (c.chat_template = 'chatml'), /chat_template must be an object/],
  ] as const) {
    const edited = JSON.parse(JSON.stringify(config));
    edited.chat_template.source = BUILTIN_TEMPLATES.chatml.source;
    edit(edited);
    await writeFile(configPath, JSON.stringify(edited));
    const refused = await serve(out).then(async (server) => {
      await server.close();
      return undefined;
    }, (e: Error) => e);
    assert.match(String(refused?.message), message);
  }
});

test.run();
