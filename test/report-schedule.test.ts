// The review on a schedule (`reports.schedules`), delivered through a webhook receiver to a local
// HTTP receiver on loopback: the Markdown of the period ending at each due time, signed as incident
// notifications are, sent once per due time; time is the server's injected clock, ticked by hand.
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/index.ts';
import { startServer } from '../src/main.ts';
import type { InferlensServer } from '../src/main.ts';
import { SIGNATURE_HEADER, verifySignature } from '../src/notify/index.ts';
import { lastDue } from '../src/reports/index.ts';
import { H, NOW, postReportRows } from './report-fixture.ts';

const SECRET = 'a-shared-secret-of-32-characters';
let receiver: Server;
let receiverUrl: string;
const received: { body: string; signature: string | undefined }[] = [];
let waiting: (() => void) | null = null;
const nextDelivery = () => new Promise<void>((r) => (waiting = r));

let server: InferlensServer;
let dir: string;
let now = NOW - 30_000;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      received.push({ body, signature: req.headers[SIGNATURE_HEADER.toLowerCase()] as string | undefined });
      res.writeHead(200).end('ok');
      waiting?.();
      waiting = null;
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  dir = mkdtempSync(join(tmpdir(), 'inferlens-report-schedule-'));
  const config = loadConfig({
    env: {},
    flags: {
      server: { port: 0 },
      storage: { dataDir: join(dir, 'data') },
      alerting: { defaultRules: false, receivers: [{ type: 'webhook', name: 'chat', url: receiverUrl, secret: SECRET }] },
      reports: { schedules: [{ name: 'hourly', period: '1h', every: '1h', receivers: ['chat'] }] },
      cost: { gpuHour: [{ pool: 'a100', price: 3.6 }] },
      log: { level: 'silent' },
    },
  });
  server = await startServer(config, { logger: pino({ level: 'silent' }), now: () => now, collectors: false, ui: false });
  await postReportRows(server.url);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await new Promise<void>((r) => (receiver ? receiver.close(() => r()) : r()));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('scheduled review', () => {
  it('due times are multiples of `every` since the epoch plus the offset, in UTC', () => {
    // Mondays 00:00: every 7d, offset 4d (1970-01-01 was a Thursday). 2026-11-30 was a Monday.
    expect(new Date(lastDue(Date.parse('2026-12-02T15:00:00Z'), 7 * 86_400_000, 4 * 86_400_000)).toISOString()).toBe('2026-11-30T00:00:00.000Z');
    expect(lastDue(NOW, H, 0)).toBe(NOW);
    expect(lastDue(NOW - 1, H, 0)).toBe(NOW - H);
  });

  it('sends nothing for a due time that passed before it started, then the review ending at 12:00 once 12:00 has passed', async () => {
    // The first tick (at start, 11:59:30) only records where it stands.
    await server.reportScheduler!.tick();
    expect(received).toEqual([]);
    now = NOW + 10_000;
    const delivered = nextDelivery();
    await server.reportScheduler!.tick();
    await delivered;
    expect(received).toHaveLength(1);
    const { body, signature } = received[0]!;
    expect(verifySignature(SECRET, body, signature)).toBe(true);
    const msg = JSON.parse(body) as { text: string; receiver: string; inferlens: Record<string, string> };
    expect(msg.receiver).toBe('chat');
    expect(msg.inferlens).toEqual({ kind: 'report', schedule: 'hourly', period_from: '2026-11-30T11:00:00.000Z', period_to: '2026-11-30T12:00:00.000Z' });
    // The Markdown is the review of the hour ending at the due time (12:00), not at the tick (12:00:10).
    now = NOW;
    expect(msg.text).toBe(await (await fetch(`${server.url}/v1/reports?period=1h&format=md`)).text());
    expect(msg.text).toContain('| m v1 | 198 ms | 200 ms | 10 | 99.1 ms (n 10) | +100 % | +100 % |');
  });

  it('sends each due time once: nothing more before 13:00', async () => {
    now = NOW + 20 * 60_000;
    await server.reportScheduler!.tick();
    now = NOW + 59 * 60_000;
    await server.reportScheduler!.tick();
    expect(received).toHaveLength(1);
    expect(server.reportScheduler!.stats()).toEqual({ sentTotal: 1, failedTotal: 0 });
  });

  it('a schedule that names no webhook receiver stops start-up, naming the field', () => {
    expect(() => loadConfig({ env: {}, flags: { reports: { schedules: [{ name: 'daily', period: '24h', every: '24h', receivers: ['nowhere'] }] } } })).toThrow(
      /reports\.schedules\.0\.receivers\.0: no webhook receiver "nowhere"/,
    );
  });
});
