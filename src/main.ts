/**
 * Composition root: builds the components and starts them in order (store → pipeline → retention
 * → HTTP), stops them in reverse. Logic lives in the folders; this file only wires.
 *
 * Roles (`config.role`): all runs everything; ingest the receivers and the write path; query the
 * reads, analyses and dashboard; alerting the rule evaluator, notifiers and probes. Ingest and
 * query instances keep nothing of their own but caches, so any number of them run on one
 * ClickHouse. A ClickHouse that cannot be reached at start leaves the server up and not ready
 * (`/readyz` 503, writes 503 with Retry-After) while a background loop retries; a store that stops
 * answering later turns /readyz to 503 until it answers again.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import pino from 'pino';
import type { Logger } from 'pino';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import {
  alertRoutes,
  backtestRoutes,
  createApi,
  readsOver,
  createAuditLog,
  createKeyring,
  createSessions,
  isLoopbackName,
  qualityRoutes,
  releaseRoutes,
  samplesRoutes,
  costRoutes,
  reportRoutes,
  reportReads,
} from './api/index.ts';
import type { ApiEnv, AuditLog, Keyring, Reads, Route } from './api/index.ts';
import { DEFAULT_RULE_PACK, createAlerting, formatProblem, loadRuleFiles, systemClock } from './alerting/index.ts';
import type { Alerting } from './alerting/index.ts';
import { createAlertmanagerNotifier, createReportWebhook, createWebhookNotifier } from './notify/index.ts';
import type { Notifier, ReportWebhook } from './notify/index.ts';
import { buildReport, createReportScheduler } from './reports/index.ts';
import type { ReportScheduler } from './reports/index.ts';
import { InferlensError, isInferlensError } from './schema/index.ts';
import type { ReadScope } from './schema/index.ts';
import { createGpuCollector, createHostCollector, createScraper, registerScrapeMetrics } from './ingest/index.ts';
import type { Scraper } from './ingest/index.ts';
import { databasePath, keysFilePath } from './config/index.ts';
import type { Config } from './config/index.ts';
import { createCapturePolicy, createPipeline, createRetention, createRollupMaintainer } from './pipeline/index.ts';
import type { Pipeline, Retention } from './pipeline/index.ts';
import { createQueries, typedReads } from './query/index.ts';
import { createGoldenRegistry, createProbeRunner, parseGoldenYaml } from './quality/index.ts';
import type { Queries, TypedReads } from './query/index.ts';
import { openStore, probeWritable, scopeStore } from './store/index.ts';
import type { Store, StoreOptions } from './store/index.ts';

export interface ServerOptions {
  logger?: Logger;
  now?: () => number;
  /** Extra route groups, each route declared with its access. */
  routes?: Route[][];
  /** Raw mounts on the API app: every route they add must be declared (startServer throws otherwise). */
  mounts?: ((app: Hono<ApiEnv>) => void)[];
  /** Serve the dashboard from web/dist (default true). */
  ui?: boolean;
  /** Serve the dashboard from this folder instead of web/dist. */
  uiDir?: string;
  /** Start the host/GPU collectors and scrapers of the config (default true). */
  collectors?: boolean;
  /** The store, opened by the caller, instead of the one the config names (tests put a fault injector in front). */
  store?: Store;
  /** What loading the config warned about (deprecated key spellings): logged once each at start-up. */
  configWarnings?: readonly string[];
}

/** The built dashboard, resolved from the package root (not the working directory; compiled code runs from dist/). */
const WEB_DIST = fileURLToPath(new URL(`${import.meta.url.endsWith('.js') ? '../../' : '../'}web/dist`, import.meta.url));

export interface InferlensServer {
  /** Base URL once listening, e.g. http://127.0.0.1:7070 */
  url: string;
  app: Hono<ApiEnv>;
  /** Every declared route with its access (test/route-matrix.test.ts iterates them). */
  routes: readonly Route[];
  keyring: Keyring;
  audit: AuditLog;
  store: Store;
  pipeline: Pipeline;
  queries: Queries;
  /** Retention runs (DuckDB; ClickHouse drops old data by TTL). */
  retention: Retention | undefined;
  alerting: Alerting | undefined;
  /** The scraper of the configured targets, when there are any (tests scrape on demand with it). */
  scraper: Scraper | undefined;
  /** The scheduled review, when `reports.schedules` names any (tests tick it on the server's clock). */
  reportScheduler: ReportScheduler | undefined;
  /** Whether the store answered at the last check (what /readyz reports). */
  storeReady(): boolean;
  stop(deadlineMs?: number): Promise<void>;
}

