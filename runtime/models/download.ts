// Streams one URL to a file, hashing on the way. Fails fast when the server cannot be reached
// (a connect timeout of a few seconds, so a blocked host hands over to the next source at
// once) and when a started transfer stalls.
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { createProgress } from './progress.js';

export interface DownloadOptions {
  /** Milliseconds to wait for the response headers. Default 5000. */
  connectTimeoutMs?: number;
  /** Milliseconds without a byte before giving up on a started body. Default 60000. */
  stallTimeoutMs?: number;
  /** Refuse a response whose Content-Length differs (checked before any byte is written). */
  expectedSize?: number;
  /** Progress label; omit for no progress. */
  label?: string;
  progressStream?: NodeJS.WritableStream | null;
}

export interface Downloaded {
  size: number;
  sha256: string;
}

/** Fetches `url` into `outPath` (created or truncated). */
export async function downloadFile(url: string, outPath: string, options: DownloadOptions = {}): Promise<Downloaded> {
  const { connectTimeoutMs = 5000, stallTimeoutMs = 60000 } = options;
  const abort = new AbortController();
  let timer = setTimeout(() => abort.abort(new Error(`no response within ${connectTimeoutMs / 1000} s`)), connectTimeoutMs);
  try {
    const response = await fetch(url, { signal: abort.signal, redirect: 'follow' });
    if (!response.ok || !response.body) throw new Error(`HTTP ${response.status} ${response.statusText}`.trim());
    const length = Number(response.headers.get('content-length') ?? NaN);
    if (options.expectedSize !== undefined && Number.isFinite(length) && length !== options.expectedSize) {
      await response.body.cancel();
      throw new Error(`server offers ${length} bytes, expected ${options.expectedSize}`);
    }

    const stalled = (): void => abort.abort(new Error(`no data for ${stallTimeoutMs / 1000} s`));
    clearTimeout(timer);
    timer = setTimeout(stalled, stallTimeoutMs);
    const progress = options.label === undefined
      ? undefined
      : createProgress({ label: options.label, total: Number.isFinite(length) ? length : undefined, stream: options.progressStream });
    const hash = createHash('sha256');
    let size = 0;
    const handle = await open(outPath, 'w');
    try {
      for await (const chunk of response.body) {
        timer.refresh();
        hash.update(chunk);
        await handle.write(chunk);
        size += chunk.length;
        progress?.update(size);
      }
    } catch (error) {
      progress?.abort();
      throw error;
    } finally {
      await handle.close();
    }
    progress?.done();
    return { size, sha256: hash.digest('hex') };
  } catch (error) {
    // An abort surfaces as the AbortError wrapper; the reason we gave is the useful part.
    if (abort.signal.aborted && abort.signal.reason instanceof Error) throw abort.signal.reason;
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** Fetches a small text resource (an index page), all of it within `timeoutMs`. */
export async function fetchText(url: string, timeoutMs = 15000): Promise<string> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new Error(`no complete response within ${timeoutMs / 1000} s`)), timeoutMs);
  try {
    const response = await fetch(url, { signal: abort.signal, redirect: 'follow', headers: { accept: 'text/html' } });
    if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}`.trim());
    return await response.text();
  } catch (error) {
    if (abort.signal.aborted && abort.signal.reason instanceof Error) throw abort.signal.reason;
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
