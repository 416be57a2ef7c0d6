#!/usr/bin/env node
// Entry point. In a checkout (the TypeScript sources are there, with tsx) it runs the sources,
// so a stale dist/ never answers for them; the installed package has only dist/, built by tsc.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const source = `${root}cli/main.ts`;
const tsx = existsSync(source) ? await import('tsx/esm/api').catch(() => undefined) : undefined;
if (tsx) {
  tsx.register();
  await import(pathToFileURL(source).href);
} else {
  await import(pathToFileURL(`${root}dist/cli/main.js`).href);
}
