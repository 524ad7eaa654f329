/**
 * "Is it capacity?": request signals (P99 latency, queue time, QPS) and resource signals (GPU
 * utilisation, GPU memory ratio, CPU, host memory) on the same step buckets for a slice and window,
 * their rank correlations with the numbers, and GPU memory headroom per node, GPU and pool.
 * Resources are read per unit (each GPU of each node; each node for host metrics) and a bucket
 * holds the busiest unit's reading: saturation is a property of one GPU, and an average over a
 * node's eight GPUs shows one at 96 % of its memory as 54 %. The slice's nodes come from its
 * requests, so a replica (or model, or tenant) filter still finds its host's CPU and memory.
 */
import { spearman } from '../analysis/index.ts';
import type { Correlation } from '../analysis/index.ts';
import { parseMeasure, snakeKeys } from '../schema/index.ts';
import type { CapacityReply, CapacityRequest, Filters, Measure, QuerySpec } from '../schema/index.ts';
import type { ResourceRow, StoreReads } from '../store/index.ts';

const REQUEST_SIGNALS = { p99_total_ms: 'p99(total_ms)', mean_queue_ms: 'mean(queue_ms)', qps: 'qps' } as const;
const RESOURCE_METRICS = [
  'gpu_utilization_ratio',
  'gpu_memory_used_bytes',
  'gpu_memory_total_bytes',
  'cpu_utilization_ratio',
  'memory_used_bytes',
  'memory_total_bytes',
];
/** Levels at which a resource counts as near saturation in the window's busiest bucket. */
const SATURATION_LEVEL: Record<string, number> = { gpu_utilization_ratio: 0.85, gpu_memory_ratio: 0.9, cpu_utilization_ratio: 0.85, memory_ratio: 0.9 };

interface CapacityPair {
  request: keyof typeof REQUEST_SIGNALS;
  resource: string;
  correlation: Correlation;
  strong: boolean;
}

/** One unit's reading: a GPU (node + gpu) or a host (node). */
interface UnitReading {
  node: string | null;
  gpu: string | null;
  value: number;
}

/**
 * Resource series reduced to one value per bucket and signal: per unit first (memory as used /
 * total of that GPU or host), then the busiest unit, whose node and GPU are kept.
 */
function resourceSignals(rows: ResourceRow[]): Map<number, Record<string, UnitReading>> {
  const units = new Map<string, { bucketMs: number; node: string | null; gpu: string | null; m: Record<string, number> }>();
  for (const r of rows) {
    const key = `${r.bucketMs}\u0000${r.node ?? ''}\u0000${r.gpu ?? ''}`;
    const u = units.get(key) ?? { bucketMs: r.bucketMs, node: r.node ?? null, gpu: r.gpu ?? null, m: {} };
    u.m[r.metric] = r.avg;
    units.set(key, u);
  }
  const byBucket = new Map<number, Record<string, UnitReading>>();
  for (const u of units.values()) {
    const signals: Record<string, number> = {};
    if (u.m.gpu_utilization_ratio !== undefined) signals.gpu_utilization_ratio = u.m.gpu_utilization_ratio;
    if (u.m.cpu_utilization_ratio !== undefined) signals.cpu_utilization_ratio = u.m.cpu_utilization_ratio;
    if (u.m.gpu_memory_used_bytes !== undefined && u.m.gpu_memory_total_bytes)
      signals.gpu_memory_ratio = u.m.gpu_memory_used_bytes / u.m.gpu_memory_total_bytes;
    if (u.m.memory_used_bytes !== undefined && u.m.memory_total_bytes) signals.memory_ratio = u.m.memory_used_bytes / u.m.memory_total_bytes;
    const b = byBucket.get(u.bucketMs) ?? {};
    for (const [signal, value] of Object.entries(signals)) {
      if (b[signal] === undefined || value > b[signal].value) b[signal] = { node: u.node, gpu: u.gpu, value };
    }
    byBucket.set(u.bucketMs, b);
  }
  return byBucket;
}

