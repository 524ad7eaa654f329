// A receiver that holds every request open must not delay rule evaluation, and stop must still
// return at its deadline. Time is the manual clock's (rules and the notifiers' queues); nothing
// here is measured on the wall clock.
import { createServer } from 'node:http';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createAlertmanagerNotifier, createWebhookNotifier } from '../notify/index.ts';
import type { QueryRow } from '../schema/index.ts';
import { createAlerting } from './alerting.ts';
import { createManualClock } from './clock.ts';
import { fakeReads, rulesFrom } from './alerting.test-support.ts';

/** Requests the receiver holds (never answered), and how many the client closed unanswered. */
const held = new Set<ServerResponse>();
let closedUnanswered = 0;
let arrived!: () => void;
const firstRequest = new Promise<void>((ok) => (arrived = ok));
let allClosed!: () => void;
const noneHeld = new Promise<void>((ok) => (allClosed = ok));
const server = createServer((req, res) => {
  req.resume();
  held.add(res);
  res.on('close', () => {
    held.delete(res);
    if (!res.writableEnded) closedUnanswered++;
    if (held.size === 0) allClosed();
  });
  arrived();
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('slow receiver', () => {
  it('evaluations and notifications proceed while the receiver holds its requests open; stop drops what is left at the deadline', async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const clock = createManualClock(Date.parse('2025-01-01T00:00:00Z'));
    let rows: QueryRow[] = [];
    // The queues' back-off and stop deadline run on the same manual clock as the rules.
    const webhook = createWebhookNotifier({ url: `${url}/hook`, timeoutMs: 600_000, timers: clock });
    const am = createAlertmanagerNotifier({ url, timeoutMs: 600_000, timers: clock });
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
    let evaluationsWhileHeld = 0;
    for (let i = 0; i < 20; i++) {
      // A new replica every step: every flush has something new to say.
      rows = Array.from({ length: i + 1 }, (_, k) => ({ model: `m${k % 3}`, replica: `r${k}`, 'p99(total_ms)': 10, n: 1 }));
      clock.advance(10_000);
      await alerting.settled();
      // The first flush (group_wait 0) goes out at the second step; from then on the receiver
      // holds a request, and each further evaluation must finish regardless.
      if (i === 1) await firstRequest;
      if (held.size > 0) evaluationsWhileHeld++;
    }
    expect(alerting.alerts()).toHaveLength(20);
    expect(evaluationsWhileHeld).toBe(19);
    expect(closedUnanswered).toBe(0);
    // Nothing was delivered; the later batches wait in the queues.
    expect(webhook.stats().sentTotal).toBe(0);
    expect(webhook.stats().queued).toBeGreaterThan(0);
    expect(am.stats().queued).toBeGreaterThan(0);

    // Stop: its deadline is a timer on the manual clock; move the clock until stop returns.
    let stopped = false;
    const stopping = alerting.stop(100).then(() => (stopped = true));
    let movedMs = 0;
    while (!stopped) {
      clock.advance(50);
      movedMs += 50;
      await new Promise((ok) => setImmediate(ok));
    }
    await stopping;
    await noneHeld;
    // Returned once the 100 ms deadline had passed, closing the held requests unanswered.
    expect(movedMs).toBeGreaterThanOrEqual(100);
    expect(closedUnanswered).toBeGreaterThan(0);
    expect(webhook.stats().sentTotal + am.stats().sentTotal).toBe(0);
    expect(webhook.stats().droppedTotal + am.stats().droppedTotal).toBeGreaterThan(0);
  });
});