/** The store a configuration asks for. */
export function storeOptions(config: Config): StoreOptions {
  const s = config.storage;
  if (s.backend === 'duckdb')
    return { backend: 'duckdb', path: databasePath(config), memoryLimit: s.memoryLimit, ...(s.threads ? { threads: s.threads } : {}) };
  const c = s.clickhouse;
  return {
    backend: 'clickhouse',
    ...(c.url !== undefined ? { url: c.url } : {}),
    ...(c.chdbPath !== undefined ? { chdbPath: c.chdbPath } : {}),
    database: c.database,
    username: c.username,
    ...(c.password !== undefined ? { password: c.password } : {}),
    ...(c.cluster !== undefined ? { cluster: c.cluster } : {}),
    retentionDays: s.retentionDays,
    insertQuorum: c.insertQuorum,
    requestTimeoutMs: c.requestTimeoutMs,
  };
}

/** How often readiness re-checks the store, and the longest wait between reconnection attempts. */
const STORE_CHECK_MS = 10_000;
const STORE_RETRY_MAX_MS = 30_000;

/** Builds and starts inferlens with this configuration. */
export async function startServer(config: Config, options: ServerOptions = {}): Promise<InferlensServer> {
  const logger = options.logger ?? pino({ level: config.log.level, base: { service: 'inferlens', role: config.role } });
  for (const warning of options.configWarnings ?? []) logger.warn({ component: 'config' }, warning);
  const registry = new Registry();
  // Node's standard process metrics under their standard names (process_cpu_seconds_total,
  // nodejs_heap_size_used_bytes, …), which the usual dashboards query. prom-client also exports the
  // handle / request / resource counts again as gauges named *_total, which Prometheus's naming
  // rules (and `promtool check metrics`) reserve for counters: nodejs_active_handles{type} has them.
  collectDefaultMetrics({ register: registry });
  for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) registry.removeSingleMetric(name);
  const now = options.now ?? Date.now;
  const role = config.role;
  const ingests = role === 'all' || role === 'ingest';
  const serves = role === 'all' || role === 'query';
  const alerts = role === 'all' || role === 'alerting';
  const duckdb = config.storage.backend === 'duckdb';

  // Who may call: hashed keys from the keys file and the config. Without any, the server is open
  // and stays on loopback unless told otherwise.
  const keyring = createKeyring({ ...(keysFilePath(config) ? { file: keysFilePath(config)! } : {}), keys: config.server.keys, now });
  if (!keyring.enabled() && !isLoopbackName(config.server.host) && !config.server.insecure) {
    throw new InferlensError(
      'invalid_argument',
      `refusing to listen on ${config.server.host} without API keys: anyone who reaches it could read everything and approve actions. Create a key (inferlens keys create --role admin --data ${config.storage.dataDir}), or pass --insecure`,
    );
  }
  const dataDir = config.storage.dataDir === ':memory:' ? undefined : resolve(config.storage.dataDir);

  const store = options.store ?? (await openStore(storeOptions(config)));
  // The local folder the store writes, when there is one (DuckDB's file, chdb's folder): the
  // pipeline checks it takes writes again after a full disk.
  const localDir = duckdb ? (config.storage.dataDir === ':memory:' ? undefined : dirname(databasePath(config))) : config.storage.clickhouse.chdbPath;
  const pipeline = createPipeline({
    store,
    logger: logger.child({ component: 'pipeline' }),
    registry,
    now: options.now,
    retentionDays: config.storage.retentionDays,
    cardinalityCap: config.pipeline.cardinalityCap,
    maxQueueRows: config.pipeline.maxQueueRows,
    maxQueueWaitMs: config.pipeline.maxQueueWaitMs,
    maxBatchRows: config.pipeline.maxBatchRows,
    ...(localDir === undefined ? {} : { probeStorage: () => probeWritable(localDir) }),
    capture: createCapturePolicy({ config: config.capture, lowConfidence: config.quality.lowConfidence, registry, now: options.now }),
  });

  // The store is ready once migrated and the pipeline seeded; a ClickHouse that cannot be reached
  // now is retried in the background instead of stopping the server.
  let storeUp = false;
  let prepared = false;
  let stopping = false;
  let retryTimer: NodeJS.Timeout | undefined;
  async function prepareStore(): Promise<void> {
    await store.migrate();
    await pipeline.start();
    prepared = true;
    storeUp = true;
  }
  const storeLog = logger.child({ component: 'store' });
  function retryPrepare(delayMs: number): void {
    retryTimer = setTimeout(() => {
      prepareStore().then(
        () => storeLog.info('the store answers again: ready'),
        (e: unknown) => {
          if (!stopping) {
            storeLog.warn({ err: (e as Error).message, retryInMs: Math.min(delayMs * 2, STORE_RETRY_MAX_MS) }, 'store still unreachable');
            retryPrepare(Math.min(delayMs * 2, STORE_RETRY_MAX_MS));
          }
        },
      );
    }, delayMs);
    retryTimer.unref();
  }
  try {
    await prepareStore();
  } catch (e) {
    if (duckdb || !isInferlensError(e) || e.code !== 'unavailable') throw e;
    storeLog.error({ err: e.message }, 'ClickHouse cannot be reached: serving with /readyz not ready and writes answered 503 until it can; retrying');
    retryPrepare(1000);
  }
  // After start: a store that stops answering turns /readyz to 503 until it answers again.
  const storeCheck = setInterval(() => {
    if (!prepared) return;
    store.ping().then(
      () => {
        if (!storeUp) storeLog.info('the store answers again: ready');
        storeUp = true;
      },
      (e: unknown) => {
        if (storeUp) storeLog.error({ err: (e as Error).message }, 'the store does not answer: not ready');
        storeUp = false;
      },
    );
  }, STORE_CHECK_MS);
  storeCheck.unref();

  // DuckDB deletes old rows and rolls minutes up itself; ClickHouse does both in the engine (TTL,
  // materialized views).
  const retention = duckdb
    ? createRetention({
        store,
        logger: logger.child({ component: 'retention' }),
        days: config.storage.retentionDays,
        intervalMs: config.storage.retentionCheckMs,
        now: options.now,
      })
    : undefined;
  if (retention) {
    await retention.runOnce();
    retention.start();
  }
  const rollup = duckdb
    ? createRollupMaintainer({
        store,
        logger: logger.child({ component: 'rollup' }),
        intervalMs: config.storage.rollupIntervalMs,
        lagMs: config.storage.rollupLagMs,
        now: options.now,
      })
    : undefined;
  rollup?.start();

  const queries = createQueries(store);

  const golden = createGoldenRegistry({
    sets: config.quality.goldenFiles.flatMap((f) => parseGoldenYaml(readFileSync(f, 'utf8'))),
    ...(config.storage.dataDir === ':memory:' ? {} : { file: join(config.storage.dataDir, 'golden-sets.yaml') }),
  });
  for (const problem of golden.problems) logger.warn({ problem }, 'a saved golden set was skipped');
  const probeSchedule = config.quality.probes;
  const probes =
    alerts && probeSchedule.targets.length > 0
      ? createProbeRunner({
          sets: golden.list,
          targets: probeSchedule.targets,
          sink: pipeline,
          intervalMs: probeSchedule.interval_ms,
          concurrency: probeSchedule.concurrency,
          logger: logger.child({ component: 'golden-probes' }),
          ...(options.now ? { now: options.now } : {}),
        })
      : undefined;
  const alerting =
    alerts && config.alerting.enabled ? buildAlerting(config, { reads: typedReads(store), incidentLog: store, logger, registry, now: options.now }) : undefined;

  // Each caller reads through the store scoped to its tenants (one cached set of services per scope).
  const readsCache = new Map<string, Reads>();
  const readsFor = (scope: ReadScope): Reads => {
    const key = JSON.stringify(scope.tenants);
    let r = readsCache.get(key);
    if (!r) {
      if (readsCache.size >= 1000) readsCache.clear();
      r = readsOver(scopeStore(store, scope));
      readsCache.set(key, r);
    }
    return r;
  };
  const audit = createAuditLog(dataDir ? { file: join(dataDir, 'audit.jsonl') } : {});
  const reports =
    serves && config.reports.schedules.length > 0 ? buildReportSchedule(config, { reads: readsFor({ tenants: null }), alerting, logger, now }) : undefined;

  const quality = qualityRoutes({
    golden,
    ...(probes ? { probes } : {}),
    maxBodyBytes: config.server.maxBodyBytes,
    modelTypes: config.quality.modelTypes,
    lowConfidence: config.quality.lowConfidence,
  });
  // Scrapes write: an ingest instance runs them (and its targets page answers for them).
  const scraper =
    options.collectors !== false && ingests && config.scrape.targets.length > 0
      ? createScraper({
          targets: config.scrape.targets,
          sink: pipeline,
          logger: logger.child({ component: 'scrape' }),
          ...(options.now ? { now: options.now } : {}),
        })
      : undefined;
  if (scraper) registerScrapeMetrics(registry, scraper);
  let ready = false;
  const allowedHosts = config.server.allowedHosts;
  const { app, routes } = createApi({
    sink: pipeline,
    reads: readsFor,
    keyring,
    sessions: createSessions({ ttlMs: config.server.sessionTtlMs, now }),
    audit,
    logger: logger.child({ component: 'api' }),
    registry,
    maxBodyBytes: config.server.maxBodyBytes,
    ready: () => ready && storeUp,
    notReadyReason: () => pipeline.writeFailure(),
    now,
    core: { ingest: ingests, reads: serves },
    ...(allowedHosts
      ? { allowedHost: (h: string) => isLoopbackName(h) || allowedHosts.includes(h) }
      : isLoopbackName(config.server.host)
        ? { allowedHost: isLoopbackName }
        : {}),
    // The reads, the rule backtest among them, are the query role's; the alert routes the alerting role's.
    routes: [
      ...(serves
        ? [
            releaseRoutes(),
            quality,
            samplesRoutes(),
            costRoutes(config.cost),
            reportRoutes({ prices: config.cost, now, ...(alerting && { alerting }) }),
            backtestRoutes({ defaultGroups: () => alerting?.groups() ?? loadRuleFiles([DEFAULT_RULE_PACK]).groups }),
          ]
        : []),
      ...(alerting ? [alertRoutes({ alerting })] : []),
      ...(options.routes ?? []),
    ],
    ...(options.mounts ? { mounts: options.mounts } : {}),
    ...(scraper ? { scrapeTargets: () => scraper.stats() } : {}),
    ...((options.ui === false && !options.uiDir) || !serves ? {} : { uiDir: options.uiDir ?? WEB_DIST }),
  });

  // Receivers that pull: scrape targets and the local collectors, all writing to the pipeline.
  const pulls: { start(): void; stop(): unknown }[] = [];
  if (options.collectors !== false && ingests) {
    if (scraper) pulls.push(scraper);
    const c = config.collectors;
    if (c.host.enabled)
      pulls.push(
        createHostCollector({ node: config.node, intervalMs: c.host.intervalMs, sink: pipeline, logger: logger.child({ component: 'host-collector' }) }),
      );
    if (c.gpu.enabled)
      pulls.push(
        createGpuCollector({
          node: config.node,
          intervalMs: c.gpu.intervalMs,
          sink: pipeline,
          logger: logger.child({ component: 'gpu-collector' }),
          ...(c.gpu.dcgmUrl ? { dcgm: { url: c.gpu.dcgmUrl } } : {}),
        }),
      );
  }

  const server = await new Promise<Server>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: config.server.port, hostname: config.server.host }, () => resolve(s as Server));
    (s as Server).once('error', reject);
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  const url = `http://${host}:${addr.port}`;
  for (const p of pulls) p.start();
  probes?.start();
  alerting?.start();
  reports?.scheduler.start();
  ready = true;
  logger.info(
    { url, role, store: duckdb ? databasePath(config) : (config.storage.clickhouse.url ?? `chdb:${config.storage.clickhouse.chdbPath}`), ready: storeUp },
    'inferlens listening',
  );

  let stopped: Promise<void> | undefined;
  return {
    url,
    app,
    routes,
    keyring,
    audit,
    store,
    pipeline,
    queries,
    retention,
    alerting,
    scraper,
    reportScheduler: reports?.scheduler,
    storeReady: () => storeUp,
    stop(deadlineMs = 10_000) {
      stopped ??= (async () => {
        ready = false;
        stopping = true;
        clearTimeout(retryTimer);
        clearInterval(storeCheck);
        for (const p of pulls) await p.stop();
        await probes?.stop();
        await alerting?.stop(deadlineMs);
        reports?.scheduler.stop();
        await Promise.all(reports?.webhooks.map((w) => w.stop(deadlineMs)) ?? []);
        await new Promise<void>((r) => {
          server.close(() => r());
          server.closeIdleConnections?.();
          setTimeout(() => {
            server.closeAllConnections?.();
            r();
          }, deadlineMs).unref();
        });
        await pipeline.stop(deadlineMs);
        retention?.stop();
        await rollup?.stop();
        await store.close();
        audit.close();
        logger.info('inferlens stopped');
      })();
      return stopped;
    },
  };
}

