/**
 * The Prometheus scraper: each target on its own timer, fetch with a timeout → parse → map to
 * concepts → counters to rates → `ResourceSink.writeResources`.
 *
 * A target that is down, slow or answers garbage is one failed scrape with a reason in `stats()`;
 * it never delays the others (each target has its own loop and its own AbortController). Scrapes
 * of one target never overlap: the next one is scheduled when the previous one has finished.
 * Logging is per state change (a target starts failing, recovers), never per sample or per scrape.
 */
import type { ResourceSink } from '../../pipeline/index.ts';
import type { ResourceSample } from '../../schema/index.ts';
import { InferlensError, truncate, zodIssues } from '../../schema/index.ts';
import type { Component, Logger } from './component.ts';
import { silentLogger } from './component.ts';
import type { Engine } from './engines.ts';
import type { Loop } from './loop.ts';
import { createLoop } from './loop.ts';
import { mapFamilies } from './engines.ts';
import { parseExposition } from './parse.ts';
import type { DerivedSample, RateState } from './rates.ts';
import { createRateState } from './rates.ts';
import type { ScrapeTarget, ScrapeTargetInput } from './target.ts';
import { ScrapeTargetSchema } from './target.ts';

export type ScrapeFailureReason = 'timeout' | 'connection' | 'http_status' | 'body_too_large' | 'unparseable' | 'sink';

export interface TargetStats {
  url: string;
  /** The target's configured labels (node, replica, pool, …), its interval and engine setting. */
  labels: Record<string, string>;
  intervalMs: number;
  engineSetting: ScrapeTarget['engine'];
  /** Detected (or configured) engine of the last successful scrape. */
  engine: Engine | undefined;
  scrapes: number;
  failures: number;
  /** Epoch ms of the last scrape attempt, whatever its outcome. */
  lastScrapeMs: number | null;
  /** Epoch ms of the last successful scrape. */
  lastSuccessMs: number | null;
  /** The last failure; kept after a recovery (compare `atMs` with `lastSuccessMs`). */
  lastError: { atMs: number; reason: ScrapeFailureReason; message: string } | null;
  lastDurationMs: number | null;
  /** Resource samples written by the last successful scrape. */
  lastSamples: number;
  samplesTotal: number;
  /** Parse warnings of the last scrape (bad lines, duplicate families), and the first of them. */
  lastParseWarnings: number;
  lastParseWarning: { line: number; message: string } | null;
  /** Parse warnings since start (cumulative). */
  parseWarningsTotal: number;
  /** Families an engine table mapped, in the last scrape. */
  lastMappedFamilies: number;
  /** Families no engine table knows, in the last scrape, and the first 100 of their names. */
  lastUnmappedFamilies: number;
  lastUnmappedNames: string[];
  /** Series not tracked for rates because the per-target state was full (cumulative). */
  droppedSeries: number;
  /** Samples the sink rejected (cumulative). */
  sinkRejected: number;
}

export interface ScraperOptions {
  targets: readonly ScrapeTargetInput[];
  sink: ResourceSink;
  logger?: Logger;
  /** Injected for tests; defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Epoch ms; the sample timestamp and the clock for rates. */
  now?: () => number;
  /** Sets and clears each scrape's timeout. Injected for tests; defaults to the global timers. */
  timers?: { setTimeout(fn: () => void, ms: number): unknown; clearTimeout(handle: unknown): void };
  /** Bound on series tracked per target for counter rates. Default 20,000. */
  maxSeriesPerTarget?: number;
  /** Bodies larger than this fail with `body_too_large`. Default 16 MiB. */
  maxBodyBytes?: number;
}

export interface Scraper extends Component {
  stats(): TargetStats[];
  /** Scrapes every target once, now, in parallel (what the timers do each interval). */
  scrapeOnce(): Promise<void>;
}

const ACCEPT = 'application/openmetrics-text;version=1.0.0;q=0.5,text/plain;version=0.0.4;q=0.4,*/*;q=0.1';

class ScrapeFailure extends Error {
  constructor(
    readonly reason: ScrapeFailureReason,
    message: string,
  ) {
    super(message);
  }
}

interface TargetState {
  target: ScrapeTarget;
  rates: RateState;
  stats: TargetStats;
  loop: Loop;
  controller: AbortController | undefined;
  failing: boolean;
  warnedParse: boolean;
}

