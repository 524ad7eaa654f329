// Webhook and queue behaviour against a real HTTP receiver on 127.0.0.1 (port 0).
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { heldTimers } from '../../test/held-timers.ts';
import { createDeliveryQueue } from './delivery-queue.ts';
import { DeliveryError } from './http.ts';
import { SIGNATURE_HEADER, signBody, verifySignature } from './signature.ts';
import type { NotificationBatch } from './types.ts';
import { createWebhookNotifier } from './webhook.ts';

interface Received {
  body: string;
  headers: IncomingMessage['headers'];
}

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function receiver(handle: (req: Received, res: ServerResponse, n: number) => void): Promise<{ url: string; got: Received[] }> {
  const got: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { body: Buffer.concat(chunks).toString('utf8'), headers: req.headers };
      got.push(r);
      handle(r, res, got.length);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got };
}

const batch = (n = 1): NotificationBatch => ({
  kind: 'incident',
  tier: 'page',
  incidentId: `inc-${n}`,
  groupKey: 'model="m1"',
  groupLabels: { model: 'm1' },
  status: 'firing',
  reason: 'new',
  alerts: [
    {
      status: 'firing',
      labels: { alertname: 'A', model: 'm1', severity: 'critical' },
      annotations: { summary: 's' },
      startsAt: '2025-01-01T00:00:00.000Z',
      endsAt: '2025-01-01T00:04:00.000Z',
      generatorURL: 'http://x/',
      fingerprint: 'f',
      value: 1,
    },
  ],
});

