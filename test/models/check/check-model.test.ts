// `lmforge compile`'s checks on broken models made from the tiny fixture: each fault is one
// failing line that names it and says what to do, never a crash or a hang; and the right
// report on good models (the tiny ones and the default model).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readGGUF, type GGUFValue } from '../../../compiler/gguf/gguf-file.js';
import { defaultModelPath, tinyModelPath, tinyThinkModelPath, tinyUntemplatedModelPath } from '../../../fixtures/paths.js';
import { BUILTIN_TEMPLATES } from '../../../runtime/chat-format/builtin-templates.js';
import { formatCheckLine } from '../../../runtime/models/check/check-line.js';
import { checkModel, type ModelCheck } from '../../../runtime/models/check/check-model.js';
import { patchedTensor, truncated, withMetadata } from './broken-models.js';

const test = suite('model checks');
let dir = '';
test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lmforge-check-'));
});
test.after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The one failing line, asserted to be the only one and to say what to do. */
function onlyFailure(result: ModelCheck, check: string, pattern: RegExp): void {
  const failures = result.lines.filter((line) => line.status === 'fail');
  assert.is(failures.length, 1, `one failing line, got:\n${result.lines.map(formatCheckLine).join('\n')}`);
  assert.is(result.passed, false);
  assert.is(failures[0]!.check, check);
  assert.match(failures[0]!.message, pattern);
  assert.ok((failures[0]!.fix ?? '').length > 10, 'it says what to do');
  assert.not.match(formatCheckLine(failures[0]!), /\n/, 'one line');
}

test('a GGUF cut inside its header fails the gguf check', async () => {
  const path = await truncated(tinyModelPath, join(dir, 'cut-header.gguf'), 200_000);
  onlyFailure(await checkModel(path), 'gguf', /truncated GGUF header/);
});

test('a GGUF cut inside its tensor data: the first tensor that runs past the end is named', async () => {
  const { dataOffset } = await readGGUF(tinyModelPath);
  const path = await truncated(tinyModelPath, join(dir, 'cut-data.gguf'), dataOffset + 1000);
  onlyFailure(await checkModel(path), 'gguf', /tensor \S+ \(F32, \d+ bytes at data offset \d+\) ends past the end of the file/);
});

test('a tensor whose offset points past the end of the file', async () => {
  const path = await patchedTensor(tinyModelPath, join(dir, 'far-tensor.gguf'), { offset: 1 << 30 });
  onlyFailure(await checkModel(path), 'gguf', /ends past the end of the file/);
});

test('a tensor offset that is not aligned, and one that overlaps another', async () => {
  onlyFailure(await checkModel(await patchedTensor(tinyModelPath, join(dir, 'unaligned.gguf'), { offset: 4 })), 'gguf', /not a multiple of the 32-byte alignment/);
  onlyFailure(await checkModel(await patchedTensor(tinyModelPath, join(dir, 'overlap.gguf'), { offset: 0 })), 'gguf', /overlap \(wrong offsets\)/);
});

test('an unknown quantisation type', async () => {
  const path = await patchedTensor(tinyModelPath, join(dir, 'qtype.gguf'), { type: 31 });
  onlyFailure(await checkModel(path), 'gguf', /quantisation type 31, which the pinned llama\.cpp does not know/);
});

