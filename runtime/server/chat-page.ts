// The web chat page: `/` is ui/index.html, `/ui/NAME` the page's other files (plain ES modules
// and CSS, no bundling), served by sirv. The files sit two folders above this module both in a
// checkout (ui/ beside runtime/) and in the package (build.mjs copies ui/ to dist/ui/ beside
// dist/runtime/), so the same relative URL finds them either way.
import { existsSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import type { Request } from 'polka';
import sirv from 'sirv';

export const CHAT_PAGE_DIR = fileURLToPath(new URL('../../ui/', import.meta.url));

/** Where the page's other files are served from; the page and its key prompt need no API key. */
export const CHAT_PAGE_PREFIX = '/ui/';

/**
 * The page may fetch only from this server and run only its own scripts: no CDN, no inline
 * script, nothing framed. A reply is model output shown as HTML, so this also limits what a
 * rendering mistake could do.
 */
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Whether a request is for the page; anything else goes on to the API's routes. */
export function isChatPagePath(path: string): boolean {
  return path === '/' || path.startsWith(CHAT_PAGE_PREFIX);
}

/** A handler for GET and HEAD of the page's paths; `notFound` answers a name that is not one of its files. */
export function chatPageHandler(notFound: (req: Request, res: ServerResponse) => void, dir = CHAT_PAGE_DIR) {
  if (!existsSync(`${dir}index.html`)) throw new Error(`the chat page's files are missing from ${dir} (build.mjs copies ui/ there; --no-ui serves without it)`);
  const serve = sirv(dir, {
    etag: true,
    // Files are read once at start-up; a browser revalidates each load, so an upgrade shows at once.
    maxAge: 0,
    setHeaders: (res) => {
      res.setHeader('content-security-policy', CONTENT_SECURITY_POLICY);
      res.setHeader('x-content-type-options', 'nosniff');
      res.setHeader('referrer-policy', 'no-referrer');
    },
  });
  return (req: Request, res: ServerResponse): void => {
    const original = req.url;
    // sirv reads req.url: `/` is the index, `/ui/NAME` the file NAME; the index has no second
    // name (from `/ui/` its relative links would point into /ui/ui/).
    const name = req.path === '/' ? '/index.html' : req.path.slice(CHAT_PAGE_PREFIX.length - 1);
    // As sirv will read it: `%69ndex.html` is index.html too.
    let decoded: string;
    try {
      decoded = decodeURIComponent(name);
    } catch {
      return notFound(req, res);
    }
    if (req.path !== '/' && (decoded === '/' || decoded.endsWith('/') || decoded === '/index.html')) return notFound(req, res);
    req.url = name;
    serve(req, res, () => {
      req.url = original;
      notFound(req, res);
    });
  };
}
