// Knowing before loading whether a CUDA library can run on a card: the fat-binary reader on the
// real prebuilt files, and the choice table (card × driver × library → choice and message).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { openSync, readSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installedBinaryFolder } from '../../runtime/backend/library.js';
import { readFatBinary, summarizeFatBinary, FatBinaryError, type FatBinarySummary } from '../../runtime/backend/cuda/fat-binary.js';
import { ElfError, ElfFile } from '../../runtime/backend/cuda/elf-file.js';
import { chooseCudaLibrary, cudaFit, describeFatBinary, maxPtxIsa, type CudaCard } from '../../runtime/backend/cuda/cuda-fit.js';
import { CUDA_LIBRARY_FILE, loadableFolder, type CudaLibrary } from '../../runtime/backend/cuda/cuda-libraries.js';
import { throwsError } from '../helpers/throws.js';

const test = suite('cuda fit');

const prebuiltFolder = installedBinaryFolder('@node-llama-cpp/linux-x64-cuda');
const prebuiltFile = prebuiltFolder && join(prebuiltFolder, CUDA_LIBRARY_FILE);
const fallbackFile = join(prebuiltFolder ?? '', '../../../linux-x64-cuda-ext/bins/linux-x64-cuda/fallback', CUDA_LIBRARY_FILE);

let prebuilt: FatBinarySummary;
let fallback: FatBinarySummary;

test.before(() => {
  assert.ok(prebuiltFile && existsSync(prebuiltFile), 'npm ci installs the optional @node-llama-cpp/linux-x64-cuda on linux-x64');
  assert.ok(existsSync(fallbackFile), `the optional @node-llama-cpp/linux-x64-cuda-ext holds ${fallbackFile}`);
  prebuilt = summarizeFatBinary(readFatBinary(prebuiltFile!));
  fallback = summarizeFatBinary(readFatBinary(fallbackFile));
});

test('the prebuilt libggml-cuda.so: SASS for 86/89/120/121 only, PTX 9.1 for 75/80/90', () => {
  assert.equal(prebuilt, {
    sass: [86, 89, 120, 121],
    ptx: [{ arch: 75, isa: '9.1' }, { arch: 80, isa: '9.1' }, { arch: 90, isa: '9.1' }],
  });
  assert.is(describeFatBinary(prebuilt), 'SASS sm_86/89/120/121, PTX 9.1 for compute_75/80/90');
  // Every kernel is there for each architecture: a few hundred entries, not a handful.
  const entries = readFatBinary(prebuiltFile!);
  assert.ok(entries.length > 500, `${entries.length} entries`);
  assert.equal([...new Set(entries.map((e) => `${e.kind}${e.arch}`))].sort(), ['ptx75', 'ptx80', 'ptx90', 'sass120', 'sass121', 'sass86', 'sass89']);
});

test('the fallback libggml-cuda.so of -cuda-ext: SASS 86, PTX 8.4 for older cards, linked to the CUDA 12 runtime', () => {
  assert.equal(fallback, {
    sass: [86],
    ptx: [50, 61, 70, 75, 80].map((arch) => ({ arch, isa: '8.4' })),
  });
  const elf = ElfFile.open(fallbackFile);
  try {
    assert.ok(elf.neededLibraries().includes('libcudart.so.12'), elf.neededLibraries().join(' '));
  } finally {
    elf.close();
  }
  const prebuiltElf = ElfFile.open(prebuiltFile!);
  try {
    assert.ok(prebuiltElf.neededLibraries().includes('libcudart.so.13'));
  } finally {
    prebuiltElf.close();
  }
});

