// Cost in money over HTTP (`POST /v1/cost`): GPU time attributed by execution-time share and priced
// per GPU-hour, hosted models' token prices, per model / tenant / 1,000 requests / 1,000 tokens,
// checked against values computed by hand from the rows stored below. The server's clock is fixed
// at the fixture's time, so nothing depends on today's date.
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/index.ts';
import type { ConfigInput } from '../src/config/index.ts';
import { startServer } from '../src/main.ts';
import type { InferlensServer } from '../src/main.ts';
import type { CostResult } from '../src/query/index.ts';
import { A100, COST_PRICES, H100, MIN, T0, costFixture, iso } from './cost-fixture.ts';

async function start(prices: ConfigInput['cost']): Promise<InferlensServer> {
  return startServer(loadConfig({ env: {}, flags: { server: { port: 0 }, storage: { dataDir: ':memory:' }, alerting: { enabled: false }, cost: prices } }), {
    logger: pino({ level: 'silent' }),
    collectors: false,
    ui: false,
    now: () => T0 + 10 * MIN,
  });
}

async function send(server: InferlensServer): Promise<void> {
  const { events, resources } = costFixture();
  for (const [path, rows] of [
    ['/v1/events', events],
    ['/v1/resources', resources],
  ] as const) {
    const res = await fetch(server.url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: rows.map((r) => JSON.stringify(r)).join('\n'),
    });
    expect(res.status, await res.text()).toBe(200);
  }
}

async function cost(server: InferlensServer, body: Record<string, unknown> = {}): Promise<{ status: number; data: CostResult; error?: string }> {
  const res = await fetch(server.url + '/v1/cost', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ from: iso(T0), to: iso(T0 + 2 * MIN), step: '1m', ...body }),
  });
  const json = (await res.json()) as { data: CostResult; error?: string };
  return { ...json, status: res.status };
}

