// mountUi (src/api/ui.ts) without a port or a browser, and the rule that web/ has no HTML sinks.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mountUi } from '../src/api/ui.ts';

let dist: string;
let app: Hono;

beforeAll(() => {
  dist = mkdtempSync(path.join(tmpdir(), 'inferlens-ui-'));
  mkdirSync(path.join(dist, 'assets'));
  writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>inferlens</title>');
  writeFileSync(path.join(dist, 'assets', 'index-abc123.js'), 'export {};');
  writeFileSync(path.join(dist, 'assets', 'index-abc123.css'), 'body{}');
  writeFileSync(path.join(dist, 'secret-neighbour.txt'), 'x');
  app = new Hono();
  app.get('/v1/labels/:d', (c) => c.json({ status: 'success', data: [] }));
  mountUi(app, dist);
});
afterAll(() => rmSync(dist, { recursive: true, force: true }));

describe('mountUi', () => {
  it('serves index.html for / and for client routes, revalidated, with a CSP', async () => {
    for (const p of ['/', '/runtime', '/release?baseline=v1', '/alerts/whatever']) {
      const res = await app.request(p);
      expect(res.status, p).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(await res.text()).toContain('<title>inferlens</title>');
    }
  });

  it('serves hashed assets with their type and a year of cache', async () => {
    const js = await app.request('/assets/index-abc123.js');
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(js.headers.get('x-content-type-options')).toBe('nosniff');
    const css = await app.request('/assets/index-abc123.css');
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
  });

  it('answers 404 for a missing file, and never the app shell', async () => {
    const res = await app.request('/assets/missing-000.js');
    expect(res.status).toBe(404);
  });

  it('leaves API paths to the API: a route that exists answers, an unknown one is a JSON 404', async () => {
    expect(await (await app.request('/v1/labels/model')).json()).toEqual({ status: 'success', data: [] });
    // /api/* too: a Prometheus-style query sent to inferlens by mistake gets JSON, not the dashboard.
    for (const p of ['/v1/nope', '/api/v1/query?query=up', '/api', '/v1']) {
      const res = await app.request(p);
      expect(res.status, p).toBe(404);
      expect(res.headers.get('content-type'), p).toMatch(/^application\/json/);
      expect(((await res.json()) as { error_type: string }).error_type, p).toBe('not_found');
    }
  });

  it('does not leave the dist folder', async () => {
    for (const p of ['/../etc/passwd', '/%2e%2e/%2e%2e/etc/passwd', '/assets/..%2f..%2fetc%2fpasswd']) {
      const res = await app.request(p);
      expect(res.status === 404 || (res.status === 200 && (await res.text()).includes('<title>inferlens</title>')), p).toBe(true);
    }
  });

  it('says how to build the dashboard when it is not built', async () => {
    const bare = new Hono();
    mountUi(bare, path.join(dist, 'nowhere'));
    const res = await bare.request('/runtime');
    expect(res.status).toBe(503);
    expect(await res.text()).toContain('npm run build:web');
  });
});

describe('web/ renders text, never HTML', () => {
  const SINKS = /\.(innerHTML|outerHTML)\s*=|insertAdjacentHTML|document\.write|createContextualFragment|new\s+Function\s*\(|\beval\s*\(/;
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((n) => {
      const p = path.join(dir, n);
      return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : [];
    });
  it('has no HTML sink in its sources', () => {
    const files = walk(path.resolve(import.meta.dirname, '..', 'web', 'src'));
    expect(files.length).toBeGreaterThan(5);
    const hits = files.flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .map((line, i) => ({ f, i, line }))
        .filter((x) => SINKS.test(x.line)),
    );
    expect(hits.map((x) => `${path.relative(process.cwd(), x.f)}:${x.i + 1}: ${x.line.trim()}`)).toEqual([]);
  });
});
