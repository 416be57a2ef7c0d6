// The serve flags read without starting anything: API keys (flags, then LMFORGE_API_KEY), the
// served model name, values kept exactly as typed, --chat-template, and which bound addresses
// are loopback.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { UsageError } from '../../cli/cli-error.js';
import { rawOptionValues } from '../../cli/raw-option.js';
import { apiKeysOf, checkServeFlags, describeSpeculation, isLoopbackAddress, type ServeFlags } from '../../cli/serve.js';
import { throwsError } from '../helpers/throws.js';
import { ConfigError } from '../../runtime/engine/engine-config.js';
import { BUILTIN_TEMPLATES } from '../../runtime/chat-format/builtin-templates.js';

const defaults: ServeFlags = {
  device: 'auto',
  mode: 'local',
  kvLayout: 'shared',
  sampling: 'auto',
  speculativeMode: 'disable',
  host: '127.0.0.1',
  port: 8000,
  allowedOrigins: '["*"]',
  allowedMethods: '["*"]',
  allowedHeaders: '["*"]',
  maxQueuedRequests: 1024,
  maxRequestBytes: 1 << 20,
  drainSeconds: 30,
  grammarTimeout: 10,
  watchdogTimeout: 300,
  toolCallArguments: 'object',
  reasoning: 'auto',
};

const test = suite('serve flags');

test('option values are read as typed: number-like keys and names keep their text', () => {
  const argv = ['node', 'lmforge', 'serve', 'm', '--api-key', '0123', '--api-key=1e3,a', '--served-model-name', '007', '--api-key', '--port', '1', '--', '--api-key', 'x'];
  assert.equal(rawOptionValues(argv, '--api-key'), ['0123', '1e3,a', '']);
  assert.equal(rawOptionValues(argv, '--served-model-name'), ['007']);
  assert.equal(rawOptionValues(argv, '--host'), []);
  // A negative number after a space is the flag's value, as the parser takes it.
  assert.equal(rawOptionValues(['--drain-seconds', '-1', '--port', '-x'], '--drain-seconds'), ['-1']);
  assert.equal(rawOptionValues(['--drain-seconds', '-1', '--port', '-x'], '--port'), ['']);
});

test('API keys: repeated flags and commas; LMFORGE_API_KEY only when no flag is given', () => {
  assert.equal(apiKeysOf(['k1', 'k2,k3'], { LMFORGE_API_KEY: 'env' }), ['k1', 'k2', 'k3']);
  assert.equal(apiKeysOf([], { LMFORGE_API_KEY: 'e1, e2' }), ['e1', 'e2']);
  assert.equal(apiKeysOf([], { LMFORGE_API_KEY: '' }), [], 'an empty variable is no key');
  assert.equal(apiKeysOf([], {}), []);
  throwsError(() => apiKeysOf([''], {}), UsageError, /--api-key needs a key/);
  throwsError(() => apiKeysOf(['k', ' , '], {}), UsageError, /--api-key needs a key/);
  throwsError(() => apiKeysOf(['a,,b'], {}), UsageError, /--api-key needs a key/);
  // A variable of separators alone ("$K1,$K2" with both unset) served with no key at all.
  throwsError(() => apiKeysOf([], { LMFORGE_API_KEY: ' , ' }), UsageError, /^LMFORGE_API_KEY holds an empty key \(entry 1 of 2, between commas\)/);
  // The keys are secrets: the message does not show them.
  throwsError(() => apiKeysOf([], { LMFORGE_API_KEY: 'sk-secret,' }), UsageError, /^LMFORGE_API_KEY holds an empty key \(entry 2 of 2, between commas\): separate keys with single commas, or leave it empty for none$/);
  assert.equal(apiKeysOf([], { LMFORGE_API_KEY: '   ' }), [], 'a blank variable is no key, as an empty one');
  // A UTF-8 key could never be presented: Node reads a header's bytes as Latin-1.
  throwsError(() => apiKeysOf(['clé'], {}), UsageError, /--api-key: a key must be printable ASCII .*one holds 'é'/);
  assert.equal(checkServeFlags({ ...defaults, apiKey: ['a'] }, { LMFORGE_API_KEY: 'b' }).apiKeys, ['a']);
});