/** The scheduled reviews: each schedule's Markdown to its webhook receivers (their own queues, the receivers' settings). */
function buildReportSchedule(
  config: Config,
  d: { reads: Reads; alerting: Alerting | undefined; logger: Logger; now: () => number },
): { scheduler: ReportScheduler; webhooks: ReportWebhook[] } {
  const names = new Set(config.reports.schedules.flatMap((s) => s.receivers));
  const webhooks = config.alerting.receivers.flatMap((r) =>
    r.type === 'webhook' && names.has(r.name)
      ? [
          createReportWebhook({
            name: r.name,
            url: r.url,
            timeoutMs: r.timeoutMs,
            maxQueue: r.maxQueue,
            maxAttempts: r.maxAttempts,
            logger: d.logger.child({ component: 'notify', receiver: r.name }),
            ...(r.secret && { secret: r.secret }),
          }),
        ]
      : [],
  );
  const byName = new Map(webhooks.map((w) => [w.name, w]));
  const scheduler = createReportScheduler({
    schedules: config.reports.schedules,
    build: (periodMs, nowMs) => buildReport(reportReads(d.reads, { tenants: null }, d.alerting), config.cost, { periodMs, nowMs }),
    deliver: (r) => {
      for (const name of r.receivers) byName.get(name)?.send({ schedule: r.schedule, period: r.period, markdown: r.markdown });
    },
    clock: { ...systemClock, now: d.now },
    logger: d.logger.child({ component: 'reports' }),
  });
  return { scheduler, webhooks };
}

