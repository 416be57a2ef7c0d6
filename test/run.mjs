// Runs every uvu suite under test/ (TypeScript through tsx) and ends with the plain
// "N passed, N failed" line CI reads. Usage: node test/run.mjs [file-pattern]
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const pattern = process.argv[2] ?? '\\.test\\.ts$';
const child = spawn(
  process.execPath,
  ['--expose-gc', '--import', 'tsx', `${root}node_modules/uvu/bin.js`, 'test', pattern],
  { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, FORCE_COLOR: '0' } },
);
let out = '';
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  out += chunk;
});
child.on('close', (code) => {
  const count = (label) => Number(/\s*(\d+)/.exec(out.split(`${label}:`).at(-1) ?? '')?.[1] ?? 0);
  const total = count('Total');
  const passed = count('Passed');
  const failed = total - passed - count('Skipped');
  console.log(`\n${passed} passed, ${failed} failed`);
  process.exit(code === 0 && failed === 0 && total > 0 ? 0 : 1);
});
