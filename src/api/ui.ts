/**
 * Serves the built dashboard (`web/dist`) from the same origin as the API, so the UI talks only to
 * the public HTTP API with no CORS. Contract:
 * - files under the dist folder with their content type; hashed assets (`/assets/*`) are cached
 *   for a year (`immutable`), everything else is revalidated (`no-cache`);
 * - any other GET that is not an API path (`/v1/*`, `/api/*`, `/otlp/*`, `/healthz`, `/readyz`,
 *   `/metrics`) and has no file extension gets `index.html`, so client routes (`/runtime?model=…`)
 *   reload; an unknown API path is a JSON 404, never the dashboard's HTML (a Prometheus-style
 *   `/api/v1/query` sent here by mistake must fail as JSON);
 * - a missing build answers 503 with the command that makes it, and never stops the server.
 * Call it after the API routes are registered: those match first.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Context, Hono } from 'hono';
import type { Route } from './routes.ts';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';

/**
 * The page may only run its own scripts and talk to its own origin: a captured sample that ever
 * reached the DOM as HTML still could not run (the UI renders samples as text; this is the second
 * fence). uPlot sets element styles from script, which CSP allows; inline style attributes are
 * allowed for the same library.
 */
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

const API_PREFIXES = ['/v1/', '/api/', '/otlp/'];
const API_PATHS = new Set(['/v1', '/api', '/healthz', '/readyz', '/metrics']);

function isApiPath(p: string): boolean {
  return API_PATHS.has(p) || API_PREFIXES.some((prefix) => p.startsWith(prefix));
}

async function fileOrNull(file: string): Promise<Buffer | null> {
  try {
    const s = await stat(file);
    if (!s.isFile()) return null;
    return await readFile(file);
  } catch {
    return null;
  }
}

/** The handler that serves the dashboard built into `distDir`. */
function uiHandler(distDir: string): (c: Context) => Promise<Response> {
  const root = path.resolve(distDir);

  const send = (c: Context, body: Buffer, file: string, cache: string) => {
    const type = CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
    const headers: Record<string, string> = { 'Content-Type': type, 'Cache-Control': cache, 'X-Content-Type-Options': 'nosniff' };
    if (type.startsWith('text/html')) {
      headers['Content-Security-Policy'] = CSP;
      headers['Referrer-Policy'] = 'no-referrer';
    }
    return c.body(new Uint8Array(body), 200, headers);
  };

  const index = async (c: Context) => {
    const file = path.join(root, 'index.html');
    const body = await fileOrNull(file);
    if (!body) {
      return c.text(`the dashboard is not built: run \`npm run build:web\` (looked in ${root})\n`, 503, { 'Cache-Control': REVALIDATE });
    }
    return send(c, body, file, REVALIDATE);
  };

  const handler = async (c: Context) => {
    let urlPath: string;
    try {
      urlPath = decodeURIComponent(c.req.path);
    } catch {
      return c.text('bad path encoding\n', 400);
    }
    if (isApiPath(urlPath)) {
      return c.json({ status: 'error', error_type: 'not_found', error: `no route ${c.req.method} ${c.req.path}` }, 404);
    }
    if (urlPath === '/' || urlPath === '/index.html') return index(c);
    // Resolve inside the dist folder only: `..` or a NUL never leaves it.
    const file = path.resolve(root, '.' + path.posix.normalize(urlPath));
    if (urlPath.includes('\0') || (file !== root && !file.startsWith(root + path.sep))) return c.text('not found\n', 404);
    const body = await fileOrNull(file);
    if (body) return send(c, body, file, urlPath.startsWith('/assets/') ? IMMUTABLE : REVALIDATE);
    // A path with an extension is a file request: a missing file is a 404, not the app shell.
    if (path.extname(urlPath) !== '') return c.text('not found\n', 404);
    return index(c);
  };
  return handler;
}

/** Mounts the dashboard built into `distDir` on a bare app (tests of the file serving itself). */
export function mountUi(app: Hono, distDir: string): void {
  app.get('*', uiHandler(distDir));
}

/** The dashboard as a declared route: public, since the page itself holds no data (it signs in). */
export function uiRoute(distDir: string): Route {
  return { method: 'GET', path: '*', access: 'public', handler: uiHandler(distDir) };
}
