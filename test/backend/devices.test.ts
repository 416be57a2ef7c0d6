// --device: parsing, selection among the devices ggml found, and the start-up failures.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { throwsError } from '../helpers/throws.js';
import { DeviceError, parseDeviceSpec } from '../../runtime/backend/device-spec.js';
import { selectDevices, type Device } from '../../runtime/backend/devices.js';
import { Engine, EngineStartError } from '../../runtime/engine/client/engine.js';
import { tinyModelPath } from '../../fixtures/paths.js';

const test = suite('devices');

const fake = (kind: Device['kind'], id: number): Device => ({
  handle: 0n as never,
  kind,
  id,
  name: `${kind}${id}`,
  description: `fake ${kind} ${id}`,
  freeBytes: 1,
  totalBytes: 1,
});

const throwsDevice = (run: () => unknown, pattern: RegExp) => throwsError(run, DeviceError, pattern);

test('parses auto and NAME[:ID]', () => {
  assert.equal(parseDeviceSpec('auto'), { kind: 'auto', id: 0, text: 'auto' });
  assert.equal(parseDeviceSpec('cuda:1'), { kind: 'cuda', id: 1, text: 'cuda:1' });
  assert.equal(parseDeviceSpec('cpu'), { kind: 'cpu', id: 0, text: 'cpu' });
  throwsDevice(() => parseDeviceSpec('tpu'), /--device 'tpu' is not valid: use auto or NAME\[:ID\] with NAME one of cuda, metal, vulkan, rocm, opencl, cpu/);
  throwsDevice(() => parseDeviceSpec('cuda:x'), /not valid/);
  throwsDevice(() => parseDeviceSpec('auto:1'), /auto takes no device id/);
});

test('auto prefers GPUs in the spec order, then the CPU', () => {
  const all = [fake('cpu', 0), fake('vulkan', 0), fake('cuda', 0), fake('cuda', 1)];
  assert.is(selectDevices(all, parseDeviceSpec('auto'))[0]!.kind, 'cuda');
  assert.is(selectDevices([fake('cpu', 0), fake('vulkan', 0)], parseDeviceSpec('auto'))[0]!.kind, 'vulkan');
  assert.is(selectDevices([fake('cpu', 0)], parseDeviceSpec('auto'))[0]!.kind, 'cpu');
  assert.equal(selectDevices(all, parseDeviceSpec('cuda:0'), 2).map((d) => d.id), [0, 1]);
});

test('a missing device says what was asked, what exists and what to do', () => {
  const all = [fake('cpu', 0), fake('cuda', 0)];
  throwsDevice(() => selectDevices(all, parseDeviceSpec('cuda:1')), /asked for cuda:1, but only cuda:0 \(fake cuda 0\) present/);
  throwsDevice(() => selectDevices(all, parseDeviceSpec('rocm')), /no rocm device is present \(present: cpu:0.*cuda:0.*\); build llama\.cpp with -DGGML_HIP=ON and pass --model-lib/);
  throwsDevice(() => selectDevices(all, parseDeviceSpec('cuda'), 2), /asked for 2 cuda devices from id 0 \(tensor_parallel_shards=2\)/);
  throwsDevice(() => selectDevices(all, parseDeviceSpec('cpu'), 2), /needs 2 GPUs/);
});

async function startFails(device: string, pattern: RegExp, modelLib?: string): Promise<void> {
  try {
    const engine = await Engine.create({ modelPath: tinyModelPath, device, modelLib, mode: 'local', overrides: {} });
    await engine.dispose();
  } catch (error) {
    assert.instance(error, EngineStartError);
    assert.ok((error as EngineStartError).userFacing, 'a device problem is the user\'s to fix, not a bug');
    assert.match((error as Error).message, pattern);
    return;
  }
  assert.unreachable(`--device ${device} should not start`);
}

// (A GPU kind whose build is installed loads another libllama: that case runs in a child process, in test/cli.)
test('start-up with a kind that has no library installed, or a device that is not there, fails clearly', async () => {
  await startFails('opencl', /no llama\.cpp build is installed for opencl.*no prebuilt package.*--model-lib/);
  await startFails('cpu:3', /asked for cpu:3, but only cpu:0 .* present/);
  await startFails('cpu', /--model-lib '\/nonexistent\/libllama\.so' does not exist/, '/nonexistent/libllama.so');
});

test.run();
