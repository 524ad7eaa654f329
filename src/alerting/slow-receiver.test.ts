// A receiver that takes 5 s to answer must not delay rule evaluation.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createAlertmanagerNotifier, createWebhookNotifier } from '../notify/index.ts';
import type { QueryRow } from '../schema/index.ts';
import { createAlerting } from './alerting.ts';
import { createManualClock } from './clock.ts';
import { fakeReads, rulesFrom } from './test-helpers.ts';

const server = createServer((req, res) => {
  req.resume();
  setTimeout(() => res.end('late'), 5000).unref();
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('slow receiver', () => {
  it('evaluations and notifications proceed while the receiver sleeps 5 s per request', async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const clock = createManualClock(Date.parse('2025-01-01T00:00:00Z'));
    let rows: QueryRow[] = [];
    const webhook = createWebhookNotifier({ url: `${url}/hook`, timeoutMs: 30_000 });
    const am = createAlertmanagerNotifier({ url, timeoutMs: 30_000 });
    const alerting = createAlerting({
      groups: rulesFrom(`
groups:
  - name: g
    interval: 10s
    rules:
      - alert: Slow
        condition: { kind: threshold, measure: p99(total_ms), window: 5m, by: [model, replica], op: '>', value: 1 }
        severity: critical
`),
      reads: fakeReads(() => rows),
      clock,
      notifiers: [webhook, am],
      groupWaitMs: 0,
      groupIntervalMs: 10_000,
    });
    alerting.start();
    const t0 = performance.now();
    for (let i = 0; i < 20; i++) {
      // A new replica every step: every flush has something new to say.
      rows = Array.from({ length: i + 1 }, (_, k) => ({ model: `m${k % 3}`, replica: `r${k}`, 'p99(total_ms)': 10, n: 1 }));
      clock.advance(10_000);
      await alerting.settled();
    }
    const elapsedMs = performance.now() - t0;
    expect(alerting.alerts()).toHaveLength(20);
    // 20 evaluations in well under one receiver delay; the notifications wait in the queues.
    expect(elapsedMs).toBeLessThan(2000);
    expect(webhook.stats().sentTotal).toBe(0);
    expect(webhook.stats().queued).toBeGreaterThan(0);
    expect(am.stats().queued).toBeGreaterThan(0);
    const s0 = performance.now();
    await alerting.stop(100);
    expect(performance.now() - s0).toBeLessThan(2000);
    expect(webhook.stats().droppedTotal + am.stats().droppedTotal).toBeGreaterThan(0);
  });
});
