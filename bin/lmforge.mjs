#!/usr/bin/env node
// Entry point: runs the esbuild bundle when one was built, else the TypeScript sources through tsx.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bundle = `${root}dist/cli.js`;
if (existsSync(bundle)) {
  await import(pathToFileURL(bundle).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(`${root}cli/main.ts`).href);
}
