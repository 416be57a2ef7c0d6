// The functions a V8 CPU profile spent its time in, by self time: a text summary of the
// `.cpuprofile` files that `bench:host --cpu-prof DIR` (or node's --cpu-prof) writes, for a
// machine with no DevTools at hand (the GPU run kit prints it into its summary).
//   node bench/cpu-profile-top.mjs [--top N] FILE.cpuprofile...
// Files go busiest first (their span less V8's "(idle)"), so a process's profiles (one per
// thread) start with the thread that worked most. Per file: the span, the busiest functions (self
// time, ms and share of the span), then the same by script file. V8's own entries ("(idle)",
// "(program)", "(garbage collector)") are listed as it names them.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

const args = process.argv.slice(2);
let top = 25;
const files = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--top') top = Number(args[++i]);
  else files.push(args[i]);
}
if (!files.length || !(top >= 1)) {
  console.error('usage: node bench/cpu-profile-top.mjs [--top N] FILE.cpuprofile...');
  process.exit(1);
}

const summaries = files.map(summarise).sort((a, b) => b.busyUs - a.busyUs);
for (const { text } of summaries) console.log(text);

function summarise(file) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  // Sample i's time is the delta before the next sample (the last one's is the profile's end).
  const selfUs = new Map();
  const { samples, timeDeltas } = profile;
  for (let i = 0; i < samples.length; i++) {
    const us = i + 1 < timeDeltas.length ? timeDeltas[i + 1] : profile.endTime - profile.startTime - timeDeltas.reduce((a, b) => a + b, 0);
    selfUs.set(samples[i], (selfUs.get(samples[i]) ?? 0) + Math.max(0, us));
  }
  const byFunction = new Map();
  const byScript = new Map();
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = nodes.get(id).callFrame;
    const script = url ? basename(url) : '';
    const name = `${functionName || '(anonymous)'}${script ? ` ${script}:${lineNumber + 1}` : ''}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
    const scriptName = script || functionName || '(native)';
    byScript.set(scriptName, (byScript.get(scriptName) ?? 0) + us);
  }
  const spanUs = profile.endTime - profile.startTime;
  const busyUs = spanUs - (byFunction.get('(idle)') ?? 0);
  const line = ([name, us]) => `  ${(us / 1000).toFixed(1).padStart(9)} ms ${((100 * us) / spanUs).toFixed(1).padStart(5)}%  ${name}`;
  const sorted = (map, n) => [...map].sort((a, b) => b[1] - a[1]).slice(0, n);
  const text = [
    `${basename(file)}: ${(spanUs / 1000).toFixed(0)} ms, ${(busyUs / 1000).toFixed(0)} ms not idle, ${samples.length} samples`,
    ' by function (self time):',
    ...sorted(byFunction, top).map(line),
    ' by script:',
    ...sorted(byScript, Math.min(top, 12)).map(line),
  ].join('\n');
  return { busyUs, text };
}
