// Device enumeration and the choice `--device` makes among what ggml found.
import type { DeviceHandle, LlamaApi } from './llama-api.js';
import { AUTO_ORDER, DeviceError, kindOfBackend, type DeviceKind, type DeviceSpec } from './device-spec.js';

export interface Device {
  handle: DeviceHandle;
  kind: DeviceKind;
  /** Index among the devices of the same kind: the `id` of `--device kind:id`. */
  id: number;
  name: string;
  description: string;
  freeBytes: number;
  totalBytes: number;
}

export function listDevices(api: LlamaApi): Device[] {
  const devices: Device[] = [];
  const perKind = new Map<DeviceKind, number>();
  const count = api.ggml_backend_dev_count();
  for (let i = 0; i < count; i++) {
    const handle = api.ggml_backend_dev_get(i);
    const kind = kindOfBackend(api.ggml_backend_reg_name(api.ggml_backend_dev_backend_reg(handle)));
    if (!kind) continue; // BLAS, RPC and other helper backends are not places to put a model
    const id = perKind.get(kind) ?? 0;
    perKind.set(kind, id + 1);
    const free: [number] = [0];
    const total: [number] = [0];
    api.ggml_backend_dev_memory(handle, free, total);
    devices.push({
      handle,
      kind,
      id,
      name: api.ggml_backend_dev_name(handle),
      description: api.ggml_backend_dev_description(handle),
      freeBytes: Number(free[0]),
      totalBytes: Number(total[0]),
    });
  }
  return devices;
}

export function describeDevice(device: Device): string {
  return `${device.kind}:${device.id} (${device.description})`;
}

/**
 * Picks the devices a model goes on: `shards` devices of the asked kind starting at its id
 * (more than one for tensor parallelism). `auto` takes the first GPU kind present, else the CPU.
 */
export function selectDevices(available: Device[], spec: DeviceSpec, shards = 1): Device[] {
  const present = available.map(describeDevice).join(', ') || 'none';
  const kind = spec.kind === 'auto' ? AUTO_ORDER.find((k) => available.some((d) => d.kind === k)) : spec.kind;
  if (!kind) throw new DeviceError(`--device ${spec.text}: no usable device found (present: ${present})`);
  const ofKind = available.filter((d) => d.kind === kind);
  if (ofKind.length === 0) {
    throw new DeviceError(`--device ${spec.text}: no ${kind} device is present (present: ${present}); ${remedy(kind)}`);
  }
  if (kind === 'cpu' && shards > 1) {
    throw new DeviceError(`tensor_parallel_shards=${shards} needs ${shards} GPUs; the CPU is one device`);
  }
  const chosen = ofKind.slice(spec.id, spec.id + shards);
  if (chosen.length < shards || chosen.length === 0) {
    const want = shards > 1 ? `${shards} ${kind} devices from id ${spec.id} (tensor_parallel_shards=${shards})` : `${kind}:${spec.id}`;
    throw new DeviceError(`--device ${spec.text}: asked for ${want}, but only ${ofKind.map(describeDevice).join(', ')} present`);
  }
  return chosen;
}

function remedy(kind: DeviceKind): string {
  switch (kind) {
    case 'rocm':
      return 'build llama.cpp with -DGGML_HIP=ON and pass --model-lib PATH/TO/libllama.so';
    case 'opencl':
      return 'build llama.cpp with -DGGML_OPENCL=ON and pass --model-lib PATH/TO/libllama.so';
    case 'cpu':
      return 'the loaded --model-lib has no CPU backend beside it';
    default:
      return `check the ${kind} driver, or use --device cpu`;
  }
}

/** Which libraries to try for a spec: the asked kind, or every kind in `auto` order. */
export function libraryKindsFor(spec: DeviceSpec): DeviceKind[] {
  return spec.kind === 'auto' ? [...AUTO_ORDER] : [spec.kind];
}
