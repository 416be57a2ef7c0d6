// What --sampling resolves to: `auto` is the host path on every device (the device path measured
// slower on a CPU and on an H100: README, "Where tokens are chosen"), an explicit choice is kept,
// and the device path refuses speculation, which it cannot verify.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { resolveSampling } from '../../runtime/engine/sampling-setting.js';

test('auto is the host path on a CPU, on a GPU, and with speculation', () => {
  for (const gpu of [false, true]) for (const speculative of [false, true]) assert.is(resolveSampling('auto', { gpu, speculative }), 'host');
});

test('an explicit choice is kept', () => {
  assert.is(resolveSampling('device', { gpu: true, speculative: false }), 'device');
  assert.is(resolveSampling('device', { gpu: false, speculative: false }), 'device');
  assert.is(resolveSampling('host', { gpu: true, speculative: true }), 'host');
});

test('device with speculation is refused, naming the way out', () => {
  assert.throws(() => resolveSampling('device', { gpu: true, speculative: true }), /--sampling host or auto/);
});

test.run();
