// The live traffic's misbehaving clients, against a stub service on loopback that records bodies.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { Message } from '../model/index.ts';
import { CLIENT_TRICKLE, createTraffic } from './generator.ts';
import { createTenants } from './tenants.ts';

describe('live traffic: a trickle of client mistakes from the start', () => {
  it('sends malformed bodies, unmeetable deadlines and same-tenant retry bursts in the set shares', async () => {
    const bodies: Record<string, unknown>[] = [];
    const arrivals: number[] = [];
    const server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString()));
      req.on('end', () => {
        bodies.push(JSON.parse(raw) as Record<string, unknown>);
        arrivals.push(performance.now());
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"label":"ham","model_version":"v1"}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const messages: Message[] = [{ id: 'm1', text: 'hello there', label: 'ham' } as Message];
    // 600 req/s for 2 s: ~1,200 requests (fewer on a loaded machine). Shares raised to 3 % (the
    // defaults, 0.1 %, would give ~1 of each): ~36 malformed and ~36 tight deadlines. Bursts at 5 a
    // second so several land in the 2 s.
    const shares: { malformedShare: number; tightDeadlineShare: number; retryBurstPerS: number } = {
      malformedShare: 0.03,
      tightDeadlineShare: 0.03,
      retryBurstPerS: 5,
    };
    const traffic = createTraffic({
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      rate: { ratePerS: () => 600, meanRatePerS: 600, peakRatePerS: 600 },
      tenants: createTenants(),
      messages,
      driftMessages: [],
      maxInFlight: 10_000,
      clientTrickle: shares,
    });
    traffic.start();
    await new Promise((r) => setTimeout(r, 2_000));
    await traffic.stop();
    server.close();
    const n = bodies.length;
    expect(n).toBeGreaterThan(300);
    const malformed = bodies.filter((b) => b.text === undefined).length;
    const tight = bodies.filter((b) => b.deadline_ms === 1).length;
    expect(malformed).toBeGreaterThan(0);
    expect(tight).toBeGreaterThan(0);
    // Within a factor of 2.5 of 3 % (binomial, n ≈ 1,200: mean 36, sd 5.9).
    for (const k of [malformed, tight]) {
      expect(k / n).toBeGreaterThan(shares.malformedShare / 2.5);
      expect(k / n).toBeLessThan(2.5 * shares.malformedShare);
    }
    // A retry burst: six requests of one tenant sent in the same tick (ids consecutive).
    const ids = bodies.map((b) => String(b.request_id));
    const byId = new Map(bodies.map((b) => [String(b.request_id), String(b.tenant)]));
    const seqOf = (id: string) => parseInt(id.split('-').at(-1)!, 36);
    const sorted = [...ids].sort((a, b) => seqOf(a) - seqOf(b));
    let longestRun = 1;
    for (let i = 1, run = 1; i < sorted.length; i++) {
      run = byId.get(sorted[i]!) === byId.get(sorted[i - 1]!) ? run + 1 : 1;
      longestRun = Math.max(longestRun, run);
    }
    expect(longestRun).toBeGreaterThanOrEqual(CLIENT_TRICKLE.retryBurstSize);
  });
});
