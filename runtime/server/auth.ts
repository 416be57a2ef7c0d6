// API keys (`--api-key`, LMFORGE_API_KEY). With keys set, every request outside the open
// endpoints must carry `Authorization: Bearer KEY`, else it gets a 401 in OpenAI's envelope.
// The presented key is hashed and compared with every key's digest by timingSafeEqual: equal
// lengths whatever was sent, and no early exit, so timing tells neither a key nor which one matched.
import { createHash, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../api/api-error.js';

/**
 * Open with keys set: the liveness probe and the API's own description (no data, and load
 * balancers and generated clients read them without credentials). /metrics is not open: it
 * shows traffic, as llama-server also keeps it behind the key; Prometheus sends the key with
 * `authorization: {credentials: KEY}` in its scrape config.
 */
export const OPEN_PATHS: ReadonlySet<string> = new Set(['/health', '/docs', '/openapi.json']);

/**
 * Open with keys set while the chat page is served (GET and HEAD only): the page's static files
 * hold no data and are where a user types the key; every API call the page makes sends it.
 * `/ui/*` is every path under `/ui/`.
 */
export const CHAT_PAGE_OPEN_PATHS: readonly string[] = ['/', '/ui/*'];

/** Every path a key does not guard, as the help and start-up name them: the list `refusal` reads. */
export function openPaths(chatPage: boolean): string[] {
  return [...OPEN_PATHS, ...(chatPage ? CHAT_PAGE_OPEN_PATHS : [])];
}

const matchesPath = (pattern: string, path: string) => (pattern.endsWith('/*') ? path.startsWith(pattern.slice(0, -1)) : path === pattern);

const digest = (key: string) => createHash('sha256').update(key, 'utf8').digest();

/** Keys from flag values and/or an environment value: each may hold several, comma-separated. */
/** Whether a key can be sent at all: an HTTP header carries printable ASCII as such (Node reads other bytes as Latin-1, so a UTF-8 key never matched). */
export function isSendableKey(key: string): boolean {
  return /^[\x20-\x7e]+$/.test(key);
}

export function parseApiKeys(values: readonly string[]): string[] {
  return values.flatMap((value) => value.split(',')).map((key) => key.trim()).filter((key) => key !== '');
}

export class ApiKeys {
  private readonly digests: Buffer[];

  /** `chatPage`: whether the server serves the chat page, whose paths are then open. */
  constructor(keys: readonly string[], private readonly chatPage = false) {
    this.digests = keys.map(digest);
  }

  /** Whether any key is set (without one, every request is let through). */
  get required(): boolean {
    return this.digests.length > 0;
  }

  /** Whether a request needs no key: an open endpoint, or a GET or HEAD of the chat page. */
  isOpen(path: string, method = 'GET'): boolean {
    if (OPEN_PATHS.has(path)) return true;
    return this.chatPage && (method === 'GET' || method === 'HEAD') && CHAT_PAGE_OPEN_PATHS.some((pattern) => matchesPath(pattern, path));
  }

  /** The 401 for a `method` request to `path` with this Authorization header, or undefined to let it through. */
  refusal(path: string, authorization: string | undefined, method = 'GET'): ApiError | undefined {
    if (!this.required || this.isOpen(path, method)) return undefined;
    const presented = /^Bearer[ \t]+(.+)$/i.exec(authorization?.trim() ?? '')?.[1]?.trim();
    if (presented === undefined) {
      return new ApiError(
        401,
        "You didn't provide an API key. This server needs one in an Authorization header: Authorization: Bearer YOUR_KEY.",
        'invalid_request_error',
        null,
        null,
      );
    }
    const candidate = digest(presented);
    let matched = false;
    for (const known of this.digests) matched = timingSafeEqual(candidate, known) || matched;
    if (matched) return undefined;
    // The key is not echoed back: it may be a real key meant for another service.
    return new ApiError(401, 'Incorrect API key provided.', 'invalid_request_error', null, 'invalid_api_key');
  }
}
