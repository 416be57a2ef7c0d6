// The NVIDIA driver's view of this machine, read through its own C API (libcuda, with koffi)
// before any CUDA library is loaded: the driver's CUDA version and each card's name and
// compute capability. Undefined where no driver is installed or it finds no card.
import koffi, { type LibraryHandle } from 'koffi';
import type { CudaCard } from './cuda-fit.js';

export interface CudaDriverInfo {
  /** CUDA version the driver implements, as cuDriverGetVersion gives it: 13000 for 13.0. */
  cudaVersion: number;
  /** Cards in CUDA's order (the ids of --device cuda:N). */
  cards: CudaCard[];
}

const CUDA_SUCCESS = 0;
const COMPUTE_CAPABILITY_MAJOR = 75;
const COMPUTE_CAPABILITY_MINOR = 76;

let probed: CudaDriverInfo | null | undefined;

export function probeCudaDriver(): CudaDriverInfo | undefined {
  if (probed === undefined) probed = readDriver() ?? null;
  return probed ?? undefined;
}

function readDriver(): CudaDriverInfo | undefined {
  let lib: LibraryHandle;
  try {
    lib = koffi.load(process.platform === 'win32' ? 'nvcuda.dll' : 'libcuda.so.1');
  } catch {
    return undefined;
  }
  const cuInit = lib.func('int cuInit(unsigned int flags)');
  const cuDriverGetVersion = lib.func('int cuDriverGetVersion(_Out_ int *version)');
  const cuDeviceGetCount = lib.func('int cuDeviceGetCount(_Out_ int *count)');
  const cuDeviceGet = lib.func('int cuDeviceGet(_Out_ int *device, int ordinal)');
  const cuDeviceGetAttribute = lib.func('int cuDeviceGetAttribute(_Out_ int *value, int attribute, int device)');
  const cuDeviceGetName = lib.func('int cuDeviceGetName(_Out_ uint8_t *name, int length, int device)');
  if (cuInit(0) !== CUDA_SUCCESS) return undefined;
  const version = [0];
  const count = [0];
  if (cuDriverGetVersion(version) !== CUDA_SUCCESS || cuDeviceGetCount(count) !== CUDA_SUCCESS) return undefined;
  const cards: CudaCard[] = [];
  for (let ordinal = 0; ordinal < count[0]!; ordinal++) {
    const device = [0];
    const major = [0];
    const minor = [0];
    const name = Buffer.alloc(256);
    if (cuDeviceGet(device, ordinal) !== CUDA_SUCCESS) continue;
    cuDeviceGetAttribute(major, COMPUTE_CAPABILITY_MAJOR, device[0]);
    cuDeviceGetAttribute(minor, COMPUTE_CAPABILITY_MINOR, device[0]);
    cuDeviceGetName(name, name.length, device[0]);
    cards.push({ computeCapability: major[0]! * 10 + minor[0]!, name: name.toString('utf8', 0, Math.max(0, name.indexOf(0))) || `CUDA device ${ordinal}` });
  }
  return cards.length ? { cudaVersion: version[0]!, cards } : undefined;
}