/** Validates the targets (throws `invalid_argument` listing every problem) and builds the scraper. */
export function createScraper(options: ScraperOptions): Scraper {
  const logger = options.logger ?? silentLogger;
  const fetchFn = options.fetch ?? fetch;
  const now = options.now ?? Date.now;
  const timers: NonNullable<ScraperOptions['timers']> = options.timers ?? {
    setTimeout: (fn, ms) => setTimeout(fn, ms),
    clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
  };
  const maxBodyBytes = options.maxBodyBytes ?? 16 * 1024 * 1024;
  const issues = options.targets.flatMap((t, i) => {
    const r = ScrapeTargetSchema.safeParse(t);
    return r.success ? [] : zodIssues(r.error).map((x) => ({ path: `targets.${i}${x.path ? `.${x.path}` : ''}`, message: x.message }));
  });
  if (issues.length > 0)
    throw new InferlensError('invalid_argument', `bad scrape target config: ${issues.map((x) => `${x.path}: ${x.message}`).join('; ')}`, { issues });
  const states: TargetState[] = options.targets.map((t) => {
    const target = ScrapeTargetSchema.parse(t);
    const st: TargetState = {
      target,
      rates: createRateState({ maxSeries: options.maxSeriesPerTarget ?? 20_000, staleAfterMs: Math.max(10 * target.intervalMs, 5 * 60_000) }),
      stats: {
        url: target.url,
        labels: { ...target.labels },
        intervalMs: target.intervalMs,
        engineSetting: target.engine,
        engine: target.engine === 'auto' ? undefined : target.engine,
        scrapes: 0,
        failures: 0,
        lastScrapeMs: null,
        lastSuccessMs: null,
        lastError: null,
        lastDurationMs: null,
        lastSamples: 0,
        samplesTotal: 0,
        lastParseWarnings: 0,
        lastParseWarning: null,
        parseWarningsTotal: 0,
        lastMappedFamilies: 0,
        lastUnmappedFamilies: 0,
        lastUnmappedNames: [],
        droppedSeries: 0,
        sinkRejected: 0,
      },
      loop: createLoop(() => scrape(st), target.intervalMs),
      controller: undefined,
      failing: false,
      warnedParse: false,
    };
    return st;
  });
  let started = false;
  let stopping: Promise<void> | undefined;

  async function scrape(st: TargetState): Promise<void> {
    const { target, stats } = st;
    const ts = now();
    const t0 = performance.now();
    const controller = new AbortController();
    st.controller = controller;
    let timedOut = false;
    const timeout = timers.setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, target.timeoutMs);
    stats.scrapes++;
    stats.lastScrapeMs = ts;
    try {
      let text: string;
      let contentType: string;
      try {
        const res = await fetchFn(target.url, { signal: controller.signal, headers: { Accept: ACCEPT } });
        if (!res.ok) {
          await res.body?.cancel().catch(() => {});
          throw new ScrapeFailure('http_status', `HTTP ${res.status} ${res.statusText}`.trim());
        }
        contentType = res.headers.get('content-type') ?? '';
        text = await readBody(res, maxBodyBytes);
      } catch (e) {
        if (e instanceof ScrapeFailure) throw e;
        if (timedOut) throw new ScrapeFailure('timeout', `no complete answer within ${target.timeoutMs} ms`);
        throw new ScrapeFailure('connection', errorMessage(e));
      }
      const parsed = parseExposition(text, { contentType });
      stats.lastParseWarnings = parsed.warnings.length + parsed.warningsDropped;
      stats.parseWarningsTotal += stats.lastParseWarnings;
      const firstWarning = parsed.warnings[0];
      stats.lastParseWarning = firstWarning ? { line: firstWarning.line, message: firstWarning.message } : null;
      if (parsed.sampleCount === 0 && parsed.badLines > 0) {
        const first = parsed.warnings[0];
        throw new ScrapeFailure('unparseable', `no samples in ${parsed.badLines} bad lines${first ? `; line ${first.line}: ${first.message}` : ''}`);
      }
      if (parsed.warnings.length > 0 && !st.warnedParse) {
        st.warnedParse = true;
        logger.warn(
          { url: target.url, warnings: stats.lastParseWarnings, first: parsed.warnings[0] },
          'scrape body has lines that were skipped (logged once per target)',
        );
      }
      const mapped = mapFamilies(parsed.families, target.engine);
      stats.engine = mapped.engine;
      stats.lastUnmappedFamilies = mapped.unmappedFamilies;
      stats.lastUnmappedNames = mapped.unmappedNames;
      stats.lastMappedFamilies = parsed.families.length - mapped.unmappedFamilies;
      const samples = st.rates.apply(mapped.samples, ts).map((d) => toResourceSample(d, ts, target));
      stats.droppedSeries = st.rates.dropped();
      if (samples.length > 0) {
        try {
          const reply = await options.sink.writeResources(samples);
          stats.sinkRejected += reply.rejected.length;
        } catch (e) {
          throw new ScrapeFailure('sink', errorMessage(e));
        }
      }
      stats.lastSamples = samples.length;
      stats.samplesTotal += samples.length;
      stats.lastSuccessMs = ts;
      if (st.failing) {
        st.failing = false;
        logger.info({ url: target.url, failures: stats.failures }, 'scrape target recovered');
      }
    } catch (e) {
      const f = e instanceof ScrapeFailure ? e : new ScrapeFailure('connection', errorMessage(e));
      stats.failures++;
      stats.lastError = { atMs: ts, reason: f.reason, message: f.message };
      if (!st.failing) {
        st.failing = true;
        logger.warn({ url: target.url, reason: f.reason, err: f.message }, 'scrape target failing (logged again only after it recovers)');
      }
    } finally {
      timers.clearTimeout(timeout);
      st.controller = undefined;
      stats.lastDurationMs = performance.now() - t0;
    }
  }

  return {
    start() {
      if (started || stopping) return;
      started = true;
      logger.info({ targets: states.length }, 'scraper started');
      for (const st of states) st.loop.start();
    },
    stop(deadlineMs) {
      if (stopping) return stopping;
      stopping = (async () => {
        const inflight = states.map((st) => st.loop.stop());
        const waitMs = deadlineMs === undefined ? undefined : Math.max(0, deadlineMs - now());
        if (waitMs === undefined) await Promise.all(inflight);
        else {
          let t: ReturnType<typeof setTimeout> | undefined;
          const expired = new Promise<'expired'>((resolve) => (t = setTimeout(() => resolve('expired'), waitMs)));
          const outcome = await Promise.race([Promise.all(inflight).then(() => 'done' as const), expired]);
          clearTimeout(t);
          if (outcome === 'expired') for (const st of states) st.controller?.abort();
        }
        if (started) logger.info({ targets: states.length }, 'scraper stopped');
      })();
      return stopping;
    },
    stats: () =>
      states.map((st) => ({
        ...st.stats,
        labels: { ...st.stats.labels },
        lastError: st.stats.lastError && { ...st.stats.lastError },
        lastParseWarning: st.stats.lastParseWarning && { ...st.stats.lastParseWarning },
        lastUnmappedNames: [...st.stats.lastUnmappedNames],
      })),
    scrapeOnce: async () => {
      await Promise.all(states.map((st) => st.loop.runOnce()));
    },
  };
}

