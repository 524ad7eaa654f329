/** Scrape results on inferlens's own `/metrics`: up, duration, samples and failures per target. */
import type { Registry } from 'prom-client';
import { Gauge } from 'prom-client';
import type { Scraper } from './scraper.ts';

export function registerScrapeMetrics(registry: Registry, scraper: Scraper): void {
  const stats = () => scraper.stats();
  new Gauge({
    name: 'inferlens_scrape_up',
    help: '1 when the last scrape of the target succeeded, else 0.',
    labelNames: ['target', 'engine'],
    registers: [registry],
    collect() {
      this.reset();
      for (const s of stats()) this.set({ target: s.url, engine: s.engine ?? 'unknown' }, s.lastSuccessMs !== null && (s.lastError === null || s.lastError.atMs < s.lastSuccessMs) ? 1 : 0);
    },
  });
  new Gauge({
    name: 'inferlens_scrape_duration_seconds',
    help: 'Duration of the last scrape of the target.',
    labelNames: ['target'],
    registers: [registry],
    collect() {
      this.reset();
      for (const s of stats()) if (s.lastDurationMs !== null) this.set({ target: s.url }, s.lastDurationMs / 1000);
    },
  });
  new Gauge({
    name: 'inferlens_scrape_samples_total',
    help: 'Resource samples written from the target since start (a counter exposed as a gauge snapshot).',
    labelNames: ['target'],
    registers: [registry],
    collect() {
      this.reset();
      for (const s of stats()) this.set({ target: s.url }, s.samplesTotal);
    },
  });
  new Gauge({
    name: 'inferlens_scrape_failures_total',
    help: 'Failed scrapes of the target since start, by the reason of the last failure.',
    labelNames: ['target'],
    registers: [registry],
    collect() {
      this.reset();
      for (const s of stats()) this.set({ target: s.url }, s.failures);
    },
  });
}
