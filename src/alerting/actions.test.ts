import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActions } from './actions.ts';
import type { Alert } from './alert-state.ts';
import { createManualClock } from './clock.ts';

const got: { url: string; body: unknown }[] = [];
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    got.push({ url: req.url ?? '', body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
    res.statusCode = req.url === '/admin/fail' ? 400 : 200;
    res.end(JSON.stringify({ ok: req.url !== '/admin/fail' }));
  });
});
let base = '';
const dir = mkdtempSync(join(tmpdir(), 'inferlens-actions-'));
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

const T0 = Date.parse('2025-01-01T00:00:00Z');
const alert = (replica: string, firedAtMs = T0): Alert => ({
  alertname: 'SlowReplica',
  group: 'g',
  fingerprint: `fp-${replica}`,
  labels: { alertname: 'SlowReplica', replica, severity: 'warning' },
  annotations: {},
  severity: 'warning',
  state: 'firing',
  value: 900,
  details: {},
  activeAtMs: firedAtMs,
  firedAtMs,
  resolvedAtMs: null,
  lastEvalMs: firedAtMs,
});
const action = { type: 'switch_route' as const, params: { replica: '{{ $labels.replica }}', weight: 0 } };

describe('actions', () => {
  it('dry-run by default: proposed once per firing episode, never sent, approval refused', async () => {
    const a = createActions({ clock: createManualClock(T0), url: `${base}/act` });
    a.propose(alert('r1'), action, 'inc-1');
    a.propose(alert('r1'), action, 'inc-1'); // same episode: nothing new
    a.propose(alert('r1', T0 + 60_000), action, 'inc-1'); // a new episode proposes again
    await a.idle();
    expect(a.list().map((r) => r.state)).toEqual(['dry_run', 'dry_run']);
    expect(a.list()[0]!.params).toEqual({ replica: 'r1', weight: 0 });
    expect(() => a.approve(a.list()[0]!.id, 'me')).toThrow(/dry-run/);
    expect(got.filter((g) => g.url === '/act')).toHaveLength(0);
  });

  it('approval: waits, then sends the envelope and records the answer in memory and in the JSONL audit file', async () => {
    const auditFile = join(dir, 'actions.jsonl');
    const a = createActions({ clock: createManualClock(T0), mode: 'approval', url: `${base}/act`, auditFile });
    a.propose(alert('r2'), action, 'inc-2');
    const [rec] = a.list();
    expect(rec!.state).toBe('awaiting_approval');
    a.approve(rec!.id, 'alice');
    await a.idle();
    expect(a.list()[0]).toMatchObject({ state: 'answered', approvedBy: 'alice', answer: { status: 200, bodyExcerpt: '{"ok":true}' }, url: `${base}/act` });
    const sent = got.find((g) => g.url === '/act');
    expect(sent!.body).toMatchObject({
      action: 'switch_route',
      params: { replica: 'r2', weight: 0 },
      alert: { alertname: 'SlowReplica', labels: { replica: 'r2' } },
      incident: 'inc-2',
    });
    const steps = readFileSync(auditFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { step: string }).step);
    expect(steps).toEqual(['proposed', 'approved', 'sent', 'answered']);
    expect(() => a.approve(rec!.id, 'bob')).toThrow(/not awaiting approval/);
    expect(() => a.approve('nope', 'bob')).toThrow(/no action/);
  });

  it('auto with per-action endpoints: params-only bodies (the demo /admin form); a 400 is recorded as failed', async () => {
    const a = createActions({
      clock: createManualClock(T0),
      mode: 'auto',
      endpoints: {
        pause_canary: { url: `${base}/admin/pause_canary`, body: 'params' },
        rollback: { url: `${base}/admin/fail`, body: 'params', params: { percent: 0 } },
      },
    });
    a.propose(alert('r3'), { type: 'pause_canary', params: { rule: 'canary' } }, undefined);
    a.propose(alert('r4'), { type: 'rollback', params: {} }, undefined);
    a.propose(alert('r5'), { type: 'scale_out', params: {} }, undefined);
    await a.idle();
    expect(got.find((g) => g.url === '/admin/pause_canary')!.body).toEqual({ rule: 'canary' });
    expect(got.find((g) => g.url === '/admin/fail')!.body).toEqual({ percent: 0 });
    const byAction = Object.fromEntries(a.list().map((r) => [r.action, r]));
    expect(byAction.pause_canary).toMatchObject({ state: 'answered', approvedBy: 'auto' });
    expect(byAction.rollback).toMatchObject({ state: 'failed', answer: { status: 400 } });
    expect(byAction.scale_out).toMatchObject({ state: 'no_endpoint' });
    await a.stop(100);
  });

  it('never puts up an action nobody can execute, and a person can reject a stale proposal', async () => {
    const a = createActions({
      clock: createManualClock(T0),
      mode: 'approval',
      endpoints: { pause_canary: { url: `${base}/admin/pause_canary`, body: 'params' } },
    });
    a.propose(alert('r6'), { type: 'switch_route', params: { replica: 'r6' } }, undefined);
    a.propose(alert('r7'), { type: 'pause_canary', params: { rule: 'canary' } }, undefined);
    const [pause, route] = a.list();
    // switch_route has no endpoint here: recorded, not awaiting approval, approval refused.
    expect(route).toMatchObject({ action: 'switch_route', state: 'no_endpoint', error: expect.stringMatching(/no endpoint for switch_route/) });
    expect(() => a.approve(route!.id, 'bob')).toThrow(/not awaiting approval/);
    expect(pause).toMatchObject({ state: 'awaiting_approval' });
    const rejected = a.reject(pause!.id, 'alice', 'the alert resolved');
    expect(rejected).toMatchObject({ state: 'rejected', rejectedBy: 'alice', rejectReason: 'the alert resolved' });
    expect(() => a.approve(pause!.id, 'bob')).toThrow(/rejected, not awaiting approval/);
    expect(() => a.reject(pause!.id, 'bob')).toThrow(/not awaiting approval/);
    await a.idle();
    await a.stop(100);
  });
});
