// The default served model name (the file's stem or the folder's name, never a path) and the
// aliases requests may still send.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { defaultServedModelName, modelAliases } from '../../runtime/models/served-model-name.js';

const test = suite('served model name');

test('a model given by name is served as the name typed: a known model, or a name found along the model path', () => {
  assert.is(defaultServedModelName({ id: 'smollm2', ggufPath: '/h/models/SmolLM2-135M-Instruct-Q4_1/SmolLM2-135M-Instruct.Q4_1.gguf', byName: true }), 'smollm2');
  assert.is(defaultServedModelName({ id: 'tiny', ggufPath: '/w/models/tiny.gguf', byName: true }), 'tiny');
  assert.is(defaultServedModelName({ id: 'Llama-3-q4f16', folder: '/w/dist/Llama-3-q4f16', ggufPath: '/w/dist/Llama-3-q4f16/model.gguf', byName: true }), 'Llama-3-q4f16');
});

test('a GGUF file path is served as its stem; a split GGUF without its part number', () => {
  assert.is(defaultServedModelName({ id: '/m/tiny-gpt2.gguf', ggufPath: '/m/tiny-gpt2.gguf' }), 'tiny-gpt2');
  assert.is(defaultServedModelName({ id: 'm/SmolLM2-135M-Instruct.Q4_1.gguf', ggufPath: '/h/m/SmolLM2-135M-Instruct.Q4_1.gguf' }), 'SmolLM2-135M-Instruct.Q4_1');
  assert.is(defaultServedModelName({ id: 'x', ggufPath: '/m/Big-Model-Q4_K_M-00001-of-00003.gguf' }), 'Big-Model-Q4_K_M');
  assert.is(defaultServedModelName({ id: 'x', ggufPath: '/m/UPPER.GGUF' }), 'UPPER');
});

test('a model folder path is served as the folder name, whatever its GGUF is called', () => {
  assert.is(defaultServedModelName({ id: 'dist/Llama-3-q4f16/', folder: '/w/dist/Llama-3-q4f16/', ggufPath: '/w/dist/Llama-3-q4f16/model.gguf' }), 'Llama-3-q4f16');
});

test('aliases: the MODEL argument as given and the resolved paths, without the served name or repeats', () => {
  assert.equal(modelAliases({ id: '/m/a.gguf', ggufPath: '/m/a.gguf' }, 'a'), ['/m/a.gguf']);
  assert.equal(modelAliases({ id: 'dist/f', folder: '/w/dist/f', ggufPath: '/w/dist/f/x.gguf' }, 'f'), ['dist/f', '/w/dist/f', '/w/dist/f/x.gguf']);
  assert.equal(modelAliases({ id: 'mine', ggufPath: '/m/a.gguf' }, 'mine'), ['/m/a.gguf'], '--served-model-name equal to the argument');
});

test('aliases of a model served by the name typed: its stem too (what it was served as before), unless --served-model-name renames it', () => {
  assert.equal(modelAliases({ id: 'smollm2', ggufPath: '/h/m/SmolLM2.Q4_1.gguf', byName: true }, 'smollm2'), ['SmolLM2.Q4_1', '/h/m/SmolLM2.Q4_1.gguf']);
  assert.equal(modelAliases({ id: 'smollm2', ggufPath: '/h/m/SmolLM2.Q4_1.gguf', byName: true }, 'my-model'), ['smollm2', '/h/m/SmolLM2.Q4_1.gguf'], '--served-model-name');
});

test.run();
