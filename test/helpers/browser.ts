// A real browser for the page tests: Debian's chromium driven by playwright-core, headless,
// with a fresh profile in a temporary folder. A missing chromium fails the test, naming the fix.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** Flags known to work as root in containers; no network of its own (updates, sync, QUIC). */
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchBrowser(viewport = { width: 1280, height: 800 }): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: the chat page's browser tests need Debian's chromium (apt-get install -y --no-install-recommends chromium; .ci/run installs it)`);
  }
  const profile = await mkdtemp(join(tmpdir(), 'lmforge-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport });
  // tsx compiles the tests with esbuild's keepNames, which wraps a function named inside a
  // page.evaluate callback in a `__name(fn, "name")` helper that the page does not have.
  await context.addInitScript({ content: 'globalThis.__name = (target) => target;' });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
