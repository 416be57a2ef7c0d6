// Where a worker's code is: the compiled .js beside the caller (dist/), or, running from source, the boot
// file beside this module, which registers tsx in the worker and then loads the .ts (loaders do not
// reach workers on Node 20). `name` is relative to the caller's folder.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export function workerEntry(name: string, callerUrl: string): { url: URL; workerData?: { tsEntry: string } } {
  const source = new URL(`./${name}.ts`, callerUrl);
  if (!existsSync(fileURLToPath(source))) return { url: new URL(`./${name}.js`, callerUrl) };
  return { url: new URL('./ts-worker-boot.mjs', import.meta.url), workerData: { tsEntry: source.href } };
}