test('files that are not CUDA libraries: one clear line each', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmforge-fatbin-'));
  try {
    const text = join(dir, 'notes.txt');
    writeFileSync(text, 'not a library at all, but long enough to read a header from. '.repeat(4));
    throwsError(() => readFatBinary(text), ElfError, /notes\.txt is not an ELF file/);
    throwsError(() => readFatBinary(join(prebuiltFolder!, 'libggml-base.so')), FatBinaryError, /libggml-base\.so has no \.nv_fatbin section: it holds no CUDA code/);
    // The first 16 MB of the real library: its section table (at the end) is gone.
    const truncated = join(dir, 'libggml-cuda.so');
    const fd = openSync(prebuiltFile!, 'r');
    const head = Buffer.alloc(16 << 20);
    readSync(fd, head, 0, head.length, 0);
    closeSync(fd);
    writeFileSync(truncated, head);
    throwsError(() => readFatBinary(truncated), ElfError, /libggml-cuda\.so: truncated at byte \d+/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the PTX ISA each driver version compiles', () => {
  assert.equal(
    [11000, 11080, 12000, 12040, 12050, 12060, 12080, 12090, 13000, 13010].map(maxPtxIsa),
    ['7.0', '7.8', '8.0', '8.4', '8.5', '8.5', '8.7', '8.8', '9.0', '9.1'],
  );
});

const card = (computeCapability: number, name: string): CudaCard => ({ computeCapability, name });
const H100 = card(90, 'NVIDIA H100 80GB HBM3');

test('the choice table: card × driver × library', () => {
  const rows: [CudaCard, number, 'prebuilt' | 'fallback', string][] = [
    [card(86, 'RTX 3090'), 13000, 'prebuilt', 'sass sm_86'],
    [card(87, 'Jetson Orin'), 13000, 'prebuilt', 'sass sm_86'], // same major, older minor: binary compatible
    [card(89, 'RTX 4090'), 13000, 'prebuilt', 'sass sm_89'],
    [card(120, 'RTX 5090'), 13000, 'prebuilt', 'sass sm_120'],
    [H100, 13000, 'prebuilt', 'none'], // the abort seen on the H100: PTX 9.1 on a 13.0 driver
    [H100, 13010, 'prebuilt', 'ptx-jit compute_90'],
    [card(80, 'A100'), 13000, 'prebuilt', 'none'],
    [card(100, 'B200'), 13000, 'prebuilt', 'none'],
    [card(61, 'GTX 1080'), 13010, 'prebuilt', 'none'], // no PTX old enough
    [H100, 13000, 'fallback', 'ptx-jit compute_80'],
    [card(80, 'A100'), 12040, 'fallback', 'ptx-jit compute_80'],
    [card(61, 'GTX 1080'), 12040, 'fallback', 'ptx-jit compute_61'],
    [card(80, 'A100'), 12020, 'fallback', 'none'], // ISA 8.4 is newer than a 12.2 driver takes
  ];
  for (const [c, driver, which, expected] of rows) {
    const fit = cudaFit(c, driver, which === 'prebuilt' ? prebuilt : fallback);
    const got = fit.kind === 'sass' ? `sass sm_${fit.arch}` : fit.kind === 'ptx-jit' ? `ptx-jit compute_${fit.arch}` : 'none';
    assert.is(got, expected, `${c.name} on driver ${driver} with the ${which}: ${fit.reason}`);
  }
  const h100 = cudaFit(H100, 13000, prebuilt);
  assert.is(h100.reason, 'no machine code for sm_90, and its PTX is ISA 9.1, newer than this driver (CUDA 13.0) compiles (ISA ≤ 9.0) (it has SASS sm_86/89/120/121, PTX 9.1 for compute_75/80/90)');
});

test('choosing among the candidates: machine code first, then JIT, else one line naming the fix', () => {
  const local = { label: 'lmforge backend build (sm_90)', summary: { sass: [90], ptx: [] } };
  const pre = { label: 'the prebuilt libggml-cuda.so', summary: prebuilt };
  const fb = { label: 'the prebuilt fallback libggml-cuda.so', summary: fallback };
  const fbWithoutRuntime = { ...fb, missingLibraries: ['libcudart.so.12', 'libcublas.so.12'] };

  const built = chooseCudaLibrary(H100, 13000, [local, pre, fb]);
  assert.is(built.chosen, local);
  assert.equal(built.lines, ['cuda: lmforge backend build (sm_90) on NVIDIA H100 80GB HBM3 (sm_90, driver CUDA 13.0): machine code for sm_90']);

  const jit = chooseCudaLibrary(H100, 13000, [pre, fb]);
  assert.is(jit.chosen, fb);
  assert.match(jit.lines[0]!, /^cuda: the prebuilt fallback libggml-cuda\.so on NVIDIA H100 80GB HBM3 \(sm_90, driver CUDA 13\.0\): no machine code for sm_90; the driver compiles its PTX for compute_80 \(ISA 8\.4\)/);
  assert.match(jit.lines[1]!, /^cuda: passed over the prebuilt libggml-cuda\.so: no machine code for sm_90, and its PTX is ISA 9\.1/);
  assert.match(jit.lines[2]!, /JIT-compiles the kernels \(minutes.*`lmforge backend build cuda` builds machine code for sm_90/);

  // An RTX 4090 keeps the prebuilt, and nothing is passed over.
  const ada = chooseCudaLibrary(card(89, 'RTX 4090'), 13000, [pre, fb]);
  assert.is(ada.chosen, pre);
  assert.is(ada.lines.length, 1);

  const none = chooseCudaLibrary(H100, 13000, [pre, fbWithoutRuntime]);
  assert.is(none.chosen, undefined);
  assert.is(none.lines.length, 1);
  assert.match(none.lines[0]!, /^no CUDA library here can run on NVIDIA H100 80GB HBM3 \(sm_90, driver CUDA 13\.0\): the prebuilt libggml-cuda\.so: no machine code for sm_90.*; the prebuilt fallback libggml-cuda\.so: it needs libcudart\.so\.12, libcublas\.so\.12, which cannot be loaded here\. Run `lmforge backend build cuda` to build ggml's CUDA backend for this card \(needs nvcc and cmake\), or use --device cpu$/);
});

test('the fallback is served from a folder of links to the prebuilt files, with its own libggml-cuda.so', () => {
  const home = mkdtempSync(join(tmpdir(), 'lmforge-home-'));
  try {
    const prebuiltDir = join(home, 'prebuilt');
    mkdirSync(prebuiltDir);
    for (const name of ['libllama.cuda.v0.5.0.so', 'libggml-base.so', CUDA_LIBRARY_FILE]) writeFileSync(join(prebuiltDir, name), name);
    const fallbackLib = join(home, 'fallback.so');
    copyFileSync(join(prebuiltDir, 'libggml-base.so'), fallbackLib);
    const library: CudaLibrary = { label: 'fallback', cudaFile: fallbackLib, summary: fallback, composeInto: join(home, 'backends', 'cuda-x-fallback') };
    const folder = loadableFolder(library, prebuiltDir);
    assert.is(folder, library.composeInto);
    assert.is(readlinkSync(join(folder, CUDA_LIBRARY_FILE)), fallbackLib);
    assert.is(readlinkSync(join(folder, 'libllama.cuda.v0.5.0.so')), join(prebuiltDir, 'libllama.cuda.v0.5.0.so'));
    assert.ok(lstatSync(join(folder, 'libggml-base.so')).isSymbolicLink());
    assert.is(loadableFolder(library, prebuiltDir), folder, 'made once');
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test.run();
