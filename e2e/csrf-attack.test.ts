// A page on another origin, opened in the same Chromium as the dashboard, tries what issue 12
// found working: approve a pending rollback (the rollback endpoint would be called), create a
// silence matching every alert, and ingest events — with fetch (no-cors, credentials included,
// text/plain), a JSON fetch (needs a CORS preflight), sendBeacon, and auto-submitted forms
// (text/plain and url-encoded). Run against the default open server (no keys) and against a
// keyed server where the victim is signed in to the dashboard (its session cookie present). The
// attack page is served from 127.0.0.1 on another port (same site: a SameSite=Strict cookie IS
// sent) and from localhost (another site). Afterwards nothing changed on the server; the
// refusals are counted in /metrics by route and status; the same approval made in the dashboard
// itself goes through. Screenshots: artifacts/screenshots/attack-*.png.
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey } from '../src/api/index.ts';
import type { InferlensServer } from '../src/main.ts';
import { NOW, startTenantServer } from '../test/two-tenants.ts';

const CHROMIUM = '/usr/bin/chromium';
const ROOT = path.resolve(import.meta.dirname, '..');
const SHOTS = path.join(ROOT, 'artifacts', 'screenshots');
const hasChromium = existsSync(CHROMIUM);

let tmp: string;
let dist: string;
let browser: Browser;
let attacker: Server;
let attackPort: number;
let rollback: Server;
let rollbackCalls = 0;
let rollbackUrl: string;
let attackHtml = '';

const listen = (s: Server) => new Promise<number>((r) => s.listen(0, '127.0.0.1', () => r((s.address() as AddressInfo).port)));

/** The attacker's page: every trick fires at `target`, results go to window.results and the page. */
function attackPage(target: string, actionId: string): string {
  const everything = JSON.stringify({ matchers: ['alertname=~".*"'], duration_s: 86_400 });
  const events = [0, 1, 2].map((i) => JSON.stringify({ ts: NOW - 1000 + i, model: 'attack', total_ms: 1, status: 'ok' })).join('\n');
  // The text/plain form trick: name + "=" + value is the body, so it can be made to parse as JSON.
  const [fname, fvalue] = [everything.slice(0, -1) + ',"x":"', '"}'];
  return `<!doctype html><html><head><title>running</title></head><body>
<h1>A page on another origin</h1><pre id="log"></pre>
<iframe name="sink" id="sink" style="width:600px;height:80px"></iframe>
<form id="f1" method="POST" action="${target}/v1/silences" enctype="text/plain" target="sink"><input name='${fname}' value='${fvalue}'></form>
<form id="f2" method="POST" action="${target}/v1/actions/${actionId}/approve" enctype="text/plain" target="sink"><input name='{"a":"' value='"}'></form>
<form id="f3" method="POST" action="${target}/v1/events" enctype="application/x-www-form-urlencoded" target="sink"><input name="row" value='${JSON.stringify({ ts: NOW, model: 'attack', total_ms: 1, status: 'ok' })}'></form>
<script>
const target = ${JSON.stringify(target)};
const log = (s) => { document.getElementById('log').textContent += s + '\\n'; };
window.results = {};
async function attempt(name, fn) {
  try { const r = await fn(); window.results[name] = r; log(name + ': sent, ' + r); }
  catch (e) { window.results[name] = 'blocked: ' + e.message; log(name + ': blocked by the browser (' + e.message + ')'); }
}
const noCors = (path, body, type) => fetch(target + path, { method: 'POST', mode: 'no-cors', credentials: 'include', ...(type ? { headers: { 'content-type': type } } : {}), body }).then((r) => 'opaque response (type ' + r.type + ', status hidden)');
(async () => {
  await attempt('approve (no-cors fetch, text/plain)', () => noCors('/v1/actions/${actionId}/approve', '{}', 'text/plain'));
  await attempt('silence everything (no-cors fetch)', () => noCors('/v1/silences', ${JSON.stringify(everything)}));
  await attempt('ingest (no-cors fetch)', () => noCors('/v1/events', ${JSON.stringify(events)}));
  await attempt('silence everything (JSON fetch, needs CORS)', () => fetch(target + '/v1/silences', { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json' }, body: ${JSON.stringify(everything)} }).then((r) => 'status ' + r.status));
  await attempt('approve (JSON fetch, needs CORS)', () => fetch(target + '/v1/actions/${actionId}/approve', { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json' }, body: '{}' }).then((r) => 'status ' + r.status));
  await attempt('ingest (sendBeacon)', async () => 'queued: ' + navigator.sendBeacon(target + '/v1/events', new Blob([${JSON.stringify(events)}], { type: 'text/plain' })));
  for (const id of ['f1', 'f2', 'f3']) {
    await attempt('form ' + id, () => new Promise((resolve) => { const f = document.getElementById('sink'); f.onload = () => resolve('submitted'); document.getElementById(id).submit(); setTimeout(() => resolve('submitted (no load event)'), 3000); }));
  }
  document.title = 'done';
})();
</script></body></html>`;
}

