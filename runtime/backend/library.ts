// Finds and loads libllama: from the pinned @node-llama-cpp/<platform> packages, or from the
// file a user names with --model-lib. One library per process: ggml's backends are global.
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import koffi, { type LibraryHandle } from 'koffi';
import { bindLlamaApi, bindLlamaExtensions, type LlamaApi, type LlamaExtensions } from './llama-api.js';
import { DeviceError, type DeviceKind } from './device-spec.js';
import { canLoadLibrary } from './can-load-library.js';
import { CUDA_LIBRARY_FILE, planCudaLibrary, type CudaPlan } from './cuda/cuda-libraries.js';

/** Exact version of the prebuilt binaries; llama-api.ts's struct layouts are for this build. */
export const PINNED_BINARIES_VERSION = '3.22.1';

export interface LoadedLibrary {
  api: LlamaApi;
  /** Full path of the libllama file in use. */
  path: string;
  /** Which prebuilt package it came from, or "--model-lib". */
  source: string;
  /** llama.cpp's C++ staging extensions (EAGLE-3), bound on first use: throws naming a missing symbol. */
  extensions: () => LlamaExtensions;
  /** Start-up lines about the choice (which CUDA library, and why), for the log. */
  notes: string[];
}

const require = createRequire(import.meta.url);
let loaded: LoadedLibrary | undefined;

/** The libllama this process has loaded, if any. */
export function loadedLlamaLibrary(): LoadedLibrary | undefined {
  return loaded;
}

/** The prebuilt package that carries a build for `kind` on this platform, if one exists. */
export function prebuiltPackageFor(kind: DeviceKind): string | undefined {
  const platform = process.platform === 'darwin' ? 'mac' : process.platform === 'win32' ? 'win' : process.platform;
  const base = `@node-llama-cpp/${platform}-${process.arch}`;
  switch (kind) {
    case 'cpu':
      return process.platform === 'darwin' && process.arch === 'arm64' ? `${base}-metal` : base;
    case 'cuda':
      return process.platform === 'darwin' ? undefined : `${base}-cuda`;
    case 'vulkan':
      return process.platform === 'darwin' ? undefined : `${base}-vulkan`;
    case 'metal':
      return process.platform === 'darwin' && process.arch === 'arm64' ? `${base}-metal` : undefined;
    default:
      return undefined; // rocm and opencl have no prebuilt package: users build llama.cpp themselves
  }
}

/** Driver libraries whose presence says a GPU kind can work here; checked by loading them. */
const DRIVER_LIBRARIES: Partial<Record<DeviceKind, string[]>> = {
  cuda: ['libcuda.so.1', 'nvcuda.dll'],
  vulkan: ['libvulkan.so.1', 'vulkan-1.dll', 'libvulkan.dylib'],
};

export function gpuDriverPresent(kind: DeviceKind): boolean {
  const candidates = DRIVER_LIBRARIES[kind];
  if (!candidates) return true; // cpu and metal need nothing extra; rocm/opencl come with --model-lib
  return candidates.some(canLoadLibrary);
}

/** The folder holding libllama inside an installed prebuilt package, or undefined when not installed. */
export function installedBinaryFolder(packageName: string): string | undefined {
  const root = installedPackageRoot(packageName);
  if (!root) return undefined;
  const bins = join(root, 'bins');
  if (!existsSync(bins)) return undefined;
  for (const entry of readdirSync(bins)) {
    const folder = join(bins, entry);
    if (findLibllama(folder)) return folder;
  }
  return undefined;
}

/** An installed package's folder, found through its entry point (<package>/dist/index.js: its exports map hides package.json). */
function installedPackageRoot(packageName: string): string | undefined {
  try {
    return dirname(dirname(require.resolve(packageName)));
  } catch {
    return undefined;
  }
}

function findLibllama(folder: string): string | undefined {
  if (!existsSync(folder)) return undefined;
  const names = readdirSync(folder).filter((name) => /^(lib)?llama(\.[a-z]+)?(\.v[\d.]+)?\.(so|dylib|dll)$/.test(name));
  return names[0] === undefined ? undefined : join(folder, names[0]);
}

/**
 * Loads libllama for the wanted device kinds (first installed package wins) or the given file,
 * registers every ggml backend found beside it, and quiets llama.cpp's own logging.
 */
