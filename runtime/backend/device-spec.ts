// Parsing of `--device` (pure: no native code), shared by the CLI and the backend.
import { UserFacingError } from '../../compiler/lmforge-error.js';

export const DEVICE_KINDS = ['cuda', 'metal', 'vulkan', 'rocm', 'opencl', 'cpu'] as const;
export type DeviceKind = (typeof DEVICE_KINDS)[number];
/** The order `auto` tries GPU kinds in, before falling back to the CPU. */
export const AUTO_ORDER: readonly DeviceKind[] = ['cuda', 'metal', 'vulkan', 'rocm', 'opencl', 'cpu'];

export interface DeviceSpec {
  kind: DeviceKind | 'auto';
  id: number;
  /** The text the user gave, for messages. */
  text: string;
}

export class DeviceError extends UserFacingError {
  override name = 'DeviceError';
}

export function parseDeviceSpec(text: string): DeviceSpec {
  const match = /^([a-z]+)(?::(\d+))?$/.exec(text.trim());
  const kind = match?.[1];
  if (!match || !kind || (kind !== 'auto' && !(DEVICE_KINDS as readonly string[]).includes(kind))) {
    throw new DeviceError(
      `--device '${text}' is not valid: use auto or NAME[:ID] with NAME one of ${DEVICE_KINDS.join(', ')} (for example cuda:1)`,
    );
  }
  if (kind === 'auto' && match[2] !== undefined) {
    throw new DeviceError(`--device '${text}' is not valid: auto takes no device id`);
  }
  return { kind: kind as DeviceSpec['kind'], id: match[2] === undefined ? 0 : Number(match[2]), text };
}

/** Maps a ggml backend registry name ("CUDA", "Vulkan", "ROCm", ...) to the device kind it serves. */
export function kindOfBackend(registryName: string): DeviceKind | undefined {
  const name = registryName.toLowerCase();
  if (name === 'cpu') return 'cpu';
  if (name === 'cuda') return 'cuda';
  if (name === 'metal' || name === 'mtl') return 'metal';
  if (name === 'vulkan') return 'vulkan';
  if (name === 'rocm' || name === 'hip') return 'rocm';
  if (name === 'opencl') return 'opencl';
  return undefined;
}