describe('POST /v1/cost with prices', () => {
  let server: InferlensServer;
  beforeAll(async () => {
    server = await start(COST_PRICES);
    await send(server);
  });
  afterAll(() => server.stop());

  it('attributes GPU time by execution-time share and prices it, per slice', async () => {
    const { status, data } = await cost(server);
    expect(status).toBe(200);
    expect(data.priced).toBe(true);
    expect(data.currency).toBe('EUR');
    expect(data.unlock).toBeNull();
    expect(data.buckets).toEqual([iso(T0), iso(T0 + MIN)]);
    const slice = (model: string, version: string | null, tenant: string) =>
      data.by_slice.find((s) => s.model === model && s.model_version === version && s.tenant === tenant)!;
    expect(slice('m', 'v1', 'a')).toMatchObject({ requests: 4, gpu_seconds: 45, gpu_cost: expect.closeTo(0.045, 12), token_cost: 0, exec_ms: 300 });
    expect(slice('m', 'v1', 'b')).toMatchObject({ requests: 3, gpu_seconds: 75, gpu_cost: expect.closeTo(0.075, 12) });
    expect(slice('m', 'v2', 'a')).toMatchObject({ requests: 4, gpu_seconds: 30, gpu_cost: expect.closeTo(0.06, 12), exec_ms: 200 });
    expect(slice('m', 'v2', 'b')).toMatchObject({ requests: 1, gpu_seconds: 0, cost: 0 });
    expect(slice('gpt-hosted', null, 'b')).toMatchObject({
      requests: 1,
      input_tokens: 1000,
      output_tokens: 500,
      token_cost: expect.closeTo(0.006, 12),
      gpu_cost: 0,
    });
    expect(slice('gpt-hosted', null, 'a')).toMatchObject({ requests: 2, input_tokens: 4000, output_tokens: 0, token_cost: expect.closeTo(0.008, 12) });
    // The probe is not a slice: its share of n2 is "other".
    expect(data.by_slice.some((s) => s.tenant === 'golden')).toBe(false);
  });

  it('answers per model and per tenant, per 1,000 requests and per 1,000 tokens, with the trend', async () => {
    const { data } = await cost(server);
    const model = Object.fromEntries(data.by_model.map((m) => [m.model, m]));
    // m: 0.045 + 0.075 + 0.06 = 0.18 over 12 requests → 15 per 1,000; no tokens → no per-token figure.
    expect(model['m']).toMatchObject({
      requests: 12,
      gpu_seconds: 150,
      cost: expect.closeTo(0.18, 12),
      cost_per_1k_requests: expect.closeTo(15, 9),
      cost_per_1k_tokens: null,
    });
    // Minute 0: 0.12 over 8 requests, minute 1: 0.06 over 4 → 15 and 15 per 1,000: no change.
    expect(model['m']!.trend.cost.map((x: number | null) => Number(x!.toFixed(12)))).toEqual([0.12, 0.06]);
    expect(model['m']!.trend.per_1k_requests.map((x: number | null) => Number(x!.toFixed(9)))).toEqual([15, 15]);
    expect(model['m']!.change).toBeCloseTo(0, 12);
    // gpt-hosted: 0.014 over 3 requests and 5,500 tokens.
    expect(model['gpt-hosted']).toMatchObject({
      requests: 3,
      cost: expect.closeTo(0.014, 12),
      cost_per_1k_requests: expect.closeTo(14 / 3, 9),
      cost_per_1k_tokens: expect.closeTo(0.014 / 5.5, 12),
    });
    // Ranked by money: m (0.18) before gpt-hosted (0.014).
    expect(data.by_model.map((m) => m.model)).toEqual(['m', 'gpt-hosted']);

    const tenant = Object.fromEntries(data.by_tenant.map((t) => [t.tenant, t]));
    // a: 0.045 + 0.06 + 0.008 = 0.113 over 10 requests and 4,000 tokens; b: 0.075 + 0.006 = 0.081 over 5 and 1,500.
    expect(tenant['a']).toMatchObject({
      requests: 10,
      cost: expect.closeTo(0.113, 12),
      cost_per_1k_requests: expect.closeTo(11.3, 9),
      cost_per_1k_tokens: expect.closeTo(0.02825, 12),
    });
    expect(tenant['b']).toMatchObject({
      requests: 5,
      cost: expect.closeTo(0.081, 12),
      cost_per_1k_requests: expect.closeTo(16.2, 9),
      cost_per_1k_tokens: expect.closeTo(0.054, 12),
    });
    // a: minute 0 0.105 over 7 requests (15 per 1,000), minute 1 0.008 over 3 (2.667): −82.2 %.
    expect(tenant['a']!.change).toBeCloseTo(0.008 / 3 / (0.105 / 7) - 1, 12);
    expect(data.total).toMatchObject({ requests: 15, gpu_seconds: 150, cost: expect.closeTo(0.194, 12) });
  });

  it('accounts for every held GPU-second: attributed + idle + no exec_ms + other', async () => {
    const { data } = await cost(server);
    expect(data.unattributed.map((u) => [u.reason, u.gpu_seconds, Number(u.cost!.toFixed(12))])).toEqual([
      ['idle', 60, 0.06],
      ['no_exec_ms', 60, 0.06],
      ['other', 30, 0.06],
    ]);
    // n1: 2 GPUs × 2 minutes, busy 60 × (0.5 + 0.1 + 0.2 + 0.9) = 102 s; n2: 1 minute at 0.8.
    expect(data.nodes.map((n) => ({ ...n, cost: Number(n.cost!.toFixed(12)), busy_gpu_seconds: Number(n.busy_gpu_seconds.toFixed(9)) }))).toEqual([
      { node: 'n1', gpus: 2, gpu_seconds: 240, busy_gpu_seconds: 102, cost: 0.24, simulated: false },
      { node: 'n2', gpus: 1, gpu_seconds: 60, busy_gpu_seconds: 48, cost: 0.12, simulated: false },
    ]);
    const held = data.nodes.reduce((a, n) => a + n.gpu_seconds, 0);
    expect(data.total.gpu_seconds + data.unattributed.reduce((a, u) => a + u.gpu_seconds, 0)).toBe(held);
    expect(data.unpriced).toEqual([]);
  });

  it('keeps shares over all traffic when filtered: a filter narrows the slices, not the denominator', async () => {
    const { data } = await cost(server, { filters: { tenant: 'a' } });
    expect(data.by_slice.map((s) => [s.model, s.model_version, s.tenant])).toEqual([
      ['m', 'v2', 'a'],
      ['m', 'v1', 'a'],
      ['gpt-hosted', null, 'a'],
    ]);
    expect(data.total.cost).toBeCloseTo(0.113, 12);
    // b's shares are now "other": 15 s of g0 and g1's 60 s on top of the probe's 30 s.
    expect(data.unattributed.find((u) => u.reason === 'other')!.gpu_seconds).toBe(105);
  });

  it('rejects a bad window with the field path', async () => {
    const res = await fetch(server.url + '/v1/cost', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ from: iso(T0), to: iso(T0 - MIN) }),
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toContain('"path":"to"');
  });
});

describe('POST /v1/cost with a price no GPU matches, and with none', () => {
  let server: InferlensServer;
  beforeAll(async () => {
    server = await start({ gpuHour: [{ pool: 'tpu', price: 1 }] });
    await send(server);
  });
  afterAll(() => server.stop());

  it('lists GPUs whose pool and model have no price, and counts their seconds without money', async () => {
    const { data } = await cost(server);
    expect(data.priced).toBe(true);
    expect(data.unpriced).toEqual([
      { pool: 'a100', gpu_model: A100, gpu_seconds: 240 },
      { pool: 'h100', gpu_model: H100, gpu_seconds: 60 },
    ]);
    expect(data.total).toMatchObject({ gpu_seconds: 150, gpu_cost: 0 });
  });

  it('gives GPU-seconds and null money, and names the setting, when nothing is priced', async () => {
    const bare = await start({});
    try {
      await send(bare);
      const { data } = await cost(bare);
      expect(data).toMatchObject({ priced: false, currency: null, unlock: expect.stringContaining('cost.gpu_hour') });
      expect(data.total).toMatchObject({ requests: 15, gpu_seconds: 150, cost: null, gpu_cost: null, cost_per_1k_requests: null });
      // Unpriced, the trend is GPU-seconds: model m, minute 0: 45 + 15 + 30, minute 1: 60.
      expect(data.by_model.find((m) => m.model === 'm')!.trend.cost).toEqual([90, 60]);
    } finally {
      await bare.stop();
    }
  });
});