export async function capacity(store: StoreReads, o: CapacityRequest): Promise<CapacityReply> {
  const { fromMs, toMs, stepMs } = o;
  const filters = o.filters as Filters;
  const spec: QuerySpec = {
    fromMs,
    toMs,
    filters,
    groupBy: [],
    stepMs,
    includeProbes: false,
    limit: 10_000,
    measures: ['n', ...Object.values(REQUEST_SIGNALS)].map((name) => ({ name, measure: parseMeasure(name) as Measure })),
  };
  // Resources of the nodes the slice's requests ran on: host and GPU readings carry a node (and a
  // GPU), rarely a replica or model, so any filter is resolved to nodes through the requests.
  const resFilters: { node?: string | string[]; pool?: string | string[] } = {};
  let nodes: string[] | null = null;
  if (filters.node) nodes = Array.isArray(filters.node) ? [...filters.node] : [filters.node];
  else if (Object.keys(filters).length > 0) {
    const rows = await store.aggregate({
      ...spec,
      stepMs: undefined,
      groupBy: ['node'],
      limit: 1000,
      measures: [{ name: 'n', measure: { kind: 'n' } as Measure }],
    });
    nodes = rows
      .map((r) => r.node)
      .filter((v): v is string => typeof v === 'string')
      .sort();
  }
  if (nodes) resFilters.node = nodes.length > 0 ? nodes : ['\u0000none'];
  if (filters.pool) resFilters.pool = filters.pool;
  const [requests, resources, perGpu] = await Promise.all([
    store.aggregate(spec),
    store.resources({ fromMs, toMs, stepMs, metrics: RESOURCE_METRICS, filters: resFilters, groupBy: ['node', 'gpu'] }),
    store.resources({
      fromMs,
      toMs,
      stepMs: toMs - fromMs,
      metrics: ['gpu_memory_used_bytes', 'gpu_memory_total_bytes'],
      filters: resFilters,
      groupBy: ['node', 'gpu', 'pool'],
    }),
  ]);
  const res = resourceSignals(resources);
  const resourceNames = [...new Set([...res.values()].flatMap((b) => Object.keys(b)))].sort();
  const buckets = requests.map((r) => {
    const b = res.get(r.bucket as number) ?? {};
    return {
      bucket: new Date(r.bucket as number).toISOString(),
      n: r.n as number,
      p99_total_ms: r['p99(total_ms)'] as number | null,
      mean_queue_ms: r['mean(queue_ms)'] as number | null,
      qps: r.qps as number,
      resources: Object.fromEntries(resourceNames.map((m) => [m, b[m]?.value ?? null])),
    };
  });
  const correlations: CapacityPair[] = [];
  for (const request of Object.keys(REQUEST_SIGNALS) as (keyof typeof REQUEST_SIGNALS)[]) {
    for (const resource of resourceNames) {
      const c = spearman(
        buckets.map((b) => b[request] ?? Number.NaN),
        buckets.map((b) => b.resources[resource] ?? Number.NaN),
      );
      correlations.push({ request, resource, correlation: c, strong: Math.abs(c.r) >= o.min_rho && c.pValue < 0.05 });
    }
  }
  // The peak over every bucket of the window (with or without requests), with its unit.
  const saturated: CapacityReply['saturated'] = [];
  for (const m of resourceNames) {
    const level = SATURATION_LEVEL[m];
    if (level === undefined) continue;
    let peak: UnitReading | null = null;
    for (const b of res.values()) if (b[m] && (peak === null || b[m].value > peak.value)) peak = b[m];
    if (peak && peak.value >= level) saturated.push({ resource: m, peak: peak.value, level, node: peak.node, gpu: peak.gpu });
  }
  const unitName = (s: { node: string | null; gpu: string | null }) => [s.node && `node ${s.node}`, s.gpu && `GPU ${s.gpu}`].filter(Boolean).join(' ');

  const reasons: string[] = [];
  let verdict: CapacityReply['verdict'];
  const usable = buckets.filter((b) => b.p99_total_ms != null && Object.values(b.resources).some((v) => v != null)).length;
  if (usable < 5) {
    verdict = 'not_enough_data';
    reasons.push(`${usable} buckets carry both request and resource data; at least 5 are needed`);
  } else {
    const tied = correlations.filter((c) => c.strong && c.correlation.r > 0 && c.request !== 'qps' && saturated.some((s) => s.resource === c.resource));
    verdict = tied.length > 0 ? 'capacity_bound' : 'not_capacity';
    for (const t of tied) {
      const unit = saturated.find((s) => s.resource === t.resource)!;
      reasons.push(
        `${t.request} rises with ${t.resource} (Spearman ρ = ${t.correlation.r.toFixed(2)}, p = ${t.correlation.pValue.toPrecision(2)}, n = ${t.correlation.n}) and ${t.resource} peaks at ${(100 * unit.peak).toFixed(1)} % on ${unitName(unit)}, past its saturation level`,
      );
    }
    if (tied.length === 0)
      reasons.push(
        saturated.length
          ? `resources near saturation (${saturated.map((s) => `${s.resource} ${(100 * s.peak).toFixed(1)} % on ${unitName(s)}`).join(', ')}) but latency does not move with them`
          : 'no resource near saturation in this window',
      );
  }
  const headroom: CapacityReply['headroom'] = [];
  const gpus = new Map<string, { node: string | null; gpu: string | null; pool: string | null; used?: number; total?: number; simulated: boolean }>();
  for (const r of perGpu) {
    const key = `${r.node}\u0000${r.gpu}\u0000${r.pool}`;
    const g = gpus.get(key) ?? { node: r.node ?? null, gpu: r.gpu ?? null, pool: r.pool ?? null, simulated: false };
    if (r.metric === 'gpu_memory_used_bytes') g.used = r.max;
    else g.total = r.max;
    g.simulated ||= r.simulated;
    gpus.set(key, g);
  }
  for (const g of gpus.values()) {
    if (g.used === undefined || !g.total) continue;
    headroom.push({
      node: g.node,
      gpu: g.gpu,
      pool: g.pool,
      max_used_bytes: g.used,
      total_bytes: g.total,
      headroom_bytes: g.total - g.used,
      headroom_ratio: (g.total - g.used) / g.total,
      simulated: g.simulated,
    });
  }
  headroom.sort((a, b) => a.headroom_ratio - b.headroom_ratio);
  return {
    step: o.step,
    buckets,
    nodes,
    correlations: correlations.map((c) => ({ ...c, correlation: snakeKeys(c.correlation) })),
    saturated,
    verdict,
    reasons,
    headroom,
    simulated: resources.some((r) => r.simulated),
  };
}
