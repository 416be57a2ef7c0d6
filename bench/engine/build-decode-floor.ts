// Builds the C decode floor (decode-floor.c) alone, in seconds, against the very libllama the
// engine loads (`libllamaPath`: the CPU build, or the CUDA one for --device cuda), with the
// headers of the pinned llama.cpp source tree (the checkout the fixtures clone from
// node-llama-cpp's bundle). bench/build-peer-llama-server.sh builds the same binary beside
// llama-server, which takes many minutes the first time; bench:host needs only the floor.
// The binary is cached by the hash of its source and the library's path.
// DECODE_FLOOR_SRC names a llama.cpp source tree to take the headers from (a machine without npm,
// whose fixture cache cannot be cloned from node-llama-cpp's bundle: bench/gpu/run-suite.sh
// passes the kit's tree); otherwise the fixtures' checkout, cloned on first use.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { fixturesCacheDir, vocabularyPath } from '../../fixtures/vocabularies.js';

const source = fileURLToPath(new URL('./decode-floor.c', import.meta.url));

/** Returns the path of lmforge-decode-floor linked to `libllamaPath`'s folder, compiling it if needed. */
export async function buildDecodeFloor(libllamaPath: string): Promise<string> {
  const libraries = dirname(libllamaPath);
  const tree = await headersTree();
  const key = createHash('sha256').update(readFileSync(source)).update(libllamaPath).digest('hex').slice(0, 16);
  const home = process.env.LMFORGE_HOME ?? join(homedir(), '.cache', 'lmforge');
  const folder = join(home, 'decode-floor', key);
  const binary = join(folder, 'lmforge-decode-floor');
  if (existsSync(binary)) return binary;
  mkdirSync(folder, { recursive: true });
  const libs = readdirSync(libraries);
  const pick = (prefix: string) => {
    const name = libs.find((file) => file.startsWith(prefix) && file.endsWith('.so'));
    if (!name) throw new Error(`no ${prefix}*.so in ${libraries}`);
    return join(libraries, name);
  };
  await promisify(execFile)('cc', [
    '-O2', '-std=c11', '-Wall', '-Werror', `-I${join(tree, 'include')}`, `-I${join(tree, 'ggml', 'include')}`, source,
    '-o', binary, libllamaPath, pick('libggml.'), pick('libggml-base'), `-Wl,-rpath,${libraries}`,
  ]);
  // ggml loads its backends (the CPU variants, CUDA) from the executable's folder: offer the library's.
  for (const file of libs) if (/^libggml-(cpu|cuda|vulkan)/.test(file) && !existsSync(join(folder, file))) symlinkSync(join(libraries, file), join(folder, file));
  return binary;
}

/** The llama.cpp tree whose include/ and ggml/include/ the floor compiles against. */
async function headersTree(): Promise<string> {
  const given = process.env.DECODE_FLOOR_SRC;
  if (given) {
    if (!existsSync(join(given, 'include', 'llama.h'))) throw new Error(`DECODE_FLOOR_SRC=${given} holds no include/llama.h`);
    return given;
  }
  await vocabularyPath('gpt-2'); // clones the source tree from the bundle on first use
  return join(fixturesCacheDir, 'llama.cpp');
}