test('--sampling: auto, device or host, checked before anything loads', () => {
  assert.is(checkServeFlags(defaults, {}).sampling, 'auto');
  assert.is(checkServeFlags({ ...defaults, sampling: 'device' }, {}).sampling, 'device');
  throwsError(() => checkServeFlags({ ...defaults, sampling: 'gpu' }, {}), UsageError, /--sampling 'gpu' is not valid: use one of auto, device, host/);
});

test("the older variant's None is automatic", () => {
  // The spec: "Set to None to compute it automatically", as leaving the flag out does.
  for (const none of ['None', 'none']) assert.equal(checkServeFlags({ ...defaults, maxTotalSeqLength: none, maxBatchSize: none, prefillChunkSize: none }, {}).overrides, checkServeFlags(defaults, {}).overrides);
  assert.is(checkServeFlags({ ...defaults, maxTotalSeqLength: '2048' }, {}).overrides.max_total_seq_length, 2048);
  throwsError(() => checkServeFlags({ ...defaults, allowedMethods: '[1]' }, {}), UsageError, /--allowed-methods \[1\] is not valid: it must be a JSON list of strings, for example '\["GET", "POST"\]'/);
});

test('--watchdog-timeout: seconds ≥ 0, 0 for never', () => {
  assert.is(checkServeFlags(defaults, {}).watchdogMs, 300_000);
  assert.is(checkServeFlags({ ...defaults, watchdogTimeout: '0' }, {}).watchdogMs, 0);
  assert.is(checkServeFlags({ ...defaults, watchdogTimeout: '2.5' }, {}).watchdogMs, 2500);
  // As typed (an empty value was 0, never), and within what a timer holds (a longer one fired at once).
  for (const bad of ['-1', 'soon', 'Infinity', '', '0x10', '3000000']) {
    throwsError(() => checkServeFlags({ ...defaults, watchdogTimeout: bad }, {}), UsageError, new RegExp(`--watchdog-timeout ${bad === '' ? "''" : bad} is not valid: it must be a number of seconds from 0 \\(never\\) to 2147483`));
  }
});

test('--grammar-cache-max-bytes: whole bytes ≥ 0, 1 GiB by default, 0 for memory only', () => {
  assert.is(checkServeFlags(defaults, {}).grammarCacheMaxBytes, 2 ** 30);
  assert.is(checkServeFlags({ ...defaults, grammarCacheMaxBytes: '0' }, {}).grammarCacheMaxBytes, 0);
  assert.is(checkServeFlags({ ...defaults, grammarCacheMaxBytes: '5000000000' }, {}).grammarCacheMaxBytes, 5e9);
  // No unit suffixes (no flag takes them), and numbers as typed.
  for (const bad of ['512M', '2G', '-1', '1.5', '0x10', '1e9', '', '99999999999999999999']) {
    throwsError(() => checkServeFlags({ ...defaults, grammarCacheMaxBytes: bad }, {}), UsageError, new RegExp(`^--grammar-cache-max-bytes ${bad === '' ? "''" : bad.replace('.', '\\.')} is not valid: it must be a whole number of bytes ≥ 0 \\(0: compiled formats kept in memory only\\)$`));
  }
});

test('--kv-layout: shared or per-sequence, checked before anything loads', () => {
  assert.is(checkServeFlags(defaults, {}).kvLayout, 'shared');
  assert.is(checkServeFlags({ ...defaults, kvLayout: 'per-sequence' }, {}).kvLayout, 'per-sequence');
  throwsError(() => checkServeFlags({ ...defaults, kvLayout: 'unified' }, {}), ConfigError, /--kv-layout 'unified' is not valid: use one of shared, per-sequence/);
});

test('--served-model-name: one non-empty name', () => {
  assert.is(checkServeFlags({ ...defaults, servedModelName: 'my-model' }, {}).servedModelName, 'my-model');
  assert.is(checkServeFlags(defaults, {}).servedModelName, undefined);
  throwsError(() => checkServeFlags({ ...defaults, servedModelName: ' ' }, {}), UsageError, /needs a name/);
});

