/**
 * The runtime view (platform engineers): is it slower, is throughput dropping or saturating, where
 * do errors concentrate, is it capacity. This file lays the panels out and runs their loads; each
 * panel is its own module in runtime/. Every request allows the per-minute rollup (`approx`):
 * quantiles within ~1 %, said on the panel whenever the rollup answered; the slice finder counts a
 * sample on large windows, also said. Panels draw as their own reply arrives (the KPIs do not wait
 * for the charts; the heatmap draws first and adds the P99 overlay when the bucket query lands).
 * First render is one batch of parallel requests: the shared bucket query (runtime/buckets.ts: every
 * measure the seven bucket panels and the heatmap's P99 overlay need, in one `/v1/query`), the
 * totals, the histogram, the slice finder, the saturation check, the stage attribution, the
 * per-replica exec latency, the resources and the engine panels (views/engine.ts). Filter dropdown
 * values load beside it, never blocking. Field presence (staged adoption) is read off the same
 * rows: a stage whose mean is null in every bucket that has requests was not sent.
 */
import { num } from '../api.ts';
import { h, replace } from '../dom.ts';
import { Panel } from '../panel.ts';
import type { ViewContext, ViewHandle } from '../view.ts';
import { loadEngine } from './engine.ts';
import { queryBuckets } from './runtime/buckets.ts';
import { createConcentration } from './runtime/concentration.ts';
import { drawErrors } from './runtime/errors.ts';
import { drawGenerative } from './runtime/generative.ts';
import { loadHeatmap } from './runtime/heatmap.ts';
import { drawLatency } from './runtime/latency.ts';
import { drawNotServed } from './runtime/not-served.ts';
import { drawQueue } from './runtime/queue.ts';
import { loadReplicas } from './runtime/replicas.ts';
import { loadResources } from './runtime/resources.ts';
import { loadSaturation } from './runtime/saturation.ts';
import { SYNC } from './runtime/shared.ts';
import type { Buckets } from './runtime/shared.ts';
import { loadStageShift } from './runtime/stage-shift.ts';
import { drawStages } from './runtime/stages.ts';
import { loadSummary } from './runtime/summary.ts';
import { drawThroughput } from './runtime/throughput.ts';

