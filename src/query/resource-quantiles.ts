/**
 * Quantiles of a histogram stored as resource samples (`<metric>_bucket{le}`): what the scraper
 * writes for an engine's histograms (per-interval bucket increases: `ttft_seconds`,
 * `request_latency_seconds`, …; docs/engines.md) and OTLP histograms exported with delta
 * temporality. Per time bucket and group, the increases of each `le` are summed (across the
 * intervals in the step and the series in the group) and the quantile is interpolated inside the
 * buckets as Prometheus's `histogram_quantile` does (src/analysis). The answer says so:
 * `method: "bucket_interpolated"` with the bucket bounds, so a P99 of "2.5 s" read from a
 * histogram whose bounds are 1 s and 2.5 s is not mistaken for a measured value.
 */
import { histogramQuantile, parseLe } from '../analysis/index.ts';
import type { ResourceQuantilesReply, ResourceQuantilesRequest } from '../schema/index.ts';
import { resourceLabelOf } from '../store/index.ts';
import type { ResourceRow, StoreReads } from '../store/index.ts';

type QuantileRow = ResourceQuantilesReply['rows'][number];

export async function resourceQuantiles(store: StoreReads, o: ResourceQuantilesRequest): Promise<ResourceQuantilesReply> {
  const groupBy = [...o.group_by, 'labels.le' as const];
  const rows = await store.resources({ fromMs: o.fromMs, toMs: o.toMs, stepMs: o.stepMs, metrics: [`${o.metric}_bucket`], filters: o.filters, groupBy });
  const groups = new Map<string, { head: ResourceRow; buckets: { le: number; count: number }[] }>();
  const bounds = new Set<number>();
  for (const r of rows) {
    const le = parseLe(r.labels?.le);
    if (Number.isNaN(le)) continue;
    if (le !== Infinity) bounds.add(le);
    const key = JSON.stringify([r.bucketMs, ...o.group_by.map((g) => (resourceLabelOf(g) === undefined ? r[g as 'node'] : r.labels?.[resourceLabelOf(g)!]))]);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { head: r, buckets: [] }));
    g.buckets.push({ le, count: r.sum });
  }
  const out: QuantileRow[] = [];
  for (const { head, buckets } of groups.values()) {
    const row: QuantileRow = { bucket: new Date(head.bucketMs).toISOString(), count: buckets.find((b) => b.le === Infinity)?.count ?? 0, values: {} };
    for (const g of o.group_by) {
      const label = resourceLabelOf(g);
      if (label === undefined) row[g as 'node'] = head[g as 'node'] ?? null;
      else (row.labels ??= {})[label] = head.labels?.[label] ?? null;
    }
    for (const q of o.quantiles) row.values[String(q)] = histogramQuantile(q, buckets);
    out.push(row);
  }
  out.sort((a, b) => a.bucket.localeCompare(b.bucket));
  return { metric: o.metric, method: 'bucket_interpolated', bounds: [...bounds].sort((a, b) => a - b), rows: out };
}