test('--chat-template: a built-in by name, else a Jinja file, read and parsed before anything loads', () => {
  const gemma = checkServeFlags({ ...defaults, chatTemplate: 'gemma' }, {}).chatTemplate;
  assert.equal(gemma, { source: BUILTIN_TEMPLATES.gemma.source, stop: [], label: 'gemma, built in' });
  assert.equal(checkServeFlags({ ...defaults, chatTemplate: 'plain' }, {}).chatTemplate?.stop, BUILTIN_TEMPLATES.plain.stop);
  assert.is(checkServeFlags(defaults, {}).chatTemplate, undefined);
  const dir = mkdtempSync(join(tmpdir(), 'lmforge-template-'));
  try {
    const file = join(dir, 'turns.jinja');
    writeFileSync(file, '{% for m in messages %}<{{ m.role }}>{{ m.content }}{% endfor %}');
    assert.equal(checkServeFlags({ ...defaults, chatTemplate: file }, {}).chatTemplate, { source: '{% for m in messages %}<{{ m.role }}>{{ m.content }}{% endfor %}', stop: [], label: file });
    writeFileSync(file, '{% for m in messages %}');
    throwsError(() => checkServeFlags({ ...defaults, chatTemplate: file }, {}), UsageError, /--chat-template .*turns\.jinja is not a valid Jinja template: /);
    writeFileSync(file, ' \n');
    throwsError(() => checkServeFlags({ ...defaults, chatTemplate: file }, {}), UsageError, /is an empty file/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  throwsError(() => checkServeFlags({ ...defaults, chatTemplate: 'gemma2' }, {}), UsageError, /--chat-template gemma2 is neither a built-in template \(chatml, gemma, llama3, plain\) nor a readable Jinja file: no such file/);
});

test('speculative decoding: the flags checked together, and the start-up line says what drafts and how many', () => {
  const ngram = checkServeFlags({ ...defaults, speculativeMode: 'ngram', overrides: 'spec_draft_length=3' }, {});
  assert.is(ngram.speculativeMode, 'ngram');
  assert.is(describeSpeculation(ngram.speculativeMode, ngram.draftModel, ngram.overrides.spec_draft_length ?? 0), 'ngram (prompt lookup), forced grammar text too; 3 draft tokens a step');
  const drafted = checkServeFlags({ ...defaults, speculativeMode: 'small_draft', additionalModels: 'draft.gguf' }, {});
  assert.is(drafted.draftModel, 'draft.gguf');
  assert.match(describeSpeculation(drafted.speculativeMode, drafted.draftModel, 0), /^small_draft with draft\.gguf, forced grammar text too; draft length chosen per sequence/);
  assert.is(describeSpeculation('disable', undefined, 0), 'off');
  const medusa = checkServeFlags({ ...defaults, speculativeMode: 'medusa', additionalModels: 'heads.gguf' }, {});
  assert.is(medusa.draftModel, 'heads.gguf');
  assert.match(describeSpeculation(medusa.speculativeMode, medusa.draftModel, 2), /^medusa with heads heads\.gguf, forced grammar text too; 2 draft tokens a step$/);
  throwsError(() => checkServeFlags({ ...defaults, speculativeMode: 'medusa' }, {}), UsageError, /--speculative-mode medusa needs Medusa heads: give them with --additional-models HEADS\.gguf/);
  throwsError(() => checkServeFlags({ ...defaults, speculativeMode: 'ngram', additionalModels: 'heads.gguf' }, {}), UsageError, /--speculative-mode ngram drafts from the text so far and takes no additional model: leave out --additional-models/);
  const eagle = checkServeFlags({ ...defaults, speculativeMode: 'eagle', additionalModels: 'eagle3.gguf' }, {});
  assert.is(eagle.draftModel, 'eagle3.gguf');
  assert.match(describeSpeculation(eagle.speculativeMode, eagle.draftModel, 0), /^eagle with EAGLE-3 draft eagle3\.gguf, forced grammar text too; draft length chosen per sequence/);
  throwsError(() => checkServeFlags({ ...defaults, speculativeMode: 'eagle' }, {}), UsageError, /--speculative-mode eagle needs an EAGLE-3 draft: give it with --additional-models EAGLE3\.gguf/);
});

test('loopback addresses are those of 127.0.0.0/8 and ::1', () => {
  for (const address of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1']) assert.ok(isLoopbackAddress(address), address);
  for (const address of ['0.0.0.0', '::', '192.168.1.2', '10.0.0.1', '::ffff:10.0.0.1', '1270::1']) assert.not.ok(isLoopbackAddress(address), address);
});

test.run();
