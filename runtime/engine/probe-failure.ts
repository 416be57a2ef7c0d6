// The one line a failed start-up probe (startup-probe.ts) prints: the device, the library, the
// cause, and what fixes it. The engine writes it when a decode returns an error; the server
// writes it when the engine's process dies in the probe (a backend abort).
export interface ProbeTarget {
  devices: string[];
  library: string;
  /** The library came from --model-lib. */
  modelLib: boolean;
}

export function probeFailureLine(target: ProbeTarget, cause: string): string {
  return `start-up probe failed on ${target.devices.join(' + ')} with ${target.library}: ${cause}; ${probeFix(target)}`;
}

function probeFix(target: ProbeTarget): string {
  if (target.modelLib) return 'the library given with --model-lib cannot run on this device: rebuild it for this machine, or leave --model-lib out';
  if (target.devices.some((device) => device.startsWith('cuda'))) {
    return "run `lmforge backend build cuda` to build ggml's CUDA backend for this card (needs nvcc and cmake), or serve with --device cpu";
  }
  if (target.devices.every((device) => device.startsWith('cpu'))) return 'give a llama.cpp build made for this CPU with --model-lib';
  return 'serve with --device cpu, or give a llama.cpp build made for this device with --model-lib';
}
