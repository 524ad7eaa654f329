/**
 * The Runtime view's "Engine" panel group: what the scraped inference engines (vLLM, SGLang, TGI,
 * Triton, NIM …) say about themselves, on the requests' time axis — KV-cache usage, running and
 * waiting requests, token throughput, prefix-cache hit rate — and the scrape targets table (health,
 * last scrape, families mapped and not). One resource query grouped by node, replica and the
 * samples' own `engine` and `model` labels, and one read of `GET /v1/scrape/targets`.
 */
import { get, post } from '../api.ts';
import type { ResourceSeriesReply, ScrapeTargetReply, ScrapeTargetsReply } from '../../../src/schema/replies.ts';
import { h, replace } from '../dom.ts';
import { colorFor, fmtMs, fmtNum, fmtPct, fmtTime } from '../format.ts';
import type { Panel } from '../panel.ts';
import { onGrid, timeSeries } from '../charts/timeseries.ts';
import type { SeriesSpec } from '../charts/timeseries.ts';
import type { ViewContext } from '../view.ts';
import { table, tag } from './common.ts';

/** Engine concepts the panels draw (docs/engines.md). */
const ENGINE_METRICS = [
  'kv_cache_usage_ratio',
  'running_requests',
  'queue_length',
  'generation_tokens_per_second',
  'prompt_tokens_per_second',
  'prefix_cache_hit_ratio',
  'prefix_cache_hit_tokens_per_second',
  'prefix_cache_queried_tokens_per_second',
];

type Rec = Record<string, unknown>;
type ResourceRow = ResourceSeriesReply['rows'][number];

/** "vllm · Llama-3.1-8B @ vllm-0": an engine process serving a model. */
function unitOf(r: ResourceRow): string {
  const where = r.replica ?? r.node ?? '?';
  const model = r.labels?.['model'];
  return `${r.labels?.['engine'] ?? 'engine'}${model ? ` · ${model}` : ''} @ ${where}`;
}