export function loadLlamaLibrary(options: { kinds: readonly DeviceKind[]; modelLib?: string; verbose?: boolean; deviceId?: number }): LoadedLibrary {
  if (loaded) {
    // llama.cpp's log callback is one per process: point it back at this thread's, in case
    // another thread that set its own has ended since.
    quietLogs(loaded.api, options.verbose ?? process.env.LMFORGE_LLAMA_LOG === '1');
    return loaded;
  }
  let path: string | undefined;
  let source: string;
  const notes: string[] = [];
  if (options.modelLib) {
    if (!existsSync(options.modelLib)) throw new DeviceError(`--model-lib '${options.modelLib}' does not exist`);
    path = options.modelLib;
    source = '--model-lib';
  } else {
    // With several kinds (auto), a GPU build is only worth loading when its driver is there.
    let kinds = options.kinds.length > 1 ? options.kinds.filter(gpuDriverPresent) : options.kinds;
    // A CUDA library without code this card can run aborts the process at its first kernel:
    // judge each one installed before loading any, and skip CUDA (auto) or stop (cuda) if none fits.
    const cuda = kinds.includes('cuda') ? planCuda(options.deviceId ?? 0) : undefined;
    if (cuda && !cuda.folder) {
      if (kinds.length === 1) throw new DeviceError(cuda.lines.join(' '));
      kinds = kinds.filter((kind) => kind !== 'cuda');
      notes.push(`--device auto: CUDA skipped: ${cuda.lines.join(' ')}`);
    } else if (cuda) {
      notes.push(...cuda.lines);
    }
    const candidates = kinds.map(prebuiltPackageFor).filter((name): name is string => name !== undefined);
    const folderOf = (name: string) => (cuda?.folder && name === prebuiltPackageFor('cuda') ? cuda.folder : installedBinaryFolder(name));
    const found = candidates.map((name) => ({ name, folder: folderOf(name) })).find((c) => c.folder);
    if (!found?.folder) {
      throw new DeviceError(
        `no llama.cpp build is installed for ${options.kinds.join('/')} (looked for ${candidates.join(', ') || 'nothing: no prebuilt package exists for it'}); ` +
          `install the package with npm, or build llama.cpp for your device and pass --model-lib PATH/TO/libllama`,
      );
    }
    path = findLibllama(found.folder);
    source = found.name;
  }
  if (!path) throw new DeviceError(`no libllama found for ${options.kinds.join('/')}`);
  let lib: LibraryHandle;
  try {
    lib = koffi.load(path);
  } catch (error) {
    throw new DeviceError(`could not load ${path}: ${(error as Error).message}`);
  }
  const api = bindLlamaApi(lib);
  quietLogs(api, options.verbose ?? process.env.LMFORGE_LLAMA_LOG === '1');
  api.ggml_backend_load_all_from_path(dirname(path));
  api.llama_backend_init();
  let extensions: LlamaExtensions | undefined;
  loaded = { api, path, source, notes, extensions: () => (extensions ??= bindLlamaExtensions(lib)) };
  return loaded;
}

/** The CUDA library plan for card `cardIndex`, from the prebuilt package, its fallback and local builds. */
function planCuda(cardIndex: number): CudaPlan | undefined {
  const packageName = prebuiltPackageFor('cuda');
  const prebuiltFolder = packageName ? installedBinaryFolder(packageName) : undefined;
  const fallbackFile = packageName ? fallbackCudaFile(`${packageName}-ext`) : undefined;
  return planCudaLibrary({ cardIndex, version: PINNED_BINARIES_VERSION, prebuiltFolder, fallbackFile });
}

/** The fallback libggml-cuda.so the `-cuda-ext` package carries (bins/<platform>/fallback/). */
function fallbackCudaFile(packageName: string): string | undefined {
  const root = installedPackageRoot(packageName);
  if (!root || !existsSync(join(root, 'bins'))) return undefined;
  for (const entry of readdirSync(join(root, 'bins'))) {
    const file = join(root, 'bins', entry, 'fallback', CUDA_LIBRARY_FILE);
    if (existsSync(file)) return file;
  }
  return undefined;
}

// This thread's log callback, kept alive for as long as llama.cpp may call it.
let logCallback: unknown;

function quietLogs(api: LlamaApi, verbose: boolean): void {
  const ERROR = 4;
  logCallback ??= koffi.register((level: number, text: string) => {
    if (verbose || level === ERROR) process.stderr.write(`[llama.cpp] ${text}`);
  }, koffi.pointer(api.logCallback));
  api.llama_log_set(logCallback, null);
}

/**
 * Hands llama.cpp's logging back to its default before this thread ends: a callback registered
 * by a worker thread that has exited would crash the process the next time llama.cpp logs.
 */
export function releaseLlamaLogs(): void {
  if (!loaded || !logCallback) return;
  loaded.api.llama_log_set(null, null);
}
