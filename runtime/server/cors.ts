// CORS exactly as the launch options say: allowed origins, methods and headers ("*" = any),
// credentials only with --allow-credentials, and preflight answers for OPTIONS.
import type { IncomingMessage } from 'node:http';

export interface CorsOptions {
  allowCredentials: boolean;
  allowedOrigins: string[];
  allowedMethods: string[];
  allowedHeaders: string[];
}

/** The kinds of entry a CORS list holds. */
export type CorsEntries = 'origins' | 'methods' | 'headers';
export type CorsListOption = Exclude<keyof CorsOptions, 'allowCredentials'>;

/**
 * Each CORS list by its createServer option: the serve flag that sets it, the kind of its
 * entries (which corsEntryProblem checks) and an example, so the CLI and the library name it alike.
 */
export const CORS_LISTS: Readonly<Record<CorsListOption, { flag: string; entries: CorsEntries; example: string }>> = {
  allowedOrigins: { flag: '--allowed-origins', entries: 'origins', example: '["http://localhost:3000"]' },
  allowedMethods: { flag: '--allowed-methods', entries: 'methods', example: '["GET", "POST"]' },
  allowedHeaders: { flag: '--allowed-headers', entries: 'headers', example: '["Authorization", "Content-Type"]' },
};

/** RFC 9110's token: what a method or a header name is. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** An origin of a scheme URL has no origin for (chrome-extension://ID, tauri://localhost, app://x): sent as written. */
const OTHER_SCHEME_ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/[^/?#\s*]+$/;

/**
 * Why an entry of a CORS list can never match, or undefined: a method or header that is not a
 * token, an origin that is not one as browsers send it (an http(s) origin with a path, a slash,
 * capitals or its default port: "http://localhost:3000/" matched nothing, unsaid), a pattern
 * ("https://*.example.com": entries are compared whole). "*" is any; "null" is what a file page
 * or a sandboxed frame sends, and an extension's or app's own scheme is sent as written.
 */
export function corsEntryProblem(list: CorsEntries, entry: string): string | undefined {
  if (entry === '*') return undefined;
  if (list !== 'origins') return TOKEN.test(entry) ? undefined : `${JSON.stringify(entry)} is not ${list === 'methods' ? 'an HTTP method' : 'a header name'}`;
  if (entry === 'null') return undefined;
  if (entry.includes('*')) return `${JSON.stringify(entry)} is a pattern, and origins are compared whole: list each one, or "*" for any`;
  let url: URL | undefined;
  try {
    url = new URL(entry);
  } catch {
    url = undefined;
  }
  if (url && (url.protocol === 'http:' || url.protocol === 'https:')) {
    return url.origin === entry ? undefined : `${JSON.stringify(entry)} is not an origin as browsers send it; write ${JSON.stringify(url.origin)}`;
  }
  // An http(s) origin the URL parser refuses (a port past 65535, no host) never arrives.
  if (/^https?:/i.test(entry)) return `${JSON.stringify(entry)} is not an origin such as "http://localhost:3000"`;
  return OTHER_SCHEME_ORIGIN.test(entry) ? undefined : `${JSON.stringify(entry)} is not an origin such as "http://localhost:3000" or "chrome-extension://ID"`;
}

const ANY_METHODS = 'DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT';

/** Whether the page that sent the request is this server's own (its Origin names the Host it asked). */
function isSameOrigin(origin: string, req: IncomingMessage): boolean {
  const host = req.headers.host?.toLowerCase();
  const page = origin.toLowerCase();
  return host !== undefined && (page === `http://${host}` || page === `https://${host}`);
}

export class CorsPolicy {
  constructor(private readonly options: CorsOptions) {}

  private originAllowed(origin: string): boolean {
    return this.options.allowedOrigins.includes('*') || this.options.allowedOrigins.includes(origin);
  }

  /**
   * Why a cross-origin request (not a preflight) is refused, or undefined: a browser sends a
   * "simple" POST (a text/plain body) without asking first, so an origin or method the options
   * leave out would still have run it, answer unread. Same-origin requests (the chat page's) and
   * those without an Origin (not from a browser page) pass.
   */
  refusal(req: IncomingMessage): string | undefined {
    const origin = req.headers.origin;
    if (origin === undefined || isSameOrigin(origin, req)) return undefined;
    if (!this.originAllowed(origin)) return `Origin ${origin} is not allowed here (--allowed-origins)`;
    const { allowedMethods } = this.options;
    const method = (req.method ?? 'GET').toUpperCase();
    const listed = allowedMethods.map((m) => m.toUpperCase());
    // Every GET route answers HEAD: a listed GET lists it.
    if (!allowedMethods.includes('*') && !listed.includes(method) && !(method === 'HEAD' && listed.includes('GET'))) return `Method ${method} is not allowed from another origin (--allowed-methods)`;
    return undefined;
  }

  /** Headers for an ordinary (non-preflight) response: Vary alone when the request has no allowed Origin. */
  responseHeaders(req: IncomingMessage): Record<string, string> {
    const origin = req.headers.origin;
    // With credentials a browser refuses "*": echo the origin instead.
    const anyOrigin = this.options.allowedOrigins.includes('*') && !this.options.allowCredentials;
    // The answer depends on Origin whenever it is not "*": a shared cache must key on it.
    const vary: Record<string, string> = anyOrigin ? {} : { vary: 'Origin' };
    if (!origin || !this.originAllowed(origin)) return vary;
    return {
      'access-control-allow-origin': anyOrigin ? '*' : origin,
      ...vary,
      ...(this.options.allowCredentials ? { 'access-control-allow-credentials': 'true' } : {}),
      // A page may read which request it was (and a 503's back-off), not only the safelisted headers.
      'access-control-expose-headers': 'x-request-id, retry-after',
    };
  }

  isPreflight(req: IncomingMessage): boolean {
    return req.method === 'OPTIONS' && req.headers.origin !== undefined && req.headers['access-control-request-method'] !== undefined;
  }

  /** The status and headers answering a preflight; 400 when the origin, method or a header is not allowed. */
  preflight(req: IncomingMessage): { status: number; headers: Record<string, string>; problem?: string } {
    const origin = req.headers.origin!;
    const method = String(req.headers['access-control-request-method']).toUpperCase();
    const requested = String(req.headers['access-control-request-headers'] ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean);
    const { allowedMethods, allowedHeaders } = this.options;
    const anyMethod = allowedMethods.includes('*');
    const anyHeader = allowedHeaders.includes('*');
    const headers: Record<string, string> = {
      ...this.responseHeaders(req),
      'access-control-allow-methods': anyMethod ? ANY_METHODS : allowedMethods.join(', '),
      'access-control-max-age': '600',
    };
    if (anyHeader ? requested.length > 0 : allowedHeaders.length > 0) {
      headers['access-control-allow-headers'] = anyHeader ? requested.join(', ') : allowedHeaders.join(', ');
    }
    const problems: string[] = [];
    if (!this.originAllowed(origin)) problems.push('origin');
    if (!anyMethod && !allowedMethods.map((m) => m.toUpperCase()).includes(method)) problems.push('method');
    const lowerAllowed = allowedHeaders.map((h) => h.toLowerCase());
    if (!anyHeader && requested.some((h) => !lowerAllowed.includes(h))) problems.push('headers');
    return problems.length === 0
      ? { status: 200, headers }
      : { status: 400, headers, problem: `Disallowed CORS ${problems.join(', ')}` };
  }
}