/** Refusals by route and status, from the server's own request histogram. */
async function refusals(server: InferlensServer, key?: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${server.url}/metrics`, key ? { headers: { authorization: `Bearer ${key}` } } : {})).text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^inferlens_http_request_duration_seconds_count\{route="([^"]+)",status="(\d+)"\} (\d+)/gm)) {
    if (Number(m[2]) >= 400 && /silences|approve|events/.test(m[1]!)) out[`${m[1]} ${m[2]}`] = Number(m[3]);
  }
  return out;
}

/** A canary erroring a third of the time: CanaryErrors fires and proposes a rollback that waits for approval. */
function startInferlens(dir: string, keys: ReturnType<typeof generateKey>[]): Promise<InferlensServer> {
  const admin = keys.find((k) => k.record.role === 'admin');
  return startTenantServer(dir, {
    server: { keys: keys.map((k) => k.record) },
    options: { uiDir: dist },
    ...(admin ? { key: admin.key } : {}),
    rule: `alert: CanaryErrors
condition: { kind: threshold, measure: error_rate, window: 10m, by: [model, model_version], op: '>', value: 0.1, min_count: 5 }
for: 0s
severity: critical
action: { type: rollback, params: { model: '{{ $labels.model }}', version: '{{ $labels.model_version }}' } }`,
    endpoints: { rollback: { url: rollbackUrl } },
    events: Array.from({ length: 30 }, (_, i) => ({
      ts: NOW - 5 * 60_000 + i * 1000,
      model: 'ranker',
      model_version: 'v2',
      total_ms: 10,
      status: i % 3 ? 'ok' : 'error',
    })),
  });
}

async function runAttack(context: BrowserContext, attackOrigin: string, target: string, actionId: string, shotName: string): Promise<Record<string, string>> {
  attackHtml = attackPage(target, actionId);
  const page = await context.newPage();
  await page.goto(`${attackOrigin}/attack.html`);
  await page.waitForFunction(() => document.title === 'done', undefined, { timeout: 30_000 });
  const results = (await page.evaluate(() => (window as unknown as { results: Record<string, string> }).results)) as Record<string, string>;
  await page.screenshot({ path: path.join(SHOTS, `${shotName}.png`), fullPage: true });
  await page.close();
  return results;
}

/** What the attack would have changed: the action, the rollback endpoint, silences, events, the audit log. */
async function unchanged(server: InferlensServer, actionId: string, auditBefore: number): Promise<void> {
  expect(server.alerting!.actions.list().find((a) => a.id === actionId)?.state).toBe('awaiting_approval');
  expect(rollbackCalls).toBe(0);
  expect(server.alerting!.silences.list()).toEqual([]);
  const stored = await server.store.aggregate({
    fromMs: NOW - 3_600_000,
    toMs: NOW + 60_000,
    filters: { model: 'attack' },
    groupBy: [],
    measures: [{ name: 'n', measure: { kind: 'n' } }],
    includeProbes: false,
    limit: 1,
  });
  expect(stored).toEqual([{ n: 0 }]);
  expect(server.audit.list({ limit: 100 }, { tenants: null }).filter((e) => e.action !== 'session.create')).toHaveLength(auditBefore);
}

describe.skipIf(!hasChromium)('a cross-origin attack page in Chromium', () => {
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    tmp = mkdtempSync(path.join(tmpdir(), 'inferlens-csrf-'));
    dist = path.join(tmp, 'dist');
    await build({ configFile: path.join(ROOT, 'web', 'vite.config.ts'), logLevel: 'warn', build: { outDir: dist, emptyOutDir: true } });
    rollback = createServer((req, res) => {
      rollbackCalls++;
      req.resume();
      res.end('{"ok":true}');
    });
    rollbackUrl = `http://127.0.0.1:${await listen(rollback)}/rollback`;
    attacker = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(attackHtml);
    });
    attackPort = await listen(attacker);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--host-resolver-rules=MAP rebind.test 127.0.0.1'],
    });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((r) => attacker?.close(r));
    await new Promise((r) => rollback?.close(r));
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('against the default open server: nothing is approved, silenced or ingested', async () => {
    rollbackCalls = 0;
    const server = await startInferlens(path.join(tmp, 'open'), []);
    try {
      const actionId = server.alerting!.actions.list()[0]!.id;
      const context = await browser.newContext();
      // The victim has the dashboard open.
      const dash = await context.newPage();
      await dash.goto(`${server.url}/alerts`);
      await dash.waitForSelector('[data-panel="alerts-actions"] button.approve');
      const results = {
        ...(await runAttack(context, `http://127.0.0.1:${attackPort}`, server.url, actionId, 'attack-open-same-site')),
        ...Object.fromEntries(
          Object.entries(await runAttack(context, `http://localhost:${attackPort}`, server.url, actionId, 'attack-open-cross-site')).map(([k, v]) => [
            `${k} [cross-site]`,
            v,
          ]),
        ),
      };
      // The browser blocks the JSON fetches (no CORS grant); everything else reaches the server…
      expect(results['silence everything (JSON fetch, needs CORS)']).toMatch(/^blocked/);
      expect(results['approve (JSON fetch, needs CORS)']).toMatch(/^blocked/);
      expect(results['approve (no-cors fetch, text/plain)']).toMatch(/opaque/);
      await unchanged(server, actionId, 0);
      // …and is refused there: 403 (Sec-Fetch-Site / Origin) on every change route, counted.
      const refused = await refusals(server);
      // Per page: approve by fetch and form, silence by fetch and form; ingest by fetch, beacon, form.
      expect(refused['/v1/actions/:id/approve 403']).toBe(4);
      expect(refused['/v1/silences 403']).toBe(4);
      expect(refused['/v1/events 403']).toBeGreaterThanOrEqual(4);
      // The dashboard's own approval goes through (the rollback endpoint is called once).
      await dash.click('[data-panel="alerts-actions"] button.approve');
      await dash.waitForSelector('[data-panel="alerts-audit"] tr[data-audit="action.approve"]');
      expect(rollbackCalls).toBe(1);
      await dash.screenshot({ path: path.join(SHOTS, 'attack-open-dashboard-after.png'), fullPage: true });
      await context.close();
    } finally {
      await server.stop();
    }
  });

  it('against a keyed server with the victim signed in: the session cookie is not enough', async () => {
    rollbackCalls = 0;
    const operator = generateKey({ name: 'alice', role: 'operate', nowMs: NOW });
    const admin = generateKey({ name: 'root', role: 'admin', nowMs: NOW });
    const server = await startInferlens(path.join(tmp, 'keyed'), [operator, admin]);
    try {
      const actionId = server.alerting!.actions.list()[0]!.id;
      const context = await browser.newContext();
      const dash: Page = await context.newPage();
      // Signing in through the dashboard: the key goes in, an HttpOnly cookie comes back.
      await dash.goto(`${server.url}/alerts`);
      await dash.waitForSelector('#signin-key');
      await dash.screenshot({ path: path.join(SHOTS, 'attack-keyed-signin.png'), fullPage: true });
      await dash.fill('#signin-key', operator.key);
      await dash.click('#signin-submit');
      await dash.waitForSelector('[data-panel="alerts-actions"] button.approve');
      expect(await dash.textContent('#principal')).toBe('alice · operate');
      const cookies = await context.cookies(server.url);
      expect(cookies).toMatchObject([{ name: 'inferlens_session', httpOnly: true, sameSite: 'Strict' }]);
      expect(await dash.evaluate(() => document.cookie)).toBe('');

      const results = await runAttack(context, `http://127.0.0.1:${attackPort}`, server.url, actionId, 'attack-keyed-same-site');
      await runAttack(context, `http://localhost:${attackPort}`, server.url, actionId, 'attack-keyed-cross-site');
      expect(results['approve (JSON fetch, needs CORS)']).toMatch(/^blocked/);
      await unchanged(server, actionId, 0);
      const refused = await refusals(server, admin.key);
      expect(refused['/v1/actions/:id/approve 403']).toBe(4);
      expect(refused['/v1/silences 403']).toBe(4);

      // A rebinding DNS name that points at the server is refused by the Host check.
      const rebind = await context.newPage();
      const port = new URL(server.url).port;
      const res = await rebind.goto(`http://rebind.test:${port}/v1/alerts`);
      expect(res!.status()).toBe(403);
      expect(await rebind.textContent('body')).toMatch(/does not answer to Host/);
      await rebind.close();

      // The signed-in dashboard approves with its CSRF token; the audit log names alice.
      await dash.click('[data-panel="alerts-actions"] button.approve');
      await dash.waitForSelector('[data-panel="alerts-audit"] tr[data-audit="action.approve"]');
      expect(rollbackCalls).toBe(1);
      expect(await dash.textContent('[data-panel="alerts-actions"] ul.trail')).toContain(`by alice (${operator.record.id})`);
      expect(await dash.textContent('[data-panel="alerts-audit"] tr[data-audit="action.approve"]')).toContain('alice · operate');
      await dash.screenshot({ path: path.join(SHOTS, 'attack-keyed-dashboard-after.png'), fullPage: true });

      // Signing out ends the session: the next load asks for a key again.
      await dash.click('#sign-out');
      await dash.waitForSelector('#signin-key');
      expect(await context.cookies(server.url)).toEqual([]);
      await context.close();
    } finally {
      await server.stop();
    }
  });
});
