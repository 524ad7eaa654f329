// The benchmark's events: a seeded, realistic hour of inference requests as NDJSON lines (the
// same lines every run), shared by the ingest benchmark and scripts that replay its store writes.
// Seeded PRNG (mulberry32) so runs are comparable.
let seed = 42;
const rand = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const gauss = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
const lognormal = (medianMs: number, sigma: number) => medianMs * Math.exp(sigma * gauss());
const r3 = (x: number) => Math.round(x * 1000) / 1000;
// 50 tenants, heavy-tailed (Zipf-like, s = 1.2): a few large, many small.
const tenantWeights = Array.from({ length: 50 }, (_, i) => 1 / Math.pow(i + 1, 1.2));
const tenantCdf = tenantWeights
  .map(
    (
      (s) => (w: number) =>
        (s += w)
    )(0),
  )
  .map((c, _, a) => c / a[a.length - 1]!);
const pickTenant = () => {
  const u = rand();
  return `tenant-${tenantCdf.findIndex((c) => u <= c)}`;
};
const ENTRIES = ['api', 'batch', 'web'];

/** `n` events spread evenly over the hour before `endMs`, in time order, each one JSON line. */
export function generate(n: number, endMs: number): string[] {
  const startMs = endMs - 3_600_000;
  const lines: string[] = new Array(n);
  for (let i = 0; i < n; i++) {
    // Time-ordered like real traffic (senders flush recent events).
    const ts = Math.floor(startMs + (i / n) * 3_600_000);
    const m = Math.floor(rand() * 20);
    const v = rand() < 0.7 ? 0 : rand() < 0.66 ? 1 : 2;
    const replica = Math.floor(rand() * 16);
    const ingress = lognormal(0.4, 0.5);
    const queue = lognormal(3, 1.0);
    const batch = lognormal(2, 0.6);
    const exec = lognormal(15 + m, 0.5);
    const post = lognormal(0.6, 0.4);
    const error = rand() < 0.01;
    lines[i] = JSON.stringify({
      ts,
      request_id: (i * 2654435761 + 0x9e3779b9).toString(16).padStart(12, '0'),
      model: `model-${m}`,
      model_version: `v${v + 1}`,
      service_version: '2.3.1',
      route_rule: v === 2 ? 'canary' : 'default',
      tenant: pickTenant(),
      entry: ENTRIES[i % 3],
      node: `node-${replica >> 2}`,
      replica: `replica-${replica}`,
      service_tier: i % 5 === 0 ? 'premium' : 'standard',
      ingress_ms: r3(ingress),
      queue_ms: r3(queue),
      batch_ms: r3(batch),
      exec_ms: r3(exec),
      post_ms: r3(post),
      total_ms: r3(ingress + queue + batch + exec + post),
      batch_size: 1 + Math.floor(rand() * 16),
      status: error ? 'error' : 'ok',
      ...(error ? { error_type: rand() < 0.5 ? 'dependency_timeout' : 'internal' } : {}),
      input_tokens: 50 + Math.floor(rand() * 400),
      output_tokens: 1 + Math.floor(rand() * 200),
    });
  }
  return lines;
}