/** Reads the body up to `maxBytes`, failing early on a declared or actual overrun. */
async function readBody(res: Response, maxBytes: number): Promise<string> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel().catch(() => {});
    throw new ScrapeFailure('body_too_large', `body of ${declared} bytes exceeds ${maxBytes}`);
  }
  if (!res.body) return '';
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new ScrapeFailure('body_too_large', `body exceeds ${maxBytes} bytes`);
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}

const MAX_LABEL_VALUE = 256;

/** Concept sample → ResourceSample: target labels fill node/replica/pool; `gpu` (index, else UUID) fills the gpu field. */
export function toResourceSample(d: DerivedSample, tsMs: number, target: Pick<ScrapeTarget, 'labels'>): ResourceSample {
  const { node, replica, pool, ...extra } = target.labels;
  const { gpu, ...rest } = d.labels;
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...extra, ...rest })) labels[k] = truncate(v, MAX_LABEL_VALUE);
  const gpuId = gpu ?? rest.gpu_uuid;
  return {
    ts: tsMs,
    node,
    replica: replica ?? null,
    pool: pool ?? null,
    gpu: gpuId === undefined ? null : truncate(gpuId, 64),
    metric: d.metric,
    labels,
    value: d.value,
  };
}

function errorMessage(e: unknown): string {
  if (e instanceof Error) {
    const cause = e.cause instanceof Error ? `: ${e.cause.message}` : '';
    return `${e.message}${cause}`;
  }
  return String(e);
}
