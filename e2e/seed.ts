/**
 * Fixture traffic for the browser tests, sent through the public ingest API. 40 minutes ending
 * now, 30 requests a minute of model "ranker" (v1 and v2 over replicas r1–r3), with:
 * - a latency spike in v2 ten minutes ago (queue_ms ≈ 1.4 s, total ≈ 1.5–2.5 s);
 * - replica r3 failing 15 % with replica_fault (the rest 1 % internal): the slice finder's answer;
 *   r3 also executes 3× slower than r1 and r2 (the per-replica panel and the stage attribution name it);
 * - tenant globex rate-limited 3 %;
 * - request "req-xss" in the spike, an error (the capture policy keeps every error) whose captured
 *   input holds a script tag and whose output an <img onerror>;
 * - labels and confidence: v2 shifted (lower confidence, more "spam") against v1, for drift and the
 *   label distribution; input_tokens (cost); every fifth request carries captured text (samples);
 * - feedback (conversion, thumbs, correct) on every third request, v1 converting more than v2; none
 *   yet for the last 3 minutes (it arrives later: the conversion chart marks those buckets);
 * - golden probes (probe: true) every 2 minutes per version, v2 failing golden id "g3";
 * - model "legacy" sending only ts, model, total_ms, status (staged adoption);
 * - model "burst": 40 % of its requests rate-limited in the last 10 minutes (shed load);
 * - GPU/CPU readings for nodes n1 (real, two GPUs: gpu 1 at 85 % of its memory, under the 90 % alert) and n2 (simulated).
 * Deterministic: a seeded PRNG, times relative to `nowMs`.
 */
export const XSS_INPUT = '<script>window.__pwned = 1</script>hello';
export const XSS_OUTPUT = '<img src=x onerror="window.__pwned = 2">';
export const SPIKE_MINUTES_AGO = 10;
/** Requests of the last minutes whose feedback has not arrived yet. */
export const FEEDBACK_PENDING_MINUTES = 3;
export const LABELS = ['relevant', 'irrelevant', 'spam'] as const;

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
  // Its own stream, so the ranker's draws stay what the other tests were written against.
  const burstRand = prng(17);
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
      const exec = (version === 'v1' ? 30 : 38) * (replica === 'r3' ? 3 : 1) * Math.exp((rand() - 0.5) * 0.6);
      const stages = {
        ingress_ms: round(0.5 + rand()),
        queue_ms: round(queue),
        batch_ms: round(1 + rand() * 2),
        exec_ms: round(exec),
        post_ms: round(0.5 + rand()),
      };
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
        label: pickLabel(version, rand()),
        // v2 is less sure of itself: confidence shifted down by 0.15.
        confidence: round((version === 'v1' ? 0.5 : 0.35) + rand() * 0.5),
        output_length: 20 + Math.floor(rand() * 80),
        input_tokens: 40 + Math.floor(rand() * 200),
        ...(i % 5 === 0 ? { input: `query ${i} of minute ${m / minuteMs}`, output: `answer ${i}` } : {}),
      });
    }
    events.push({
      ts: new Date(m + 30_000).toISOString(),
      request_id: `legacy-${m / minuteMs}`,
      model: 'legacy',
      total_ms: round(80 + rand() * 40),
      status: 'ok',
    });
    // Model "burst": 10 requests a minute; in the last 10 minutes 4 of them are rate-limited
    // (the saturation banner's shed-load signal).
    for (let i = 0; i < 10; i++) {
      const shed = m >= nowMs - 11 * minuteMs && i < 4;
      events.push({
        ts: new Date(m + 3_000 + i * 5_000).toISOString(),
        request_id: `burst-${m / minuteMs}-${i}`,
        model: 'burst',
        tenant: 'bursty',
        queue_ms: round(2 + burstRand()),
        total_ms: shed ? 1 : round(20 + burstRand() * 5),
        status: shed ? 'rate_limited' : 'ok',
      });
    }
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
    status: 'error',
    error_type: 'internal',
    input: XSS_INPUT,
    output: XSS_OUTPUT,
  });
  return events;
}