/** Loads and draws the engine panels into `panel`; `syncKey` ties their cursor to the other charts. */
export async function loadEngine(panel: Panel, ctx: ViewContext, syncKey: string): Promise<void> {
  const { win, state, signal } = ctx;
  const filters: Rec = {};
  if (state.filters.node) filters['node'] = state.filters.node;
  const [data, targetsData] = await Promise.all([
    post<ResourceSeriesReply>(
      '/v1/resources/query',
      { from: win.from, to: win.to, step: win.step, metrics: ENGINE_METRICS, filters, group_by: ['node', 'replica', 'labels.engine', 'labels.model'] },
      signal,
    ),
    get<ScrapeTargetsReply>('/v1/scrape/targets', signal),
  ]);
  if (signal.aborted) return;
  // Only samples a scraper wrote (they carry the engine label); `queue_length` may also come from elsewhere.
  const rows = data.rows.filter((r) => r.labels?.['engine'] != null);
  const targets = targetsData.targets;
  if (rows.length === 0 && targets.length === 0) {
    panel.needs(
      ['an engine scrape target'],
      'Add scrape.targets (vLLM, SGLang, TGI, Triton, NIM …: their /metrics URL) to the config to see KV-cache usage, running and waiting requests, token throughput and prefix-cache hits here.',
    );
    return;
  }

  const units = new Map<string, Map<string, ResourceRow[]>>();
  for (const r of rows) {
    const u = unitOf(r);
    const byMetric = units.get(u) ?? new Map<string, ResourceRow[]>();
    byMetric.set(r.metric, [...(byMetric.get(r.metric) ?? []), r]);
    units.set(u, byMetric);
  }
  const names = [...units.keys()].sort();
  const column = (u: string, metric: string): (number | null)[] => onGrid(win.buckets, units.get(u)?.get(metric) ?? []).map((r) => (r ? r.avg : null));
  const lines = (metric: string, suffix = '', dash = false): SeriesSpec[] =>
    names
      .filter((u) => units.get(u)?.has(metric))
      .map((u) => ({ label: `${u}${suffix}`, color: colorFor(u, names.indexOf(u)), values: column(u, metric), ...(dash ? { dash: true } : {}) }));
  // Prefix-cache hit rate: SGLang reports the ratio; vLLM counts hit and queried tokens.
  const hitRate: SeriesSpec[] = names.flatMap((u) => {
    const ratio = column(u, 'prefix_cache_hit_ratio');
    const hits = column(u, 'prefix_cache_hit_tokens_per_second');
    const queried = column(u, 'prefix_cache_queried_tokens_per_second');
    const values = ratio.map((v, i) => v ?? (hits[i] != null && queried[i] ? hits[i]! / queried[i]! : null));
    return values.some((v) => v != null) ? [{ label: u, color: colorFor(u, names.indexOf(u)), values }] : [];
  });
  const charts: { id: string; title: string; s: SeriesSpec[]; fmt: (v: number) => string; needs: string }[] = [
    { id: 'engine-kv', title: 'KV-cache usage', s: lines('kv_cache_usage_ratio'), fmt: (v) => fmtPct(v, 0), needs: 'kv_cache_usage_ratio' },
    {
      id: 'engine-requests',
      title: 'Running (solid) and waiting (dashed) requests',
      s: [...lines('running_requests', ' running'), ...lines('queue_length', ' waiting', true)],
      fmt: (v) => fmtNum(v),
      needs: 'running_requests',
    },
    {
      id: 'engine-tokens',
      title: 'Token throughput: generated (solid), prompt (dashed), per second',
      s: [...lines('generation_tokens_per_second', ' generated'), ...lines('prompt_tokens_per_second', ' prompt', true)],
      fmt: (v) => fmtNum(v),
      needs: 'generation_tokens_per_second',
    },
    { id: 'engine-prefix', title: 'Prefix-cache hit rate', s: hitRate, fmt: (v) => fmtPct(v, 0), needs: 'prefix_cache_hit_ratio or prefix_cache_*_tokens' },
  ];
  panel.setMeta(`${names.length} engine process${names.length === 1 ? '' : 'es'} · ${targets.length} scrape target${targets.length === 1 ? '' : 's'}`);
  const grid = h('div', { class: 'subgrid' });
  panel.ready(grid);
  for (const c of charts) {
    const box = h('div', { class: 'chart' });
    grid.appendChild(h('div', { class: 'subpanel', data: { engine: c.id, series: String(c.s.length) } }, h('h4', null, c.title), box));
    if (c.s.length === 0) {
      replace(box, h('div', { class: 'needs small' }, 'Needs ', h('code', null, c.needs)));
      continue;
    }
    timeSeries(box, { id: c.id, xs: win.buckets, xRange: [win.fromMs, win.toMs], series: c.s, fmt: c.fmt, syncKey, height: 160 });
  }
  grid.appendChild(h('div', { class: 'subpanel wide', data: { engine: 'engine-targets' } }, h('h4', null, 'Scrape targets'), targetsTable(targets)));
}

/** Like Prometheus's targets page: health, engine, last scrape, duration, families mapped / not, the error. */
function targetsTable(targets: ScrapeTargetReply[]): HTMLElement {
  if (targets.length === 0) return h('div', { class: 'placeholder' }, 'no scrape targets are configured');
  return table(
    ['target', 'health', 'engine', 'last scrape', 'duration', 'families mapped', 'not mapped', 'skipped lines', 'error'],
    targets.map((t) => {
      const err = t.last_error;
      const last = t.last_scrape;
      return [
        h('code', null, t.url),
        tag(t.health, { health: t.health }),
        t.engine ?? '—',
        last ? fmtTime(Date.parse(last)) : '—',
        t.last_duration_ms != null ? fmtMs(t.last_duration_ms) : '—',
        fmtNum(t.mapped_families),
        h('span', { title: t.unmapped_names.join('\n') }, fmtNum(t.unmapped_families)),
        fmtNum(t.parse_warnings.total),
        err && t.health === 'down' ? `${err.reason}: ${err.message}` : '',
      ];
    }),
    (i) => ({ target: targets[i]!.url }),
  );
}
