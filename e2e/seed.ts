/**
 * Fixture traffic for the browser tests, sent through the public ingest API. 40 minutes ending
 * now, 30 requests a minute of model "ranker" (v1 and v2 over replicas r1–r3), with:
 * - a latency spike in v2 ten minutes ago (queue_ms ≈ 1.4 s, total ≈ 1.5–2.5 s);
 * - replica r3 failing 15 % with replica_fault (the rest 1 % internal): the slice finder's answer;
 * - tenant globex rate-limited 3 %;
 * - request "req-xss" in the spike with captured text holding a script tag;
 * - model "legacy" sending only ts, model, total_ms, status (staged adoption);
 * - GPU/CPU readings for nodes n1 (real) and n2 (simulated).
 * Deterministic: a seeded PRNG, times relative to `nowMs`.
 */
export const XSS_INPUT = '<script>window.__pwned = 1</script>hello';
export const XSS_OUTPUT = '<img src=x onerror="window.__pwned = 2">';
export const SPIKE_MINUTES_AGO = 10;

function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const round = (x: number) => Math.round(x * 1000) / 1000;

export function seedEvents(nowMs: number): Record<string, unknown>[] {
  const rand = prng(7);
  const minuteMs = 60_000;
  const start = Math.floor(nowMs / minuteMs) * minuteMs - 40 * minuteMs;
  const spikeMinute = Math.floor(nowMs / minuteMs) * minuteMs - SPIKE_MINUTES_AGO * minuteMs;
  const events: Record<string, unknown>[] = [];
  const replicas = [
    ['r1', 'n1'],
    ['r2', 'n1'],
    ['r3', 'n2'],
  ] as const;
  for (let m = start; m < nowMs - minuteMs; m += minuteMs) {
    for (let i = 0; i < 30; i++) {
      const version = i % 2 ? 'v2' : 'v1';
      const [replica, node] = replicas[i % 3]!;
      const tenant = i % 4 === 0 ? 'globex' : 'acme';
      const spike = m === spikeMinute && version === 'v2';
      const queue = spike ? 1400 + rand() * 800 : 1 + rand() * 6;
      const exec = (version === 'v1' ? 30 : 38) * Math.exp((rand() - 0.5) * 0.6);
      const stages = { ingress_ms: round(0.5 + rand()), queue_ms: round(queue), batch_ms: round(1 + rand() * 2), exec_ms: round(exec), post_ms: round(0.5 + rand()) };
      const total = round(Object.values(stages).reduce((a, b) => a + b, 0));
      let status = 'ok';
      let errorType: string | undefined;
      const r = rand();
      if (replica === 'r3' && r < 0.15) {
        status = 'error';
        errorType = 'replica_fault';
      } else if (r > 0.99) {
        status = 'error';
        errorType = 'internal';
      } else if (tenant === 'globex' && r > 0.95) status = 'rate_limited';
      events.push({
        ts: new Date(m + i * 1900).toISOString(),
        request_id: `req-${m / minuteMs}-${i}`,
        model: 'ranker',
        model_version: version,
        tenant,
        entry: i % 5 === 0 ? 'batch' : 'api',
        node,
        replica,
        ...stages,
        total_ms: total,
        batch_size: 1 + Math.floor(rand() * (spike ? 4 : 8)),
        status,
        ...(errorType ? { error_type: errorType } : {}),
        confidence: round(0.5 + rand() * 0.5),
        output_length: 20 + Math.floor(rand() * 80),
      });
    }
    events.push({ ts: new Date(m + 30_000).toISOString(), request_id: `legacy-${m / minuteMs}`, model: 'legacy', total_ms: round(80 + rand() * 40), status: 'ok' });
  }
  events.push({
    ts: new Date(spikeMinute + 31_000).toISOString(),
    request_id: 'req-xss',
    model: 'ranker',
    model_version: 'v2',
    tenant: 'acme',
    entry: 'api',
    node: 'n1',
    replica: 'r1',
    ingress_ms: 1,
    queue_ms: 2900,
    batch_ms: 2,
    exec_ms: 95,
    post_ms: 2,
    total_ms: 3000,
    batch_size: 2,
    status: 'ok',
    input: XSS_INPUT,
    output: XSS_OUTPUT,
  });
  return events;
}

export function seedResources(nowMs: number): Record<string, unknown>[] {
  const rand = prng(11);
  const minuteMs = 60_000;
  const start = Math.floor(nowMs / minuteMs) * minuteMs - 40 * minuteMs;
  const spikeMinute = Math.floor(nowMs / minuteMs) * minuteMs - SPIKE_MINUTES_AGO * minuteMs;
  const rows: Record<string, unknown>[] = [];
  for (let m = start; m < nowMs - minuteMs; m += minuteMs) {
    for (const node of ['n1', 'n2']) {
      const simulated = node === 'n2';
      const busy = m === spikeMinute ? 0.97 : 0.45 + rand() * 0.2;
      const base = { ts: new Date(m + 5_000).toISOString(), node, ...(simulated ? { simulated: true } : {}) };
      rows.push(
        { ...base, gpu: '0', metric: 'gpu_utilization_ratio', value: round(busy) },
        { ...base, gpu: '0', metric: 'gpu_memory_used_bytes', value: Math.round((40 + rand() * 10) * 2 ** 30) },
        { ...base, gpu: '0', metric: 'gpu_memory_total_bytes', value: 80 * 2 ** 30 },
        { ...base, metric: 'cpu_utilization_ratio', value: round(0.2 + rand() * 0.2) },
        { ...base, metric: 'memory_used_bytes', value: Math.round((12 + rand() * 2) * 2 ** 30) },
      );
    }
  }
  return rows;
}
