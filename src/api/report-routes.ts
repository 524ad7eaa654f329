/**
 * `GET /v1/reports?period&format`: the periodic review (src/reports) over the caller's scoped reads,
 * the configured prices and, where alerting runs in this process, the incident log narrowed to the
 * caller's tenants. JSON in the envelope, or the Markdown text itself (`format=md`), or a
 * standalone HTML page with SVG charts (`format=html`). `reportReads` also serves the scheduled
 * delivery (main.ts), over the unscoped reads. One review is built at a time, up to REPORT_QUEUE
 * wait, more are answered 429 with Retry-After.
 */
import type { Alerting } from '../alerting/index.ts';
import type { CostPrices } from '../query/index.ts';
import { buildReport, reportHtml, reportMarkdown } from '../reports/index.ts';
import type { ReportReads } from '../reports/index.ts';
import { InferlensError, REPORT_FILTERS, ReportRequestSchema, decode } from '../schema/index.ts';
import type { ReadScope } from '../schema/index.ts';
import type { Reads, Route } from './routes.ts';
import { scopeHistory } from './tenant-scope.ts';

export interface ReportRoutesDeps {
  prices: CostPrices;
  /** The alerting component of this process, if it runs one. */
  alerting?: Alerting;
  now: () => number;
}

/** What a review reads: a caller's read services, and the incident log and rules narrowed to its scope. */
export function reportReads(reads: Reads, scope: ReadScope, alerting?: Alerting): ReportReads {
  const { queries } = reads;
  return {
    aggregate: (spec) => queries.aggregate(spec),
    resources: async (spec) =>
      (
        await queries.resources({
          fromMs: spec.fromMs,
          toMs: spec.toMs,
          stepMs: spec.stepMs,
          metrics: [...spec.metrics],
          filters: { ...spec.filters },
          group_by: [...spec.groupBy],
        } as Parameters<typeof queries.resources>[0])
      ).rows.map(({ bucket, ...r }) => ({ ...r, bucketMs: Date.parse(bucket) })),
    cost: (req, prices) => queries.cost(req, prices),
    comparer: reads.comparer,
    errorSlices: (req) => queries.errorSlices(req),
    quality: reads.quality,
    ...(alerting && {
      history: async (fromMs: number, toMs: number) => scopeHistory(scope, await alerting.history(fromMs, toMs)),
      rules: () => alerting.rules(),
      typed: reads.typed,
      groups: () => alerting.groups(),
    }),
  };
}

/** Reviews built at once, and waiting; past that a request is answered 429 (a review replays rules and reads a period). */
export const REPORT_CONCURRENCY = 1;
export const REPORT_QUEUE = 4;

export function reportRoutes(d: ReportRoutesDeps): Route[] {
  let running = 0;
  const waiting: (() => void)[] = [];
  const slot = async (): Promise<() => void> => {
    if (running >= REPORT_CONCURRENCY) {
      if (waiting.length >= REPORT_QUEUE)
        throw new InferlensError('resource_exhausted', `${REPORT_QUEUE} reviews are already waiting on this server; try again shortly`, { retryAfterS: 10 });
      await new Promise<void>((r) => waiting.push(r));
    }
    running++;
    return () => {
      running--;
      waiting.shift()?.();
    };
  };
  return [
    {
      method: 'GET',
      path: '/v1/reports',
      access: 'read',
      handler: async (c) => {
        const q = decode(ReportRequestSchema, c.req.query(), 'report request');
        const filters = Object.fromEntries(REPORT_FILTERS.flatMap((k) => (q[k] !== undefined ? [[k, q[k]]] : [])));
        const release = await slot();
        let report;
        try {
          report = await buildReport(reportReads(c.var.reads, c.var.scope, d.alerting), d.prices, { periodMs: q.period, nowMs: d.now(), filters });
        } finally {
          release();
        }
        if (q.format === 'md') return c.body(reportMarkdown(report), 200, { 'Content-Type': 'text/markdown; charset=utf-8' });
        // No script and nothing from elsewhere: the page is its own styles and inline SVG.
        if (q.format === 'html')
          return c.body(reportHtml(report), 200, {
            'Content-Type': 'text/html; charset=utf-8',
            'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'",
            'X-Content-Type-Options': 'nosniff',
            'Referrer-Policy': 'no-referrer',
          });
        return c.json({ status: 'success', data: report });
      },
    },
  ];
}
