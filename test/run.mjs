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
// When each file's heading arrived: its time runs until the next heading (or the end).
const fileStarts = [];
let partial = '';
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  out += chunk;
  const lines = (partial + chunk).split('\n');
  partial = lines.pop();
  for (const line of lines) {
    const file = fileHeading(line);
    if (file) fileStarts.push({ file, at: performance.now() });
  }
});
child.on('close', (code) => {
  const count = (label) => Number(/\s*(\d+)/.exec(out.split(`${label}:`).at(-1) ?? '')?.[1] ?? 0);
  const total = count('Total');
  const passed = count('Passed');
  const failed = total - passed - count('Skipped');
  const failures = failureReports(out);
  console.log(`\nSlowest files:\n${slowestFiles(fileStarts, performance.now(), 12)}`);
  if (failures.length > 0) console.log(`\nFailures, repeated:\n\n${failures.join('\n\n')}`);
  console.log(`\n${passed} passed, ${failed} failed`);
  process.exit(code === 0 && failed === 0 && total > 0 ? 0 : 1);
});

/** The test file a line of uvu's output heads, or undefined. */
function fileHeading(line) {
  const plain = line.replace(/\x1b\[[0-9;]*m/g, '');
  return /^\S+\.test\.ts$/.test(plain.trim()) && !plain.startsWith(' ') ? plain.trim() : undefined;
}

/** The `count` files that took longest (from one heading to the next), a line each: what to look at when CI grows. */
function slowestFiles(starts, end, count) {
  const spans = starts.map(({ file, at }, i) => ({ file, seconds: ((starts[i + 1]?.at ?? end) - at) / 1000 }));
  return spans
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, count)
    .map(({ file, seconds }) => `${seconds.toFixed(1).padStart(8)} s  ${file}`)
    .join('\n');
}

/** uvu's FAIL blocks, each headed by the test file it came from and cut to its first lines. */
function failureReports(text) {
  const lines = text.replace(/\x1b\[[0-9;]*m/g, '').split('\n');
  const reports = [];
  let file = '?';
  for (let i = 0; i < lines.length; i++) {
    file = fileHeading(lines[i]) ?? file;
    if (!/^\s*FAIL\s/.test(lines[i])) continue;
    const block = [`${file}:`, lines[i].trimEnd()];
    for (let j = i + 1; j < lines.length && j <= i + 30 && !/^\s*(FAIL\s|Total:)/.test(lines[j]); j++) {
      block.push(lines[j].slice(0, 240).trimEnd());
    }
    reports.push(block.join('\n'));
  }
  return reports;
}
