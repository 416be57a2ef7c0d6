// Does --grammar-timeout hold for a grammar too large to compile in time, and does everyone else
// keep their speed? serve smollm2 with --grammar-timeout 10, time small chat requests, send a
// json_schema with a 100,000-entry string enum (issue 32: a 200 after 99 s once), keep sending
// small requests beside it, then read the server's CPU time for 15 s after the answer (the
// compile worker must stop at the deadline, not run on). Prints one JSON object.
//   node bench/enum-deadline.mjs
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
const port = 18191;
const repo = fileURLToPath(new URL('..', import.meta.url));
const server = spawn('node', ['bin/lmforge.mjs', 'serve', 'smollm2', '--port', String(port), '--grammar-timeout', '10'], { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] });
let log = '';
server.stdout.on('data', (d) => (log += d)); server.stderr.on('data', (d) => (log += d));
const base = `http://127.0.0.1:${port}`;
for (let i = 0; i < 240; i++) { try { const r = await fetch(`${base}/health`); if (r.ok) break; } catch {} await new Promise((r) => setTimeout(r, 500)); }
const cpu = () => { const f = readFileSync(`/proc/${server.pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) / 100; };
const small = async () => { const t = performance.now(); const r = await fetch(`${base}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'smollm2', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 4 }) }); await r.text(); return performance.now() - t; };
const baseline = []; for (let i = 0; i < 5; i++) baseline.push(await small());
const values = Array.from({ length: 100000 }, (_, i) => `choice-${i}-${(i * 7919).toString(36)}`);
const body = JSON.stringify({ model: 'smollm2', messages: [{ role: 'user', content: 'Pick one' }], max_tokens: 8, response_format: { type: 'json_schema', json_schema: { name: 'e', schema: { type: 'object', properties: { v: { type: 'string', enum: values } }, required: ['v'] } } } });
const t0 = performance.now();
let done = false;
const big = fetch(`${base}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(async (r) => { const t = await r.text(); done = true; return { status: r.status, ms: performance.now() - t0, body: t.slice(0, 300) }; });
const beside = [];
while (!done) { beside.push(await small()); await new Promise((r) => setTimeout(r, 300)); }
const res = await big;
const windows = []; let c0 = cpu(); for (let w = 0; w < 6; w++) { await new Promise((r) => setTimeout(r, 2500)); const c1 = cpu(); windows.push((c1 - c0).toFixed(2)); c0 = c1; }
const after = []; for (let i = 0; i < 5; i++) after.push(await small());
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)].toFixed(0);
console.log(JSON.stringify({ big: res, small_before_ms: med(baseline), small_beside_ms: { median: med(beside), max: Math.max(...beside).toFixed(0), n: beside.length }, small_after_ms: med(after), cpu_s_per_2500ms_after: windows, threads: readFileSync(`/proc/${server.pid}/status`,'utf8').match(/Threads:\s+(\d+)/)[1] }, null, 1));
server.kill();
