// Runs every uvu suite under test/ (TypeScript through tsx) and ends with the plain
// "N passed, N failed" line CI reads. Usage: node test/run.mjs [file-pattern]
// Each failure is repeated just above that line, with its file: CI keeps only the tail of
// a long run, and a failure printed twenty minutes earlier would otherwise be lost.
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
  const failures = failureReports(out);
  if (failures.length > 0) console.log(`\nFailures, repeated:\n\n${failures.join('\n\n')}`);
  console.log(`\n${passed} passed, ${failed} failed`);
  process.exit(code === 0 && failed === 0 && total > 0 ? 0 : 1);
});

/** uvu's FAIL blocks, each headed by the test file it came from and cut to its first lines. */
function failureReports(text) {
  const lines = text.replace(/\x1b\[[0-9;]*m/g, '').split('\n');
  const reports = [];
  let file = '?';
  for (let i = 0; i < lines.length; i++) {
    if (/^\S+\.test\.ts$/.test(lines[i].trim()) && !lines[i].startsWith(' ')) file = lines[i].trim();
    if (!/^\s*FAIL\s/.test(lines[i])) continue;
    const block = [`${file}:`, lines[i].trimEnd()];
    for (let j = i + 1; j < lines.length && j <= i + 30 && !/^\s*(FAIL\s|Total:)/.test(lines[j]); j++) {
      block.push(lines[j].slice(0, 240).trimEnd());
    }
    reports.push(block.join('\n'));
  }
  return reports;
}