export function runtimeView(root: HTMLElement): ViewHandle {
  const p = {
    latency: new Panel(
      'latency',
      'Latency percentiles',
      'total_ms per bucket, log scale (max dashed, request count on the right) · click a point for the requests at or above it',
    ),
    stages: new Panel('stages', 'Where the time goes', 'mean ms per stage, stacked (ingress → queue → batch → exec → post)'),
    heatmap: new Panel('heatmap', 'Latency heatmap', 'requests per latency bucket (log scale) with P99 · click a cell for its requests'),
    qps: new Panel('qps', 'Throughput by status', 'requests per second, stacked by status · click for the requests'),
    queue: new Panel(
      'queue',
      'Queue time, queue length and batch size',
      "queue_ms P99 and mean (left); queue length = arrivals/s × mean queue time (Little's law), mean and max batch size (right)",
    ),
    rejects: new Panel('rejects', 'Not served: rejected, rate-limited, timed out, …', 'share of requests per bucket, by status'),
    errors: new Panel('errors', 'Errors by cause', 'error share per bucket by error_type, and the window totals'),
    concentration: new Panel(
      'concentration',
      'Where it concentrates',
      'slices whose rate is significantly above the rest (BH q < 0.05), with 95 % intervals',
      true,
    ),
    stageShift: new Panel(
      'stage-shift',
      'Which stage grew',
      'P99 per stage, this window vs the one before; a stage is named when its growth is significant (Holm) and ≥ ×1.1',
    ),
    replicas: new Panel('replicas', 'Exec latency by replica', 'exec_ms P50 (solid) and P99 (dashed) per replica · a slow replica stands out from its peers'),
    generative: new Panel('generative', 'Time to first token / per output token', 'generative models: TTFT and TPOT P50 / P99'),
    resources: new Panel('resources', 'Resources on the same time axis', 'GPU utilisation and memory per GPU, CPU and host memory per node', true),
    engine: new Panel(
      'engine',
      'Engine',
      'what the scraped inference engines report: KV cache, running and waiting requests, tokens, prefix-cache hits (per engine process)',
      true,
    ),
  };
  const summary = h('div', { class: 'kpis', data: { panel: 'summary' } });
  const saturation = h('div', { class: 'banner', data: { panel: 'saturation', state: 'loading' } });
  /** The panels drawn from the shared bucket query, and how each draws. */
  const bucketPanels: [Panel, (panel: Panel, b: Buckets) => void][] = [
    [p.stages, drawStages],
    [p.qps, drawThroughput],
    [p.queue, drawQueue],
    [p.rejects, drawNotServed],
    [p.errors, drawErrors],
    [p.generative, drawGenerative],
  ];
  let last: ViewContext | null = null;
  /** The slow replica the stage attribution named, shown on the per-replica panel too. */
  let replicaNote = '';
  const concentration = createConcentration(p.concentration, () => {
    if (last) void guard(p.concentration, () => concentration.load(last!));
  });

  replace(
    root,
    h(
      'div',
      { class: 'view-runtime' },
      saturation,
      summary,
      h(
        'div',
        { class: 'grid' },
        ...[
          p.latency,
          p.stages,
          p.heatmap,
          p.qps,
          p.queue,
          p.rejects,
          p.errors,
          p.stageShift,
          p.replicas,
          p.concentration,
          p.generative,
          p.resources,
          p.engine,
        ].map((x) => x.el),
      ),
    ),
  );

  /** The KPIs as soon as their (smaller) query lands; the bucket panels once the bucket query does. */
  async function loadBucketPanels(ctx: ViewContext, buckets: Promise<Buckets>): Promise<void> {
    const totals = loadSummary(summary, ctx);
    totals.catch(() => undefined); // awaited below; a bucket-query failure must not leave it unhandled
    const b = await buckets;
    if (ctx.signal.aborted) return;
    const total = await totals;
    if (ctx.signal.aborted) return;
    if (!b.count.some((v) => (v ?? 0) > 0)) {
      for (const x of [p.latency, ...bucketPanels.map(([panel]) => panel)]) x.empty('No requests in this window for these filters.');
      return;
    }
    drawLatency(p.latency, b, num(total['n']));
    for (const [panel, draw] of bucketPanels) draw(panel, b);
  }

  /** Runs a panel's load: an abort is ignored, a failure is said on the panel. */
  async function guard(panel: Panel, fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (e) {
      if (last?.signal.aborted || (e instanceof DOMException && e.name === 'AbortError')) return;
      panel.error((e as Error).message);
    }
  }

  return {
    async update(ctx) {
      last = ctx;
      for (const x of Object.values(p)) x.loading();
      const buckets = queryBuckets(ctx);
      await Promise.all([
        loadBucketPanels(ctx, buckets).catch((e: unknown) => {
          if (ctx.signal.aborted) return;
          const msg = (e as Error).message;
          for (const x of [p.latency, ...bucketPanels.map(([panel]) => panel)]) x.error(msg);
        }),
        guard(p.heatmap, () => loadHeatmap(p.heatmap, ctx, buckets)),
        guard(p.concentration, () => concentration.load(ctx)),
        guard(p.stageShift, async () => {
          replicaNote = await loadStageShift(p.stageShift, ctx);
          if (!ctx.signal.aborted) p.replicas.setMeta(replicaNote);
        }),
        guard(p.replicas, async () => {
          await loadReplicas(p.replicas, ctx);
          if (!ctx.signal.aborted) p.replicas.setMeta(replicaNote);
        }),
        guard(p.resources, () => loadResources(p.resources, ctx)),
        guard(p.engine, () => loadEngine(p.engine, ctx, SYNC)),
        loadSaturation(saturation, ctx),
      ]);
    },
    destroy() {
      replace(root);
    },
  };
}
