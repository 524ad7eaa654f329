import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isLoopbackName } from './app.ts';
import { createAuditLog } from './audit.ts';
import { createKeyring, generateKey, writeKeysFile } from './keys.ts';
import type { Route } from './routes.ts';
import { testApi } from './api.test-support.ts';

const T0 = Date.parse('2026-03-02T10:00:00Z');
const ok = (c: { json: (x: unknown) => Response }) => c.json({ status: 'success', data: 'done' });
const ROUTES: Route[] = [
  { method: 'POST', path: '/v1/test/change', access: 'operate', audit: 'test.change', handler: (c) => ok(c) },
  { method: 'DELETE', path: '/v1/test/change', access: 'operate', audit: 'test.delete', handler: (c) => ok(c) },
  { method: 'GET', path: '/v1/test/read', access: 'read', handler: (c) => c.json({ status: 'success', data: c.var.principal }) },
];
const JSON_TYPE = { 'content-type': 'application/json' };

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

describe('state changes from another origin (an open server: no keys)', () => {
  const { app } = testApi({ routes: [ROUTES] });
  const change = (headers: Record<string, string>, body: string | undefined = '{}') =>
    app.request('/v1/test/change', { method: 'POST', headers, ...(body !== undefined ? { body } : {}) });

  it('refuses the bodies a page can send without a CORS preflight', async () => {
    for (const type of ['text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const res = await change({ 'content-type': type });
      expect(res.status, type).toBe(415);
      expect(((await res.json()) as { error: string }).error).toMatch(/takes Content-Type application\/json/);
    }
    expect((await change({})).status).toBe(415);
    expect((await change({}, undefined)).status).toBe(415);
    expect((await change(JSON_TYPE)).status).toBe(200);
    expect((await change({ 'content-type': 'application/json; charset=utf-8' })).status).toBe(200);
    // DELETE is never a simple request; without a body it needs no content type.
    expect((await app.request('/v1/test/change', { method: 'DELETE' })).status).toBe(200);
  });

  it('refuses a foreign Origin and a cross-site Sec-Fetch-Site', async () => {
    expect((await change({ ...JSON_TYPE, origin: 'http://evil.example' })).status).toBe(403);
    expect((await change({ ...JSON_TYPE, origin: 'null' })).status).toBe(403);
    expect((await change({ ...JSON_TYPE, origin: 'http://localhost:9999' })).status).toBe(403);
    expect((await change({ ...JSON_TYPE, origin: 'http://localhost' })).status).toBe(200);
    expect((await change({ ...JSON_TYPE, 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    // Another port of the same host is the same site, and still another origin.
    expect((await change({ ...JSON_TYPE, 'sec-fetch-site': 'same-site' })).status).toBe(403);
    expect((await change({ ...JSON_TYPE, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
  });

  it('answers only to loopback names when told to (DNS rebinding)', async () => {
    const fenced = testApi({ routes: [ROUTES], allowedHost: isLoopbackName }).app;
    const get = (host: string) => fenced.request('http://x/v1/test/read', { headers: { host } });
    expect((await get('evil.example:7070')).status).toBe(403);
    expect((await get('localhost:7070')).status).toBe(200);
    expect((await get('127.0.0.1:7070')).status).toBe(200);
    expect((await get('[::1]:7070')).status).toBe(200);
    expect((await get('app.localhost')).status).toBe(200);
    expect((await get('127.0.0.1.evil.example')).status).toBe(403);
  });
});

describe('keys and dashboard sessions', () => {
  function keyed() {
    let now = T0;
    const dir = mkdtempSync(join(tmpdir(), 'inferlens-keys-'));
    dirs.push(dir);
    const file = join(dir, 'keys.json');
    const ops = generateKey({ name: 'alice', role: 'operate', nowMs: T0 });
    const reader = generateKey({ name: 'bob', role: 'read', tenants: ['acme'], nowMs: T0 });
    writeKeysFile(file, [ops.record, reader.record]);
    const keyring = createKeyring({ file, now: () => now });
    const api = testApi({ routes: [ROUTES], keyring, now: () => now });
    return { ...api, file, ops, reader, keyring, advance: (ms: number) => (now += ms) };
  }

  it('stores a hash, compares the whole key, and follows the keys file', async () => {
    const { keyring, ops, reader, file, advance } = keyed();
    expect(readFileSync(file, 'utf8')).not.toContain(ops.key.slice(17));
    expect(keyring.authenticate(ops.key)).toEqual({ id: ops.record.id, name: 'alice', role: 'operate', tenants: null });
    expect(keyring.authenticate(reader.key)).toMatchObject({ role: 'read', tenants: ['acme'] });
    const last = ops.key.at(-1) === 'A' ? 'B' : 'A';
    expect(keyring.authenticate(ops.key.slice(0, -1) + last)).toBeUndefined();
    expect(keyring.authenticate(`ilk_${ops.record.id}_`)).toBeUndefined();
    expect(keyring.authenticate('')).toBeUndefined();
    writeKeysFile(file, [reader.record]);
    advance(1500);
    expect(keyring.authenticate(ops.key)).toBeUndefined();
    expect(keyring.enabled()).toBe(true);
  });

  it('a wrong key is a 401; a role without the permission a 403 naming both', async () => {
    const { app, ops, reader } = keyed();
    expect((await app.request('/v1/test/read')).status).toBe(401);
    expect((await app.request('/v1/test/read', { headers: { authorization: 'Bearer ilk_000000000000_nope' } })).status).toBe(401);
    const denied = await app.request('/v1/test/change', { method: 'POST', body: '{}', headers: { ...JSON_TYPE, authorization: `Bearer ${reader.key}` } });
    expect(denied.status).toBe(403);
    expect(((await denied.json()) as { error: string }).error).toBe('key "bob" has role read; POST /v1/test/change needs operate');
    expect((await app.request('/v1/test/change', { method: 'POST', body: '{}', headers: { ...JSON_TYPE, authorization: `Bearer ${ops.key}` } })).status).toBe(
      200,
    );
  });

  it('signs in to an HttpOnly SameSite=Strict cookie; changes need its CSRF token; signs out', async () => {
    const { app, ops, audit, file, advance } = keyed();
    expect((await app.request('/v1/session')).status).toBe(401);
    expect((await app.request('/v1/session', { method: 'POST', body: JSON.stringify({ key: 'ilk_000000000000_nope' }), headers: JSON_TYPE })).status).toBe(401);
    // Signing in is a state change too: not from a form.
    expect(
      (await app.request('/v1/session', { method: 'POST', body: `key=${ops.key}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } })).status,
    ).toBe(415);
    const signIn = await app.request('/v1/session', { method: 'POST', body: JSON.stringify({ key: ops.key }), headers: JSON_TYPE });
    expect(signIn.status).toBe(200);
    const setCookie = signIn.headers.get('set-cookie')!;
    expect(setCookie).toMatch(/^inferlens_session=[A-Za-z0-9_-]{43};/);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    expect(setCookie).toMatch(/Path=\//);
    const cookie = setCookie.split(';')[0]!;
    const { csrf_token: token } = ((await signIn.json()) as { data: { csrf_token: string } }).data;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const session = (await (await app.request('/v1/session', { headers: { cookie } })).json()) as { data: unknown };
    expect(session.data).toMatchObject({ principal: { name: 'alice', role: 'operate' }, via: 'session', csrf_token: token });
    const change = (headers: Record<string, string>) =>
      app.request('/v1/test/change', { method: 'POST', body: '{}', headers: { ...JSON_TYPE, cookie, ...headers } });
    expect((await change({})).status).toBe(403);
    expect((await change({ 'x-csrf-token': token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A') })).status).toBe(403);
    expect((await change({ 'x-csrf-token': token })).status).toBe(200);
    expect(audit.list({ limit: 5 }, { tenants: null }).map((e) => [e.action, e.via, e.principal.name])).toEqual([
      ['test.change', 'session', 'alice'],
      ['session.create', 'session', 'alice'],
    ]);

    // Revoking the key ends its sessions.
    writeKeysFile(file, []);
    advance(1500);
    expect((await app.request('/v1/test/read', { headers: { cookie } })).status).toBe(401);
  });

  it('signing out clears the cookie and ends the session', async () => {
    const { app, ops } = keyed();
    const signIn = await app.request('/v1/session', { method: 'POST', body: JSON.stringify({ key: ops.key }), headers: JSON_TYPE });
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    const { csrf_token: token } = ((await signIn.json()) as { data: { csrf_token: string } }).data;
    expect((await app.request('/v1/session', { method: 'DELETE', headers: { cookie } })).status).toBe(403);
    const out = await app.request('/v1/session', { method: 'DELETE', headers: { cookie, 'x-csrf-token': token } });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/inferlens_session=;.*Max-Age=0/);
    expect((await app.request('/v1/test/read', { headers: { cookie } })).status).toBe(401);
  });

  it('sessions expire', async () => {
    const { app, ops, advance } = keyed();
    const signIn = await app.request('/v1/session', { method: 'POST', body: JSON.stringify({ key: ops.key }), headers: JSON_TYPE });
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    advance(12 * 3_600_000 - 1);
    expect((await app.request('/v1/test/read', { headers: { cookie } })).status).toBe(200);
    advance(1);
    expect((await app.request('/v1/test/read', { headers: { cookie } })).status).toBe(401);
  });
});

describe('the audit log file', () => {
  it('appends one JSON line per change, survives a restart and a torn last line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'inferlens-audit-'));
    dirs.push(dir);
    const file = join(dir, 'audit.jsonl');
    const entry = (i: number, tenants: string[] | null) => ({
      ts: new Date(T0 + i * 1000).toISOString(),
      action: 'silence.create',
      route: 'POST /v1/silences',
      principal: { id: 'k', name: 'alice', role: 'operate' as const, tenants },
      via: 'key' as const,
      target: `s${i}`,
      tenants,
      remote: '127.0.0.1',
      user_agent: null,
      status: 200,
    });
    const log = createAuditLog({ file });
    log.append(entry(1, null));
    log.append(entry(2, ['acme']));
    log.close();
    writeFileSync(file, readFileSync(file, 'utf8') + '\n{"ts":"2026-03-02T10:00:0', { flag: 'w' });
    const again = createAuditLog({ file });
    again.append(entry(3, ['globex']));
    expect(again.list({ limit: 10 }, { tenants: null }).map((e) => e.target)).toEqual(['s3', 's2', 's1']);
    expect(again.list({ limit: 10 }, { tenants: ['acme'] }).map((e) => e.target)).toEqual(['s2']);
    expect(again.list({ limit: 10, fromMs: T0 + 2000 }, { tenants: null }).map((e) => e.target)).toEqual(['s3', 's2']);
    again.close();
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    expect(lines).toHaveLength(4);
    expect(JSON.parse(lines[3]!)).toMatchObject({ target: 's3' });
  });
});
