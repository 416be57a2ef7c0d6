// CORS exactly as the launch options say: allowed origins, methods and headers ("*" = any),
// credentials only with --allow-credentials, and preflight answers for OPTIONS.
import type { IncomingMessage } from 'node:http';

export interface CorsOptions {
  allowCredentials: boolean;
  allowedOrigins: string[];
  allowedMethods: string[];
  allowedHeaders: string[];
}

const ANY_METHODS = 'DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT';

export class CorsPolicy {
  constructor(private readonly options: CorsOptions) {}

  private originAllowed(origin: string): boolean {
    return this.options.allowedOrigins.includes('*') || this.options.allowedOrigins.includes(origin);
  }

  /** Headers for an ordinary (non-preflight) response, or none when the request has no allowed Origin. */
  responseHeaders(req: IncomingMessage): Record<string, string> {
    const origin = req.headers.origin;
    if (!origin || !this.originAllowed(origin)) return {};
    // With credentials a browser refuses "*": echo the origin instead.
    const anyOrigin = this.options.allowedOrigins.includes('*') && !this.options.allowCredentials;
    return {
      'access-control-allow-origin': anyOrigin ? '*' : origin,
      ...(anyOrigin ? {} : { vary: 'Origin' }),
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
