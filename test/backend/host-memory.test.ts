// Host memory as the process sees it: /proc/meminfo, cgroup v2 and v1 limits, and the
// LMFORGE_MEMORY_LIMIT_BYTES figure, read from fake /proc and /sys trees.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MemoryLimitError, readHostMemory } from '../../runtime/backend/host-memory.js';
import { throwsError } from '../helpers/throws.js';

const test = suite('host memory');
const GiB = 2 ** 30;

function fakeRoot(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'lmforge-host-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const meminfo = (totalKb: number, availableKb: number) => `MemTotal:       ${totalKb} kB\nMemFree:        1000 kB\nMemAvailable:   ${availableKb} kB\nBuffers:            5216 kB\n`;

test('without a limit, total and available come from /proc/meminfo', () => {
  const root = fakeRoot({ 'proc/meminfo': meminfo(24 * 1024 * 1024, 20 * 1024 * 1024), 'proc/self/cgroup': '0::/\n', 'sys/fs/cgroup/memory.max': 'max\n' });
  assert.equal(readHostMemory({ root, env: {} }), { totalBytes: 24 * GiB, availableBytes: 20 * GiB, source: 'RAM' });
});

test('a cgroup v2 memory.max below RAM is the total; what the cgroup already uses (less its file cache) is not available', () => {
  const root = fakeRoot({
    'proc/meminfo': meminfo(24 * 1024 * 1024, 20 * 1024 * 1024),
    'proc/self/cgroup': '0::/user.slice/lmforge.scope\n',
    'sys/fs/cgroup/user.slice/memory.max': String(8 * GiB),
    'sys/fs/cgroup/user.slice/lmforge.scope/memory.max': String(2 * GiB),
    'sys/fs/cgroup/user.slice/lmforge.scope/memory.current': String(GiB / 2),
    'sys/fs/cgroup/user.slice/lmforge.scope/memory.stat': `anon 100\ninactive_file ${GiB / 4}\n`,
  });
  assert.equal(readHostMemory({ root, env: {} }), { totalBytes: 2 * GiB, availableBytes: 2 * GiB - GiB / 4, source: 'cgroup memory.max' });
});

test('a limit on an ancestor cgroup applies too, and the tightest wins', () => {
  const root = fakeRoot({
    'proc/meminfo': meminfo(24 * 1024 * 1024, 20 * 1024 * 1024),
    'proc/self/cgroup': '0::/a/b\n',
    'sys/fs/cgroup/a/memory.max': String(3 * GiB),
    'sys/fs/cgroup/a/memory.current': '0',
    'sys/fs/cgroup/a/b/memory.max': 'max',
  });
  assert.equal(readHostMemory({ root, env: {} }).totalBytes, 3 * GiB);
});

test('cgroup v1 memory.limit_in_bytes, and its "no limit" value near 2^63', () => {
  const limited = fakeRoot({
    'proc/meminfo': meminfo(24 * 1024 * 1024, 20 * 1024 * 1024),
    'proc/self/cgroup': '9:pids:/\n4:memory:/docker/abc\n1:cpu:/\n',
    'sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes': String(GiB),
    'sys/fs/cgroup/memory/docker/abc/memory.usage_in_bytes': String(GiB / 4),
    'sys/fs/cgroup/memory/docker/abc/memory.stat': 'cache 0\ntotal_inactive_file 0\n',
  });
  assert.equal(readHostMemory({ root: limited, env: {} }), { totalBytes: GiB, availableBytes: (3 * GiB) / 4, source: 'cgroup memory.limit_in_bytes' });
  const unlimited = fakeRoot({
    'proc/meminfo': meminfo(24 * 1024 * 1024, 20 * 1024 * 1024),
    'proc/self/cgroup': '4:memory:/\n',
    'sys/fs/cgroup/memory/memory.limit_in_bytes': '9223372036854771712\n',
  });
  assert.equal(readHostMemory({ root: unlimited, env: {} }).source, 'RAM');
});

test('LMFORGE_MEMORY_LIMIT_BYTES fixes both figures; a bad value is one clear error', () => {
  const root = fakeRoot({ 'proc/meminfo': meminfo(24 * 1024 * 1024, 20 * 1024 * 1024) });
  assert.equal(readHostMemory({ root, env: { LMFORGE_MEMORY_LIMIT_BYTES: String(GiB) } }), { totalBytes: GiB, availableBytes: GiB, source: 'LMFORGE_MEMORY_LIMIT_BYTES' });
  throwsError(() => readHostMemory({ root, env: { LMFORGE_MEMORY_LIMIT_BYTES: '2G' } }), MemoryLimitError, /^LMFORGE_MEMORY_LIMIT_BYTES=2G is not valid: it must be a whole number of bytes > 0$/);
});

test('this machine: the figures are positive and available never exceeds total', () => {
  const memory = readHostMemory({ env: {} });
  assert.ok(memory.totalBytes > 0 && memory.availableBytes > 0);
  assert.ok(memory.availableBytes <= memory.totalBytes);
});

test.run();
