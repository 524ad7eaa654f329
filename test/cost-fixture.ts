// The rows and prices behind test/cost.test.ts and e2e/cost.test.ts: two minutes, three GPUs, two
// hosted calls, with every money figure computed by hand (below and in those tests).
export const T0 = Date.parse('2026-11-30T10:00:00Z');
export const MIN = 60_000;
export const iso = (ms: number) => new Date(ms).toISOString();
export const A100 = 'NVIDIA A100-SXM4-80GB';
export const H100 = 'NVIDIA H100 80GB HBM3';
export const COST_PRICES = {
  currency: 'EUR',
  // 3.60 an hour = 0.06 a minute (a100 pool); 7.20 an hour = 0.12 a minute (H100 by GPU model).
  gpuHour: [
    { pool: 'a100', price: 3.6 },
    { gpuModel: H100, price: 7.2 },
  ],
  tokens: { 'gpt-hosted': { input: 2, output: 8 } },
};

/**
 * Two minutes, three GPUs. n1 has one GPU per replica (r1: g0, r2: g1); n2's GPU carries no replica,
 * so it serves every request on n2; gpt-hosted runs elsewhere (no node) and costs its tokens.
 *
 * Minute 0: r1 runs tenant a (3 × 100 ms exec) and b (1 × 100 ms): 400 ms, so of g0's 60 s at
 *   0.06, a takes 45 s / 0.045 and b 15 s / 0.015. r2 runs nothing: g1 is idle (60 s, 0.06). On
 *   n2, (m, v2, a) runs 50 ms × weight 3 + 50 ms = 200 ms (4 requests) beside a 200 ms probe: a
 *   takes half of 0.12 (30 s, 0.06), the probe's half is "other". gpt-hosted, b: 1,000 input and
 *   500 output tokens = 0.002 + 0.004 = 0.006.
 * Minute 1: r1 runs one request of a without exec_ms: g0's minute is "no_exec_ms" (60 s, 0.06). r2
 *   runs b (2 × 30 ms): b takes all of g1's minute (60 s, 0.06). n2 reports no GPU: its request of
 *   (m, v2, b) costs nothing. gpt-hosted, a: 2,000 input tokens × weight 2 = 4,000 → 0.008.
 */
export function costFixture(): { events: unknown[]; resources: unknown[] } {
  const ev = (min: number, o: Record<string, unknown>) => ({ ts: T0 + min * MIN + 5_000, status: 'ok', total_ms: 500, ...o });
  const events = [
    ...[1, 2, 3].map(() => ev(0, { model: 'm', model_version: 'v1', tenant: 'a', node: 'n1', replica: 'r1', exec_ms: 100 })),
    ev(0, { model: 'm', model_version: 'v1', tenant: 'b', node: 'n1', replica: 'r1', exec_ms: 100 }),
    ev(0, { model: 'm', model_version: 'v2', tenant: 'a', node: 'n2', replica: 'x', exec_ms: 50, sample_weight: 3 }),
    ev(0, { model: 'm', model_version: 'v2', tenant: 'a', node: 'n2', replica: 'y', exec_ms: 50 }),
    ev(0, { model: 'm', model_version: 'v2', tenant: 'golden', node: 'n2', replica: 'x', exec_ms: 200, probe: true }),
    ev(0, { model: 'gpt-hosted', tenant: 'b', input_tokens: 1000, output_tokens: 500 }),
    ev(1, { model: 'm', model_version: 'v1', tenant: 'a', node: 'n1', replica: 'r1' }),
    ev(1, { model: 'm', model_version: 'v1', tenant: 'b', node: 'n1', replica: 'r2', exec_ms: 30 }),
    ev(1, { model: 'm', model_version: 'v1', tenant: 'b', node: 'n1', replica: 'r2', exec_ms: 30 }),
    ev(1, { model: 'm', model_version: 'v2', tenant: 'b', node: 'n2', replica: 'x', exec_ms: 10 }),
    ev(1, { model: 'gpt-hosted', tenant: 'a', input_tokens: 2000, sample_weight: 2 }),
  ];
  const gpu = (min: number, node: string, gpuId: string, replica: string | null, pool: string, model: string, value: number) => ({
    ts: T0 + min * MIN + 30_000,
    node,
    gpu: gpuId,
    ...(replica ? { replica } : {}),
    pool,
    metric: 'gpu_utilization_ratio',
    labels: { gpu_model: model },
    value,
  });
  const resources = [
    gpu(0, 'n1', '0', 'r1', 'a100', A100, 0.5),
    gpu(0, 'n1', '1', 'r2', 'a100', A100, 0.1),
    gpu(0, 'n2', '0', null, 'h100', H100, 0.8),
    gpu(1, 'n1', '0', 'r1', 'a100', A100, 0.2),
    gpu(1, 'n1', '1', 'r2', 'a100', A100, 0.9),
  ];
  return { events, resources };
}
