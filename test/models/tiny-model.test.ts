import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Template } from '@huggingface/jinja';
import { ggufModelInfo, ggufValue, readGGUF } from '../../compiler/gguf/gguf-file.js';
import { makeTinyModel, TINY_SHAPE } from '../../fixtures/tiny-model.js';
import { vocabularyPath } from '../../fixtures/vocabularies.js';
import { chatmlTemplate } from '../../runtime/chat-format/chatml-template.js';

let dir = '';
test.before(async () => { dir = await mkdtemp(join(tmpdir(), 'lmforge-tiny-')); });
test.after(async () => { await rm(dir, { recursive: true, force: true }); });

test('a tiny gpt-2 model has the recipe shape, the vocabulary and a chat template', async () => {
  const out = await makeTinyModel({ vocab: 'gpt-2', seed: 1, out: join(dir, 'a.gguf') });
  const file = await readGGUF(out);
  const vocab = await readGGUF(await vocabularyPath('gpt-2'));
  const info = ggufModelInfo(file);
  assert.is(info.architecture, 'llama');
  assert.is(info.contextLength, 2048);
  assert.is(info.embeddingLength, TINY_SHAPE.embedding);
  assert.is(info.blockCount, 2);
  assert.is(info.headCount, 4);
  assert.is(info.headCountKv, 2);
  assert.is(info.vocabSize, 50257);
  assert.is(ggufValue(file, 'general.file_type'), 0);
  assert.is(ggufValue(file, 'llama.rope.dimension_count'), 16);
  for (const [key, value] of vocab.metadata) {
    if (key.startsWith('tokenizer.')) assert.equal(file.metadata.get(key), value, key);
  }
  assert.is(info.chatTemplate, chatmlTemplate);

  const names = file.tensors.map((t) => t.name);
  assert.is(names.length, 3 + 2 * 9);
  for (const n of ['token_embd.weight', 'output_norm.weight', 'output.weight', 'blk.1.ffn_down.weight']) assert.ok(names.includes(n), n);
  const dims = Object.fromEntries(file.tensors.map((t) => [t.name, t.dims]));
  assert.equal(dims['token_embd.weight'], [64, 50257]);
  assert.equal(dims['blk.0.attn_k.weight'], [64, 32]);
  assert.equal(dims['blk.0.ffn_down.weight'], [128, 64]);
  assert.ok(file.tensors.every((t) => t.type === 0));

  // Norm weights are ones, matrices are small non-constant values.
  const bytes = await readFile(out);
  const tensor = (name: string): Float32Array => {
    const t = file.tensors.find((x) => x.name === name)!;
    const start = file.dataOffset + t.offset;
    const n = t.dims.reduce((a, b) => a * b, 1);
    return new Float32Array(bytes.buffer.slice(bytes.byteOffset + start, bytes.byteOffset + start + 4 * n));
  };
  assert.ok(tensor('blk.0.attn_norm.weight').every((v) => v === 1));
  const q = tensor('blk.0.attn_q.weight');
  const mean = q.reduce((a, b) => a + b, 0) / q.length;
  const std = Math.sqrt(q.reduce((a, b) => a + (b - mean) ** 2, 0) / q.length);
  assert.ok(Math.abs(mean) < 0.01 && std > 0.02 && std < 0.1, `mean ${mean} std ${std}`);
});

test('weights are a pure function of the seed', async () => {
  const a = await readFile(await makeTinyModel({ vocab: 'gpt-2', seed: 7, out: join(dir, 's7a.gguf') }));
  const b = await readFile(await makeTinyModel({ vocab: 'gpt-2', seed: 7, out: join(dir, 's7b.gguf') }));
  const c = await readFile(await makeTinyModel({ vocab: 'gpt-2', seed: 8, out: join(dir, 's8.gguf') }));
  assert.ok(a.equals(b));
  assert.is(a.length, c.length);
  assert.not.ok(a.equals(c));
});

test('a vocabulary with its own template keeps it; an explicit one wins', async () => {
  const own = await readGGUF(await vocabularyPath('qwen2'));
  const kept = await readGGUF(await makeTinyModel({ vocab: 'qwen2', out: join(dir, 'q.gguf'), contextLength: 512 }));
  assert.is(ggufValue(kept, 'tokenizer.chat_template'), ggufValue(own, 'tokenizer.chat_template'));
  assert.is(ggufModelInfo(kept).contextLength, 512);
  const custom = await readGGUF(await makeTinyModel({ vocab: 'gpt-2', out: join(dir, 'c.gguf'), chatTemplate: '{{ x }}' }));
  assert.is(ggufValue(custom, 'tokenizer.chat_template'), '{{ x }}');
});

test('the ChatML template renders roles, tool calls and the generation prompt', () => {
  const t = new Template(chatmlTemplate);
  const plain = t.render({ messages: [{ role: 'system', content: 'S' }, { role: 'user', content: 'U' }], add_generation_prompt: true });
  assert.is(plain, '<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nU<|im_end|>\n<|im_start|>assistant\n');
  const tools = t.render({
    messages: [
      { role: 'user', content: 'weather?' },
      { role: 'assistant', content: null, tool_calls: [{ type: 'function', function: { name: 'get', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', content: 'sunny' },
    ],
    tools: [{ type: 'function', function: { name: 'get', parameters: { type: 'object' } } }],
    add_generation_prompt: false,
  });
  assert.match(tools, /<tools>\n\{"type": "function"/);
  assert.match(tools, /<\|im_start\|>assistant\n<tool_call>\n\{"name": "get", "arguments": \{"city":"Paris"\}\}\n<\/tool_call><\|im_end\|>\n/);
  assert.match(tools, /<\|im_start\|>tool\nsunny<\|im_end\|>\n$/);
});

test.run();