test('a chat template that does not parse', async () => {
  const path = await withMetadata(tinyModelPath, join(dir, 'bad-template.gguf'), (m) => m.set('tokenizer.chat_template', { type: 'string', value: '{% for message in %}{{ message.content }}' }));
  onlyFailure(await checkModel(path), 'template', /the chat template \(the model's own\) does not parse/);
});

test('EOS missing from the vocabulary', async () => {
  const path = await withMetadata(tinyModelPath, join(dir, 'no-eos.gguf'), (m) => m.set('tokenizer.ggml.eos_token_id', { type: 'uint32', value: 60000 }));
  onlyFailure(await checkModel(path), 'vocabulary', /tokenizer\.ggml\.eos_token_id is 60000, outside the vocabulary of 50257 tokens/);
});

test('an architecture the pinned llama.cpp does not load', async () => {
  const path = await withMetadata(tinyModelPath, join(dir, 'arch.gguf'), (m) => {
    // Renamed with its keys, as a converter for that architecture would write them.
    for (const [key, value] of [...m]) {
      if (key.startsWith('llama.')) {
        m.delete(key);
        m.set(`frobnicator.${key.slice('llama.'.length)}`, value);
      }
    }
    m.set('general.architecture', { type: 'string', value: 'frobnicator' } as GGUFValue);
  });
  onlyFailure(await checkModel(path), 'architecture', /"frobnicator" is not an architecture the pinned llama\.cpp loads/);
});

test('a turn closed by a token that does not end generation', async () => {
  // <|endoftext|> is GPT-2's EOS; "Ġthe" is an ordinary token: generation would not stop at it.
  const source = BUILTIN_TEMPLATES.chatml.source.replaceAll('<|im_end|>', 'the');
  const path = await withMetadata(tinyModelPath, join(dir, 'bad-close.gguf'), (m) => m.set('tokenizer.chat_template', { type: 'string', value: source }));
  onlyFailure(await checkModel(path), 'template', /ends the assistant's turn with the, which is not an end-of-generation token/);
});

test('a damaged count in the header fails at once, without allocating it', async () => {
  const { readFile, writeFile } = await import('node:fs/promises');
  const bytes = Buffer.from(await readFile(tinyModelPath));
  // The first metadata key's length: after the magic, version, tensor count and key count.
  bytes.writeBigUInt64LE(1n << 40n, 24);
  await writeFile(join(dir, 'bad-count.gguf'), bytes);
  onlyFailure(await checkModel(join(dir, 'bad-count.gguf')), 'gguf', /truncated GGUF header: a string length of 1099511627776 at byte 32 runs past the end of the \d+-byte file/);
});

test('not a GGUF at all, and an empty file', async () => {
  const { writeFile } = await import('node:fs/promises');
  await writeFile(join(dir, 'text.gguf'), 'hello, this is not a model'.repeat(10));
  await writeFile(join(dir, 'empty.gguf'), '');
  onlyFailure(await checkModel(join(dir, 'text.gguf')), 'gguf', /not a GGUF file/);
  onlyFailure(await checkModel(join(dir, 'empty.gguf')), 'gguf', /not a GGUF file/);
});

test('the tiny fixtures pass, with what they resolve', async () => {
  const tiny = await checkModel(tinyModelPath);
  assert.ok(tiny.passed, tiny.lines.map(formatCheckLine).join('\n'));
  assert.is(tiny.tools?.toolFormat, 'hermes');
  assert.is(tiny.tools?.reasoning, false);
  assert.equal(tiny.memory?.contextLength, 2048);
  assert.ok(tiny.stopTokens.includes('<|endoftext|>'));
  const think = await checkModel(tinyThinkModelPath);
  assert.is(think.tools?.reasoning, true);
});

test('a model without a template (a base model) is said to be one, with the --chat-template to use', async () => {
  const base = await checkModel(tinyUntemplatedModelPath);
  assert.ok(base.passed);
  const line = base.lines.find((l) => l.check === 'template' && l.status === 'warn' && /no chat template/.test(l.message));
  assert.ok(line, base.lines.map(formatCheckLine).join('\n'));
  assert.match(line!.message, /a base model\): serve would use plain, built in/);
  assert.match(line!.fix!, /--chat-template plain/);
  // Given a template, it is not a base model any more: no such warning, and the given one is recorded.
  const given = await checkModel(tinyUntemplatedModelPath, { chatTemplate: { ...BUILTIN_TEMPLATES.chatml, label: 'chatml, built in' } });
  assert.not.ok(given.lines.some((l) => /no chat template/.test(l.message)));
  assert.match(given.template!.note, /chatml, built in \(--chat-template\)/);
});

test('the default model (SmolLM2): its own template, <|im_end|> closing turns, 8192 tokens', async () => {
  const result = await checkModel(defaultModelPath());
  const report = result.lines.map(formatCheckLine).join('\n');
  assert.ok(result.passed, report);
  assert.match(report, /ok {3}architecture: llama, supported/);
  assert.match(report, /ok {3}vocabulary: 49152 tokens, tokenizer gpt2; BOS "<\|im_start\|>", EOS "<\|im_end\|>"/);
  assert.match(report, /ok {3}template: a plain answer comes back clean; its turn ends with <\|im_end\|>, an end-of-generation token/);
  assert.match(report, /ok {3}tools: hermes/);
  assert.match(report, /ok {3}reasoning: off/);
  assert.match(report, /ok {3}context: 8192 tokens/);
  assert.match(report, /ok {3}memory: CPU, .*local: 4 seq × 8192 ctx.*interactive: 1 seq × 8192 ctx.*server: 128 seq/);
  assert.not.ok(result.lines.some((l) => /no chat template/.test(l.message)));
});

test.run();
