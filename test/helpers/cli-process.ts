// `lmforge` as users run it: a child process of bin/lmforge.mjs, its output collected, and a
// free loopback port to serve on.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../../bin/lmforge.mjs', import.meta.url));

export interface CliRun {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
}

/** Starts `lmforge ARGS`; `env` adds to (or, with undefined values, removes from) this process's environment. */
export function startCli(args: string[], env: Record<string, string | undefined> = {}): CliRun {
  const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  child.stderr!.on('data', (chunk) => (err += chunk));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exit };
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Waits (up to 30 s) for a line of standard output; fails at once if the process exits. */
export async function waitForLine(run: CliRun, pattern: RegExp): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (pattern.test(run.stdout())) return;
    if (run.child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no line matching ${pattern}; stdout: ${run.stdout()} stderr: ${run.stderr()}`);
}