/** Alert rules (the default pack plus configured files), notifiers and actions. */
function buildAlerting(config: Config, d: { reads: TypedReads; incidentLog: Store; logger: Logger; registry: Registry; now?: () => number }): Alerting {
  const ac = config.alerting;
  const loaded = loadRuleFiles([...(ac.defaultRules ? [DEFAULT_RULE_PACK] : []), ...ac.ruleFiles]);
  if (loaded.problems.length > 0)
    throw new InferlensError('invalid_argument', `invalid alert rules:\n  - ${loaded.problems.map(formatProblem).join('\n  - ')}`);
  const notifiers: Notifier[] = ac.receivers.map((r) => {
    const common = {
      name: r.name,
      url: r.url,
      timeoutMs: r.timeoutMs,
      maxQueue: r.maxQueue,
      maxAttempts: r.maxAttempts,
      logger: d.logger.child({ component: 'notify', receiver: r.name }),
    };
    return r.type === 'webhook'
      ? createWebhookNotifier({ ...common, tiers: r.tiers, ...(r.secret && { secret: r.secret }), ...(ac.externalUrl && { externalUrl: ac.externalUrl }) })
      : createAlertmanagerNotifier(common);
  });
  const dataDir = config.storage.dataDir === ':memory:' ? undefined : resolve(config.storage.dataDir);
  return createAlerting({
    groups: loaded.groups,
    reads: d.reads,
    logger: d.logger.child({ component: 'alerting' }),
    registry: d.registry,
    notifiers,
    ...(d.now && { clock: { ...systemClock, now: d.now } }),
    groupBy: ac.groupBy,
    groupWaitMs: ac.groupWaitMs,
    groupIntervalMs: ac.groupIntervalMs,
    repeatIntervalMs: ac.repeatIntervalMs,
    resendDelayMs: ac.resendDelayMs,
    ...(ac.inhibitRules && { inhibitRules: ac.inhibitRules }),
    externalUrl: ac.externalUrl ?? `http://${config.server.host}:${config.server.port}`,
    ...(dataDir && { silencesFile: join(dataDir, 'silences.json') }),
    incidentLog: d.incidentLog,
    actions: { ...ac.actions, ...(dataDir && { auditFile: join(dataDir, 'actions.jsonl') }) },
  });
}
