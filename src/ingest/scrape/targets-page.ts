/**
 * `GET /v1/scrape/targets`: every scrape target and how its last scrape went, in the spirit of
 * Prometheus's targets page — health, when, how long, the error, and what the engine tables made of
 * the body (families mapped, families not mapped and their names, lines skipped).
 */
import type { TargetStats } from './scraper.ts';
import { targetUp } from './metrics.ts';

export interface TargetPageEntry {
  url: string;
  labels: Record<string, string>;
  /** `up` (last scrape succeeded), `down` (it failed), `unknown` (not scraped yet). */
  health: 'up' | 'down' | 'unknown';
  engine: string | null;
  engine_setting: string;
  interval_ms: number;
  last_scrape: string | null;
  last_success: string | null;
  last_duration_ms: number | null;
  last_error: { at: string; reason: string; message: string } | null;
  scrapes: number;
  failures: number;
  last_samples: number;
  samples_total: number;
  mapped_families: number;
  unmapped_families: number;
  /** The first 100 unmapped family names of the last successful scrape. */
  unmapped_names: string[];
  parse_warnings: { last: number; total: number; first: { line: number; message: string } | null };
  dropped_series: number;
  sink_rejected: number;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** The page's entries, in configuration order. */
export function targetsPage(stats: readonly TargetStats[]): TargetPageEntry[] {
  return stats.map((s) => ({
    url: s.url,
    labels: s.labels,
    health: s.lastScrapeMs === null ? 'unknown' : targetUp(s) ? 'up' : 'down',
    engine: s.engine ?? null,
    engine_setting: s.engineSetting,
    interval_ms: s.intervalMs,
    last_scrape: iso(s.lastScrapeMs),
    last_success: iso(s.lastSuccessMs),
    last_duration_ms: s.lastDurationMs === null ? null : Math.round(s.lastDurationMs * 1000) / 1000,
    last_error: s.lastError && { at: new Date(s.lastError.atMs).toISOString(), reason: s.lastError.reason, message: s.lastError.message },
    scrapes: s.scrapes,
    failures: s.failures,
    last_samples: s.lastSamples,
    samples_total: s.samplesTotal,
    mapped_families: s.lastMappedFamilies,
    unmapped_families: s.lastUnmappedFamilies,
    unmapped_names: s.lastUnmappedNames,
    parse_warnings: { last: s.lastParseWarnings, total: s.parseWarningsTotal, first: s.lastParseWarning },
    dropped_series: s.droppedSeries,
    sink_rejected: s.sinkRejected,
  }));
}
