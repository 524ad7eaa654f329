/**
 * "Is it capacity?": request signals (P99 latency, queue time, QPS) and resource signals (GPU
 * utilisation, GPU memory ratio, CPU, host memory) on the same step buckets for a slice and window,
 * their rank correlations with the numbers, and GPU memory headroom per node, GPU and pool.
 */
import { spearman } from '../analysis/index.ts';
import type { Correlation } from '../analysis/index.ts';
import { parseMeasure } from '../schema/index.ts';
import type { CapacityRequest, Filters, Measure, QuerySpec } from '../schema/index.ts';
import type { ResourceRow, StoreReads } from '../store/index.ts';

const REQUEST_SIGNALS = { p99_total_ms: 'p99(total_ms)', mean_queue_ms: 'mean(queue_ms)', qps: 'qps' } as const;
const RESOURCE_METRICS = ['gpu_utilization_ratio', 'gpu_memory_used_bytes', 'gpu_memory_total_bytes', 'cpu_utilization_ratio', 'memory_used_bytes', 'memory_total_bytes'];
/** Levels at which a resource counts as near saturation in the window's busiest bucket. */
const SATURATION_LEVEL: Record<string, number> = { gpu_utilization_ratio: 0.85, gpu_memory_ratio: 0.9, cpu_utilization_ratio: 0.85, memory_ratio: 0.9 };

export interface CapacityPair {
  request: keyof typeof REQUEST_SIGNALS;
  resource: string;
  correlation: Correlation;
  strong: boolean;
}

export interface Headroom {
  node: string | null;
  gpu: string | null;
  pool: string | null;
  maxUsedBytes: number;
  totalBytes: number;
  headroomBytes: number;
  /** Share of the GPU's memory still free at the window's peak. */
  headroomRatio: number;
  simulated: boolean;
}

export interface CapacityResult {
  step: string;
  buckets: { bucket: string; n: number; p99_total_ms: number | null; mean_queue_ms: number | null; qps: number; resources: Record<string, number | null> }[];
  correlations: CapacityPair[];
  /** Resources whose busiest bucket is past its saturation level, with that level. */
  saturated: { resource: string; peak: number; level: number }[];
  verdict: 'capacity_bound' | 'not_capacity' | 'not_enough_data';
  reasons: string[];
  headroom: Headroom[];
  simulated: boolean;
}

/** Resource series reduced to one value per bucket: ratios for memory, averages otherwise. */
function resourceSignals(rows: ResourceRow[]): Map<number, Record<string, number>> {
  const byBucket = new Map<number, Record<string, number>>();
  for (const r of rows) {
    const b = byBucket.get(r.bucketMs) ?? {};
    b[r.metric] = r.avg;
    byBucket.set(r.bucketMs, b);
  }
  for (const b of byBucket.values()) {
    if (b.gpu_memory_used_bytes !== undefined && b.gpu_memory_total_bytes) b.gpu_memory_ratio = b.gpu_memory_used_bytes / b.gpu_memory_total_bytes;
    if (b.memory_used_bytes !== undefined && b.memory_total_bytes) b.memory_ratio = b.memory_used_bytes / b.memory_total_bytes;
    delete b.gpu_memory_used_bytes;
    delete b.gpu_memory_total_bytes;
    delete b.memory_used_bytes;
    delete b.memory_total_bytes;
  }
  return byBucket;
}

export async function capacity(store: StoreReads, o: CapacityRequest): Promise<CapacityResult> {
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
  // Resources of the slice's nodes/replicas/pools when the request filters name them.
  const resFilters: { node?: string | string[]; replica?: string | string[]; pool?: string | string[] } = {};
  if (filters.node) resFilters.node = filters.node;
  if (filters.replica) resFilters.replica = filters.replica;
  if (filters.pool) resFilters.pool = filters.pool;
  const [requests, resources, perGpu] = await Promise.all([
    store.aggregate(spec),
    store.resources({ fromMs, toMs, stepMs, metrics: RESOURCE_METRICS, filters: resFilters, groupBy: [] }),
    store.resources({ fromMs, toMs, stepMs: toMs - fromMs, metrics: ['gpu_memory_used_bytes', 'gpu_memory_total_bytes'], filters: resFilters, groupBy: ['node', 'gpu', 'pool'] }),
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
      resources: Object.fromEntries(resourceNames.map((m) => [m, b[m] ?? null])),
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
  const saturated = resourceNames
    .filter((m) => SATURATION_LEVEL[m] !== undefined)
    .map((m) => ({ resource: m, peak: Math.max(...buckets.map((b) => b.resources[m] ?? Number.NEGATIVE_INFINITY)), level: SATURATION_LEVEL[m]! }))
    .filter((s) => s.peak >= s.level);

  const reasons: string[] = [];
  let verdict: CapacityResult['verdict'];
  const usable = buckets.filter((b) => b.p99_total_ms != null && Object.values(b.resources).some((v) => v != null)).length;
  if (usable < 5) {
    verdict = 'not_enough_data';
    reasons.push(`${usable} buckets carry both request and resource data; at least 5 are needed`);
  } else {
    const tied = correlations.filter((c) => c.strong && c.correlation.r > 0 && c.request !== 'qps' && saturated.some((s) => s.resource === c.resource));
    verdict = tied.length > 0 ? 'capacity_bound' : 'not_capacity';
    for (const t of tied) reasons.push(`${t.request} rises with ${t.resource} (Spearman ρ = ${t.correlation.r.toFixed(2)}, p = ${t.correlation.pValue.toPrecision(2)}, n = ${t.correlation.n}) and ${t.resource} peaks past its saturation level`);
    if (tied.length === 0) reasons.push(saturated.length ? `resources near saturation (${saturated.map((s) => s.resource).join(', ')}) but latency does not move with them` : 'no resource near saturation in this window');
  }
  const headroom: Headroom[] = [];
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
    headroom.push({ node: g.node, gpu: g.gpu, pool: g.pool, maxUsedBytes: g.used, totalBytes: g.total, headroomBytes: g.total - g.used, headroomRatio: (g.total - g.used) / g.total, simulated: g.simulated });
  }
  headroom.sort((a, b) => a.headroomRatio - b.headroomRatio);
  return { step: o.step, buckets, correlations, saturated, verdict, reasons, headroom, simulated: resources.some((r) => r.simulated) };
}
