// Finds and loads libllama: from the pinned @node-llama-cpp/<platform> packages, or from the
// file a user names with --model-lib. One library per process: ggml's backends are global.
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import koffi, { type LibraryHandle } from 'koffi';
import { bindLlamaApi, bindLlamaExtensions, type LlamaApi, type LlamaExtensions } from './llama-api.js';
import { DeviceError, type DeviceKind } from './device-spec.js';

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
}

const require = createRequire(import.meta.url);
let loaded: LoadedLibrary | undefined;

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
  return candidates.some((name) => {
    try {
      koffi.load(name);
      return true;
    } catch {
      return false;
    }
  });
}

/** The folder holding libllama inside an installed prebuilt package, or undefined when not installed. */
export function installedBinaryFolder(packageName: string): string | undefined {
  let entry: string;
  try {
    entry = require.resolve(packageName); // <package>/dist/index.js: its exports map hides package.json
  } catch {
    return undefined;
  }
  const bins = join(dirname(dirname(entry)), 'bins');
  if (!existsSync(bins)) return undefined;
  for (const entry of readdirSync(bins)) {
    const folder = join(bins, entry);
    if (findLibllama(folder)) return folder;
  }
  return undefined;
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
export function loadLlamaLibrary(options: { kinds: readonly DeviceKind[]; modelLib?: string; verbose?: boolean }): LoadedLibrary {
  if (loaded) {
    // llama.cpp's log callback is one per process: point it back at this thread's, in case
    // another thread that set its own has ended since.
    quietLogs(loaded.api, options.verbose ?? process.env.LMFORGE_LLAMA_LOG === '1');
    return loaded;
  }
  let path: string | undefined;
  let source: string;
  if (options.modelLib) {
    if (!existsSync(options.modelLib)) throw new DeviceError(`--model-lib '${options.modelLib}' does not exist`);
    path = options.modelLib;
    source = '--model-lib';
  } else {
    // With several kinds (auto), a GPU build is only worth loading when its driver is there.
    const kinds = options.kinds.length > 1 ? options.kinds.filter(gpuDriverPresent) : options.kinds;
    const candidates = kinds.map(prebuiltPackageFor).filter((name): name is string => name !== undefined);
    const found = candidates.map((name) => ({ name, folder: installedBinaryFolder(name) })).find((c) => c.folder);
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
  loaded = { api, path, source, extensions: () => (extensions ??= bindLlamaExtensions(lib)) };
  return loaded;
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
