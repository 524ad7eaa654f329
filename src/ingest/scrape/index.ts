/** Prometheus / OpenMetrics scraping of model servers and GPU exporters → resource samples. */

/** Parses Prometheus text 0.0.4 / OpenMetrics 1.0; never throws, reports bad lines as warnings with line numbers. */
export { parseExposition, parseFloatStrict, groupSeries, labelKey } from './parse.ts';
/** The parser's output: families with their samples, histogram/summary series, warnings. */
export type {
  ParseResult,
  ParseOptions,
  ParseWarning,
  ParseWarningReason,
  MetricFamily,
  MetricType,
  Sample,
  Exemplar,
  SeriesGroup,
  ExpositionFormat,
} from './parse.ts';
/** Engine detection and the engine → concept mapping table (documented in docs/engines.md). */
export { ENGINES, mapFamilies, detectEngine, classifyFamily, concepts } from './engines.ts';
/** Engine names, a target's engine setting, and mapped concept samples. */
export type { Engine, EngineSetting, MappedSample, MapResult, SamplePart } from './engines.ts';
/** Per-series state that turns counters into rates (resets handled) and histograms into interval buckets and means. */
export { createRateState } from './rates.ts';
/** The rate state's interface and its output. */
export type { RateState, RateStateOptions, DerivedSample } from './rates.ts';
/** The scrape target config schema, for the config module to embed. */
export { ScrapeTargetSchema } from './target.ts';
/** A validated target, and a target as written in config. */
export type { ScrapeTarget, ScrapeTargetInput } from './target.ts';
/** The scraper component: per-target timers, timeouts, failure stats; writes to a ResourceSink. */
export { createScraper, toResourceSample } from './scraper.ts';
/** The scraper's interface, options and per-target stats. */
export type { Scraper, ScraperOptions, TargetStats, ScrapeFailureReason } from './scraper.ts';
/** A non-overlapping interval loop with an idempotent stop (shared with the collectors). */
export { createLoop } from './loop.ts';
/** The loop's interface. */
export type { Loop } from './loop.ts';
/** The lifecycle and logger shapes shared with the collectors and the composition root. */
export { silentLogger } from './component.ts';
/** Component (`start`, idempotent `stop`) and the pino-compatible Logger subset. */
export type { Component, Logger } from './component.ts';
/** Registers per-target scrape results (up, duration, samples, failures, mapped/unmapped families, parse warnings) on a prom-client registry. */
export { registerScrapeMetrics, targetUp } from './metrics.ts';
/** `GET /v1/scrape/targets`: each target's health, last scrape, error and mapped/unmapped families. */
export { targetsPage } from './targets-page.ts';
export type { TargetPageEntry } from './targets-page.ts';
