// `lmforge backend build cuda`: what it builds with, and the one-line refusals a machine
// without a CUDA toolkit gets (the build itself needs nvcc and a card's worth of minutes: it is
// checked on GPU machines, never here).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCli } from '../helpers/cli-process.js';
import { ggmlBaseLinkProblem, llamaSourceDir, missingToolsMessage, planCudaBuild } from '../../runtime/backend/cuda/build-cuda-backend.js';
import { ElfFile } from '../../runtime/backend/cuda/elf-file.js';
import { SOURCE_COMMIT_FILE } from '../../runtime/backend/llama-source.js';
import { PINNED_BINARIES_VERSION, installedBinaryFolder } from '../../runtime/backend/library.js';

const test = suite('backend cli');

async function run(args: string[], env: Record<string, string | undefined> = {}) {
  const cli = startCli(args, env);
  const code = await cli.exit;
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}

test('only cuda can be built, and only with build', async () => {
  const other = await run(['backend', 'build', 'vulkan']);
  assert.is(other.code, 1);
  assert.is(other.stderr, 'lmforge: backend build vulkan: only cuda can be built (other devices use the prebuilt packages, or --model-lib with a build of your own)\n');
  const action = await run(['backend', 'make', 'cuda']);
  assert.is(action.code, 1);
  assert.match(action.stderr, /^lmforge: backend make: unknown action; the one there is: lmforge backend build cuda\n$/);
});

test('--arch and --jobs take positive whole numbers', async () => {
  for (const [flag, value] of [['--arch', 'sm90'], ['--jobs', '0'], ['--jobs', '0x4']] as const) {
    const result = await run(['backend', 'build', 'cuda', flag, value]);
    assert.is(result.code, 1);
    assert.is(result.stderr, `lmforge: ${flag} ${value}: expected a positive whole number\n`);
  }
});

test('a machine without the tools gets one line naming each missing one and what installs it', async () => {
  const empty = mkdtempSync(join(tmpdir(), 'lmforge-no-tools-'));
  try {
    // A home without a source tree: git is needed to clone one.
    const env = { PATH: empty, CUDA_HOME: join(empty, 'cuda'), CUDA_PATH: undefined, LMFORGE_HOME: join(empty, 'home') };
    const message = missingToolsMessage(env)!;
    assert.match(message, /^lmforge backend build cuda needs nvcc: the CUDA toolkit's compiler .*; cmake: cmake ≥ 3\.18 \(apt-get install cmake\); c\+\+: a C\+\+17 compiler \(apt-get install g\+\+\); git: git \(apt-get install git\)$/);
    const result = await run(['backend', 'build', 'cuda', '--arch', '90'], env);
    assert.is(result.code, 1);
    assert.is(result.stderr, `lmforge: ${message}\n`);
    assert.is(result.stdout, '');
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
});

test('a source tree already in place (unpacked without git) builds without git: the one line leaves it out', async () => {
  const empty = mkdtempSync(join(tmpdir(), 'lmforge-no-tools-'));
  try {
    const home = join(empty, 'home');
    const tree = llamaSourceDir(home);
    mkdirSync(tree, { recursive: true });
    writeFileSync(join(tree, 'CMakeLists.txt'), '');
    writeFileSync(join(tree, SOURCE_COMMIT_FILE), `${'a'.repeat(40)}\n`);
    const env = { PATH: empty, CUDA_HOME: join(empty, 'cuda'), CUDA_PATH: undefined, LMFORGE_HOME: home };
    const message = missingToolsMessage(env, { sourceInPlace: true })!;
    assert.match(message, /^lmforge backend build cuda needs nvcc: .*; cmake: .*; c\+\+: a C\+\+17 compiler \(apt-get install g\+\+\)$/);
    const result = await run(['backend', 'build', 'cuda', '--arch', '90'], env);
    assert.is(result.code, 1);
    assert.is(result.stderr, `lmforge: ${message}\n`);
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
});

test('the build: ggml alone, as a loadable backend, for the one architecture asked', () => {
  const plan = planCudaBuild({ arch: 90, jobs: 16, flashAttention: true, home: '/h', nvcc: '/cuda/bin/nvcc' });
  assert.is(plan.sourceDir, `/h/backends/src/llama.cpp-${PINNED_BINARIES_VERSION}`);
  assert.is(plan.installDir, `/h/backends/cuda-${PINNED_BINARIES_VERSION}-sm90`);
  assert.equal(plan.configure.slice(0, 2), ['-S', `${plan.sourceDir}/ggml`]);
  for (const flag of ['-DGGML_CUDA=ON', '-DCMAKE_CUDA_ARCHITECTURES=90', '-DGGML_BACKEND_DL=ON', '-DBUILD_SHARED_LIBS=ON', '-DGGML_CUDA_FA=ON', '-DCMAKE_CUDA_COMPILER=/cuda/bin/nvcc', '-DGGML_NATIVE=OFF']) {
    assert.ok(plan.configure.includes(flag), flag);
  }
  // Linked as the prebuilt libraries are (libggml-base.so by that name, beside itself), not to the build tree's base.
  for (const flag of ['-DCMAKE_PLATFORM_NO_VERSIONED_SONAME=ON', '-DCMAKE_BUILD_WITH_INSTALL_RPATH=ON', '-DCMAKE_INSTALL_RPATH=$ORIGIN']) {
    assert.ok(plan.configure.includes(flag), flag);
  }
  assert.equal(plan.build.slice(2), ['--target', 'ggml-cuda', '--parallel', '16']);
  assert.ok(planCudaBuild({ arch: 80, jobs: 2, flashAttention: false, home: '/h', nvcc: 'nvcc' }).configure.includes('-DGGML_CUDA_FA=OFF'));
});

test('a backend must need the prebuilt libggml-base.so by its soname, else a second copy of ggml would load', () => {
  // The prebuilt CPU backends are linked so: the rule passes the real libraries lmforge ships beside.
  const prebuilt = installedBinaryFolder('@node-llama-cpp/linux-x64')!;
  const cpuBackend = readdirSync(prebuilt).find((name) => /^libggml-cpu-.*\.so$/.test(name))!;
  const needed = ElfFile.neededLibrariesOf(join(prebuilt, cpuBackend));
  assert.ok(needed.includes('libggml-base.so'), needed.join(', '));
  assert.is(ggmlBaseLinkProblem(needed), undefined);
  // CMake's default soname, which the H200 build of 2026-11-30 needed (and found in the build tree).
  assert.match(ggmlBaseLinkProblem(['libggml-base.so.0', 'libcudart.so.13', 'libc.so.6'])!, /needs libggml-base\.so\.0, not the prebuilt libggml-base\.so/);
  assert.match(ggmlBaseLinkProblem(['libcudart.so.13'])!, /needs no libggml-base/);
});

test.run();
