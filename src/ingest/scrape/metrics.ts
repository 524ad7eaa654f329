/**
 * Scrape results on inferlens's own `/metrics`, one series per target: up, duration, samples,
 * failures, parse warnings, and the families the engine tables mapped and did not. Counters are
 * counters (`_total`, read from the scraper's cumulative stats at collection), gauges have no
 * `_total`, so `promtool check metrics` is clean (test/prometheus.test.ts).
 */
import type { Registry } from 'prom-client';
import { Counter, Gauge } from 'prom-client';
import type { Scraper, TargetStats } from './scraper.ts';

/** Whether the last scrape of a target succeeded. */
export function targetUp(s: TargetStats): boolean {
  return s.lastSuccessMs !== null && (s.lastError === null || s.lastError.atMs < s.lastSuccessMs);
}

export function registerScrapeMetrics(registry: Registry, scraper: Scraper): void {
  const stats = () => scraper.stats();
  // One series per target, read from the stats at each collection: a gauge is set, a counter (from
  // a cumulative stat) is reset and raised to the stat's value.
  const perTarget = (kind: 'gauge' | 'counter', name: string, help: string, value: (s: TargetStats) => number | null) => {
    const collect = function (this: Gauge | Counter) {
      this.reset();
      for (const s of stats()) {
        const v = value(s);
        if (v === null) continue;
        if (this instanceof Gauge) this.set({ target: s.url }, v);
        else this.inc({ target: s.url }, v);
      }
    };
    const config = { name, help, labelNames: ['target'], registers: [registry], collect };
    return kind === 'gauge' ? new Gauge(config) : new Counter(config);
  };
  const gauge = (name: string, help: string, value: (s: TargetStats) => number | null) => perTarget('gauge', name, help, value);
  const counter = (name: string, help: string, value: (s: TargetStats) => number) => perTarget('counter', name, help, value);
  new Gauge({
    name: 'inferlens_scrape_up',
    help: '1 when the last scrape of the target succeeded, else 0.',
    labelNames: ['target', 'engine'],
    registers: [registry],
    collect() {
      this.reset();
      for (const s of stats()) this.set({ target: s.url, engine: s.engine ?? 'unknown' }, targetUp(s) ? 1 : 0);
    },
  });
  gauge('inferlens_scrape_duration_seconds', 'Duration of the last scrape of the target.', (s) => (s.lastDurationMs === null ? null : s.lastDurationMs / 1000));
  gauge('inferlens_scrape_mapped_families', 'Metric families an engine table mapped, in the last scrape of the target.', (s) =>
    s.lastSuccessMs === null ? null : s.lastMappedFamilies,
  );
  gauge(
    'inferlens_scrape_unmapped_families',
    'Metric families no engine table knows (not stored), in the last scrape of the target; GET /v1/scrape/targets names them.',
    (s) => (s.lastSuccessMs === null ? null : s.lastUnmappedFamilies),
  );
  counter('inferlens_scrape_samples_total', 'Resource samples written from the target since start.', (s) => s.samplesTotal);
  counter('inferlens_scrape_failures_total', 'Failed scrapes of the target since start.', (s) => s.failures);
  counter(
    'inferlens_scrape_parse_warnings_total',
    'Lines of the target’s bodies that were skipped (bad lines, duplicate families) since start.',
    (s) => s.parseWarningsTotal,
  );
  counter('inferlens_scrape_sink_rejected_total', 'Samples from the target that the write path rejected, since start.', (s) => s.sinkRejected);
}