describe('signature', () => {
  it('is HMAC-SHA256 of the body in hex (RFC 4231 test case 2)', () => {
    // key "Jefe", data "what do ya want for nothing?"
    expect(signBody('Jefe', 'what do ya want for nothing?')).toBe('sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
    expect(verifySignature('Jefe', 'what do ya want for nothing?', 'sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843')).toBe(true);
    expect(verifySignature('Jefe', 'what do ya want for nothing!', 'sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843')).toBe(false);
    expect(verifySignature('Jefe', 'x', undefined)).toBe(false);
  });
});

describe('webhook notifier', () => {
  it('posts the Alertmanager-shaped body, signed; the receiver verifies the signature over the raw body', async () => {
    const r = await receiver((_, res) => res.end('ok'));
    const n = createWebhookNotifier({ url: r.url, secret: 's3cret', externalUrl: 'http://inferlens:7070' });
    n.start();
    n.send(batch());
    await n.idle();
    expect(r.got).toHaveLength(1);
    const got = r.got[0]!;
    expect(verifySignature('s3cret', got.body, got.headers[SIGNATURE_HEADER.toLowerCase()] as string)).toBe(true);
    expect(verifySignature('wrong', got.body, got.headers[SIGNATURE_HEADER.toLowerCase()] as string)).toBe(false);
    const body = JSON.parse(got.body) as Record<string, unknown>;
    expect(body).toMatchObject({
      version: '4',
      status: 'firing',
      receiver: 'webhook',
      groupLabels: { model: 'm1' },
      commonLabels: { alertname: 'A', model: 'm1', severity: 'critical' },
      externalURL: 'http://inferlens:7070',
      inferlens: { incidentId: 'inc-1', tier: 'page' },
    });
    expect(n.stats()).toMatchObject({ sentTotal: 1, failedTotal: 0, droppedTotal: 0 });
    await n.stop(100);
  });

  it('only takes the tiers it is configured for', async () => {
    const r = await receiver((_, res) => res.end());
    const n = createWebhookNotifier({ url: r.url, tiers: ['ticket'] });
    n.send(batch());
    await n.idle();
    expect(r.got).toHaveLength(0);
    await n.stop(100);
  });

  it('retries 503 with back-off, then succeeds; a 400 is not retried', async () => {
    const r = await receiver((_, res, n) => {
      res.statusCode = n <= 2 ? 503 : 200;
      res.end();
    });
    const n = createWebhookNotifier({ url: r.url, initialBackoffMs: 5, maxAttempts: 5 });
    n.send(batch());
    await n.idle();
    expect(r.got).toHaveLength(3);
    expect(n.stats()).toMatchObject({ sentTotal: 1, retriesTotal: 2, failedTotal: 0 });
    await n.stop(100);

    const bad = await receiver((_, res) => {
      res.statusCode = 400;
      res.end('bad payload');
    });
    const m = createWebhookNotifier({ url: bad.url, initialBackoffMs: 5 });
    m.send(batch());
    await m.idle();
    expect(bad.got).toHaveLength(1);
    expect(m.stats()).toMatchObject({ sentTotal: 0, retriesTotal: 0, failedTotal: 1 });
    await m.stop(100);
  });

  it('gives up after maxAttempts on an unreachable receiver', async () => {
    const r = await receiver((_, res) => res.end());
    const deadUrl = r.url;
    await new Promise((ok) => servers.pop()!.close(ok));
    const n = createWebhookNotifier({ url: deadUrl, initialBackoffMs: 2, maxAttempts: 3 });
    n.send(batch());
    await n.idle();
    expect(n.stats()).toMatchObject({ sentTotal: 0, retriesTotal: 2, failedTotal: 1 });
    await n.stop(100);
  });

  it('a full queue drops the oldest and counts it; stop aborts the request in flight at its deadline and drops the rest', async () => {
    let arrived!: () => void;
    const inFlight = new Promise<void>((ok) => (arrived = ok));
    let gaveUp!: () => void;
    const clientGaveUp = new Promise<void>((ok) => (gaveUp = ok));
    const r = await receiver((_, res) => {
      // Never answers; notes when the client closes the request unanswered.
      res.on('close', () => {
        if (!res.writableEnded) gaveUp();
      });
      arrived();
    });
    const timers = heldTimers();
    // The request timeout is far away: only stop's deadline can end the request in flight.
    const n = createWebhookNotifier({ url: r.url, maxQueue: 3, timeoutMs: 600_000, timers });
    for (let i = 1; i <= 6; i++) n.send(batch(i));
    // One in flight, three queued (4, 5, 6), two dropped (2, 3).
    expect(n.stats()).toMatchObject({ queued: 3, droppedTotal: 2 });
    await inFlight;
    let stopped = false;
    const stopping = n.stop(50).then(() => (stopped = true));
    // The deadline is a timer on the injected clock: until it runs, the queue keeps its chance.
    expect(timers.pending()).toEqual([50]);
    for (let i = 0; i < 10; i++) await new Promise((ok) => setImmediate(ok));
    expect(stopped).toBe(false);
    expect(n.stats()).toMatchObject({ queued: 3, droppedTotal: 2 });
    timers.fire(50);
    await stopping;
    await clientGaveUp;
    expect(n.stats()).toMatchObject({ queued: 0, droppedTotal: 5, failedTotal: 1, sentTotal: 0 });
    n.send(batch(7));
    expect(n.stats().droppedTotal).toBe(6);
    await n.stop(50); // idempotent
  });
});

describe('delivery queue', () => {
  it('back-off doubles between attempts (jitter fixed at its maximum)', async () => {
    const delays: number[] = [];
    let attempts = 0;
    const q = createDeliveryQueue<number>({
      deliver: async () => {
        attempts++;
        throw new DeliveryError('down', true);
      },
      maxAttempts: 4,
      initialBackoffMs: 100,
      random: () => 1,
      timers: {
        setTimeout: (fn, ms) => {
          delays.push(ms);
          queueMicrotask(fn);
          return 0;
        },
        clearTimeout: () => {},
      },
    });
    q.push(1);
    await q.idle();
    expect(attempts).toBe(4);
    expect(delays).toEqual([100, 200, 400]);
    expect(q.stats()).toMatchObject({ retriesTotal: 3, failedTotal: 1 });
  });
});