function pickLabel(version: string, r: number): string {
  const cut = version === 'v1' ? [0.6, 0.9] : [0.45, 0.8];
  return r < cut[0]! ? 'relevant' : r < cut[1]! ? 'irrelevant' : 'spam';
}

/** Feedback on every third ranker request: conversion (v1 30 %, v2 15 %), thumbs, correct (v1 90 %, v2 80 %). */
export function seedFeedback(events: readonly Record<string, unknown>[], nowMs: number): Record<string, unknown>[] {
  const rand = prng(13);
  const out: Record<string, unknown>[] = [];
  const pendingFromMs = Math.floor(nowMs / 60_000) * 60_000 - FEEDBACK_PENDING_MINUTES * 60_000;
  events.forEach((e, i) => {
    if (e['model'] !== 'ranker' || i % 3 !== 0 || typeof e['request_id'] !== 'string') return;
    if (Date.parse(String(e['ts'])) >= pendingFromMs) return;
    const ts = new Date(Date.parse(String(e['ts'])) + 5_000).toISOString();
    const rate = e['model_version'] === 'v1' ? 0.3 : 0.15;
    out.push({ ts, request_id: e['request_id'], kind: 'conversion', value: rand() < rate });
    out.push({ ts, request_id: e['request_id'], kind: 'thumbs', value: rand() < 0.8 });
    out.push({ ts, request_id: e['request_id'], kind: 'correct', value: rand() < (e['model_version'] === 'v1' ? 0.9 : 0.8) });
  });
  return out;
}

/** Golden probes every 2 minutes per version: g1–g3 pass on v1; v2 fails g3. */
export function seedProbes(nowMs: number): Record<string, unknown>[] {
  const minuteMs = 60_000;
  const start = Math.floor(nowMs / minuteMs) * minuteMs - 40 * minuteMs;
  const rows: Record<string, unknown>[] = [];
  for (let m = start; m < nowMs - minuteMs; m += 2 * minuteMs) {
    for (const version of ['v1', 'v2']) {
      for (const id of ['g1', 'g2', 'g3']) {
        const pass = !(version === 'v2' && id === 'g3');
        rows.push({
          ts: new Date(m + 45_000).toISOString(),
          request_id: `probe-${m / minuteMs}-${version}-${id}`,
          model: 'ranker',
          model_version: version,
          total_ms: 40,
          status: 'ok',
          label: 'relevant',
          probe: true,
          attributes: {
            golden_set: 'smoke',
            golden_id: id,
            golden_pass: String(pass),
            ...(pass ? {} : { golden_reason: 'label irrelevant, expected relevant' }),
          },
        });
      }
    }
  }
  return rows;
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
        ...(node === 'n1'
          ? [
              { ...base, gpu: '1', metric: 'gpu_utilization_ratio', value: round(0.3 + rand() * 0.1) },
              { ...base, gpu: '1', metric: 'gpu_memory_used_bytes', value: 68 * 2 ** 30 },
              { ...base, gpu: '1', metric: 'gpu_memory_total_bytes', value: 80 * 2 ** 30 },
            ]
          : []),
        { ...base, metric: 'cpu_utilization_ratio', value: round(0.2 + rand() * 0.2) },
        { ...base, metric: 'memory_used_bytes', value: Math.round((12 + rand() * 2) * 2 ** 30) },
      );
      // What the host and GPU collectors write besides (n1 only; no draw, so the values above stay
      // as they were): network and disk per node, 1–5 MiB/s in a cycle; GPU 0's power and temperature.
      const k = ((m - start) / minuteMs) % 5;
      if (node === 'n1')
        rows.push(
          { ...base, metric: 'network_receive_bytes_per_second', value: (1 + k) * 2 ** 20 },
          { ...base, metric: 'network_transmit_bytes_per_second', value: (1 + k) * 2 ** 19 },
          { ...base, metric: 'disk_read_bytes_per_second', value: 3 * 2 ** 20 },
          { ...base, metric: 'disk_write_bytes_per_second', value: (5 - k) * 2 ** 20 },
          { ...base, gpu: '0', metric: 'gpu_power_watts', value: 300 + 50 * k },
          { ...base, gpu: '0', metric: 'gpu_temperature_celsius', value: 55 + k },
        );
    }
  }
  return rows;
}
