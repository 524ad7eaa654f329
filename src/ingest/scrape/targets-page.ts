/**
 * `GET /v1/scrape/targets`: every scrape target and how its last scrape went, in the spirit of
 * Prometheus's targets page — health, when, how long, the error, and what the engine tables made of
 * the body (families mapped, families not mapped and their names, lines skipped).
 */
import type { ScrapeTargetReply } from '../../schema/index.ts';
import type { TargetStats } from './scraper.ts';
import { targetUp } from './metrics.ts';

/** One entry of the page (declared with the replies: src/schema/replies/runtime.ts). */
export type TargetPageEntry = ScrapeTargetReply;

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
