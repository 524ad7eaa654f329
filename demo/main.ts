// Over 400 lines on purpose: one room: the demo's composition root (server, service, traffic, feedback, scenario, history), in start-up order.
/**
 * The live demo (`npm start`, `inferlens demo`): inferlens on the embedded store, the real spam
 * filter service reporting to it through the SDK, open-loop traffic from 40 tenants, delayed
 * feedback, simulated GPU samples and a scenario of incidents at known times. The first run on an
 * empty store writes a day of history first.
 *
 * Start order: service → server (its golden probes call the service) → (history) → traffic → feedback →
 * GPU samples → scenario.
 * Stop order (Ctrl-C): scenario (ends incidents) → traffic → feedback → GPU samples → service →
 * SDK flush → server. This file only wires and prints; the logic lives in the folders.
 *
 * Run it with `inferlens demo` (options in src/cli/demo.ts, which loads this file on use); from
 * source: `node --import tsx src/cli/main.ts demo [--port 7070] [--data ./data] [...]`.
 */
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import cliProgress from 'cli-progress';
import pino from 'pino';
import { deprecationMessage, loadConfig } from '../src/config/index.ts';
import type { ConfigInput } from '../src/config/index.ts';
import { startServer } from '../src/main.ts';
import type { InferlensServer } from '../src/main.ts';
import type { EventInput } from '../src/schema/index.ts';
import { parseDurationMs } from '../src/schema/index.ts';
import { createClient } from '../src/sdk/index.ts';
import type { InferlensClient } from '../src/sdk/index.ts';
import { createFeedbackSender, DEFAULT_FEEDBACK_POLICY } from './feedback/index.ts';
import { GOLDEN_FILE } from './golden/index.ts';
import type { FeedbackPolicy, FeedbackSender } from './feedback/index.ts';
import { createClassifier, loadDataset, loadModel, MODEL_VERSIONS } from './model/index.ts';
import type { Dataset, ModelParams, ModelVersion } from './model/index.ts';
import { GPU_POOL, createGpuSimulator } from './resources/index.ts';
import type { GpuSimulator } from './resources/index.ts';
import {
  compressedSchedule,
  createIncidentActions,
  createScenario,
  describeIncident,
  fullSchedule,
  FULL_CYCLE_MS,
  GROUND_TRUTH_FILE,
  INCIDENT_KINDS,
} from './scenario/index.ts';
import type { CompressedTiming, GroundTruthIncident, IncidentKind, IncidentSpec, IncidentTargets, Scenario } from './scenario/index.ts';
import { createService, MODEL_NAME } from './service/index.ts';
import type { RouteRule, Service } from './service/index.ts';
import {
  backfill,
  createRateModel,
  DEFAULT_LATENCY_MODEL,
  createTenants,
  createTraffic,
  fitLatencyModel,
  PILOT_TENANT,
  predictAll,
  tenantRateLimits,
  tenantTiers,
} from './traffic/index.ts';
import type { BackfillResult, HistoricalIncident, LatencyModel, RateOptions, Traffic } from './traffic/index.ts';
import { hasEvents } from './ingest/index.ts';
import type { IngestTarget } from './ingest/index.ts';

export type ScenarioName = 'full' | 'quick' | 'clean' | 'custom';

export interface DemoOptions {
  /** inferlens's port (default from config: 7070; 0 picks one). */
  port?: number;
  /** Data folder (default from config: ./data); ':memory:' for a throw-away store. */
  data?: string;
  /** YAML config file. */
  config?: string;
  env?: Record<string, string | undefined>;
  /** History to write first: 'auto' (24 h when the store is empty), 'off', or a span such as '24h'. */
  backfill?: string;
  /** Write the history and stop. */
  backfillOnly?: boolean;
  /** 'full' (40-minute cycle, repeating), 'quick' (all six in ~5 min), 'clean' (none), 'custom' (`incidents` + `timing`). */
  scenario?: ScenarioName;
  incidents?: readonly IncidentKind[];
  timing?: CompressedTiming;
  /** Daily mean request rate, req/s (default 4). */
  ratePerS?: number;
  /**
   * The rate curve's shape (daily amplitude, noise, bursts; see createRateModel). A test pins it
   * flat (amplitude 0, no bursts) so its sample sizes do not depend on the hour it runs at.
   */
  rateShape?: Omit<RateOptions, 'meanRatePerS' | 'seed'>;
  /** Stop by itself after this long. */
  durationMs?: number;
  groundTruthFile?: string;
  /** Serve the dashboard (default true). */
  ui?: boolean;
  /** inferlens's host/GPU collectors (default true: the host's real CPU and memory). */
  collectors?: boolean;
  /** How often inferlens's golden probes call v1 and v2 of the demo service (default 60 s; at least 1 s). */
  probeIntervalMs?: number;
  /** Feedback delays × this (default 1; 'quick' uses 0.2). */
  feedbackTimeScale?: number;
  /** Overrides of the feedback policy (tests: `reviewShare: 1` for a `correct` row on every answer). */
  feedbackPolicy?: Partial<FeedbackPolicy>;
  gpuIntervalMs?: number;
  summaryEveryMs?: number;
  /** Where the demo's lines go; default console.log. */
  print?: (line: string) => void;
  seed?: number;
}

export interface Demo {
  url: string;
  serviceUrl: string;
  groundTruthFile: string;
  server: InferlensServer;
  scenario: Scenario;
  backfill?: BackfillResult;
  /** Stops traffic, scenario, feedback, GPU samples and the service, and flushes the SDK; the server stays up. */
  stopLoad(): Promise<void>;
  /** Everything, in order. Idempotent. */
  stop(): Promise<void>;
}

/** The demo's routing table: 20 % of the two largest tenants on the v2 canary, half of a small pilot tenant on v2. */
export const DEMO_ROUTES: RouteRule[] = [
  { name: 'canary', version: 'v2', tenants: ['acme', 'globex'], percent: 20 },
  { name: 'pilot', version: 'v2', tenants: [PILOT_TENANT], percent: 50 },
  { name: 'default', version: 'v1' },
];
const BASE_CANARY_PERCENT = 20;
const REPLICAS = ['replica-0', 'replica-1', 'replica-2'];
const GPUS = ['0', '1', '2'];
const SERVICE_VERSION = '2024.06.1';
const CALIBRATION_MS = 5_000;
const CALIBRATION_RATE_PER_S = 40;
const HOUR_MS = 3_600_000;

const clock = (ms: number): string => new Date(ms).toTimeString().slice(0, 8);
const pct = (part: number, whole: number): string => `${whole > 0 ? ((100 * part) / whole).toFixed(1) : '0.0'} %`;

function scheduleFor(o: DemoOptions, targets: IncidentTargets): { schedule: IncidentSpec[]; cycleMs?: number } {
  switch (o.scenario ?? 'full') {
    case 'clean':
      return { schedule: [] };
    case 'quick':
      return { schedule: compressedSchedule(INCIDENT_KINDS, targets, { warmupMs: 20_000, durationMs: 30_000, gapMs: 15_000 }) };
    case 'custom':
      return { schedule: compressedSchedule(o.incidents ?? [], targets, o.timing ?? { warmupMs: 10_000, durationMs: 20_000, gapMs: 10_000 }) };
    case 'full':
      return { schedule: fullSchedule(targets), cycleMs: FULL_CYCLE_MS };
  }
}

/** Two incidents placed in the history: tenant errors at 35–40 % of the span, the slow replica at 75–78 %. */
function historyIncidents(fromMs: number, spanMs: number, targets: IncidentTargets): HistoricalIncident[] {
  const place = (kind: IncidentKind, a: number, b: number): HistoricalIncident => ({
    spec: { id: `history:${kind}`, kind, ...describeIncident(kind, targets), startOffsetMs: 0, durationMs: (b - a) * spanMs },
    startMs: Math.round(fromMs + a * spanMs),
    endMs: Math.round(fromMs + b * spanMs),
  });
  return [place('tenant_errors', 0.35, 0.4), place('slow_replica', 0.75, 0.78)];
}

function groundTruthOf(h: HistoricalIncident): GroundTruthIncident {
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    id: h.spec.id,
    kind: h.spec.kind,
    title: h.spec.title,
    where: h.spec.where,
    expect: h.spec.expect,
    source: 'backfill',
    planned_start: iso(h.startMs),
    planned_end: iso(h.endMs),
    start: iso(h.startMs),
    end: iso(h.endMs),
  };
}

/** Rules for the demo's model, loaded beside the default pack: see the file's header. */
export const DEMO_RULE_FILE = fileURLToPath(
  new URL(import.meta.url.endsWith('.js') ? '../../demo/rules/spam-filter.yaml' : './rules/spam-filter.yaml', import.meta.url),
);

/** A free loopback port for the demo service, so the alert actions can name it before it starts. */
function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const s = createNetServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolvePort(port));
    });
  });
}

/**
 * The golden probe schedule: every golden sample of `demo/golden/spam-filter.yaml` sent to each
 * version of the demo service. The service honours `model_version` only with `probe: true`, so a
 * probe reaches the version it names whatever the routing table says, and the service marks its own
 * event of the call `probe: true` (route rule `probe`, entry `golden_probe`, tenant `golden-probe`):
 * user-traffic statistics leave out both that event and the one the probe runner records.
 */
export function demoProbes(serviceUrl: string, intervalMs = 60_000) {
  return {
    interval_ms: intervalMs,
    targets: MODEL_VERSIONS.map((v) => ({
      model: MODEL_NAME,
      model_version: v,
      url: `${serviceUrl}/v1/classify`,
      body: { text: '{{input}}', tenant: PROBE_TENANT, probe: true, model_version: '{{model_version}}' },
      output_path: 'label',
    })),
  };
}
export const PROBE_TENANT = 'golden-probe';

/** Which admin control of the demo service each alert action calls. */
/** Every action type the rules can propose, wired to the demo service (a test keeps the list complete). */
export function demoActionEndpoints(serviceUrl: string) {
  return {
    pause_canary: { url: `${serviceUrl}/admin/pause_canary`, body: 'params' as const },
    adjust_batch: { url: `${serviceUrl}/admin/adjust_batch`, body: 'params' as const },
    rate_limit: { url: `${serviceUrl}/admin/set_rate_limit`, body: 'params' as const },
    rollback: { url: `${serviceUrl}/admin/set_canary`, body: 'params' as const, params: { percent: 0 } },
    switch_route: { url: `${serviceUrl}/admin/drain_replica`, body: 'params' as const },
    scale_out: { url: `${serviceUrl}/admin/scale_out`, body: 'params' as const },
  };
}

/** The demo's price of one simulated GPU-hour (config currency, USD by default): illustrative, not a quote. */
export const DEMO_GPU_HOUR_PRICE = 2.5;

/** Builds and starts everything; returns when the traffic and the scenario are running. */
export async function startDemo(o: DemoOptions = {}): Promise<Demo> {
  const print = o.print ?? ((line: string) => console.log(line));
  const env = o.env ?? {};
  const flags: ConfigInput = {};
  if (o.port !== undefined) flags.server = { port: o.port };
  if (o.data !== undefined) flags.storage = { dataDir: o.data };
  if (!env.INFERLENS_LOG_LEVEL) flags.log = { level: 'warn' };
  // Alert actions close the loop on the demo service's admin controls; they wait for approval in
  // the Alerts view (dry-run is the default outside the demo).
  const servicePort = await freePort();
  flags.alerting = { actions: { mode: 'approval', endpoints: demoActionEndpoints(`http://127.0.0.1:${servicePort}`) } };
  // Golden probes: the demo's golden set against v1 and v2 of the service, on a schedule.
  // The spam filter is confident (under 4 % of its answers below 0.9 on normal mail): one cut-off
  // for capture, the quality table and its rule (demo/rules/spam-filter.yaml).
  flags.quality = { lowConfidence: 0.9, goldenFiles: [GOLDEN_FILE], probes: demoProbes(`http://127.0.0.1:${servicePort}`, o.probeIntervalMs) };
  const configWarnings: string[] = [];
  const config = loadConfig({ ...(o.config && { file: o.config }), env, flags, onDeprecated: (d) => configWarnings.push(deprecationMessage(d)) });
  // Money in the Cost view: an illustrative price for the simulated GPUs' pool (not a quote), unless
  // the config file sets prices of its own.
  if (config.cost.gpuHour.length === 0 && Object.keys(config.cost.tokens).length === 0)
    config.cost = { ...config.cost, gpuHour: [{ pool: GPU_POOL, price: DEMO_GPU_HOUR_PRICE }] };
  // The spam filter's own rules beside the default pack (and whatever the config names).
  config.alerting.ruleFiles = [...config.alerting.ruleFiles, DEMO_RULE_FILE];
  const seed = o.seed ?? 7;
  const node = config.node;
  const target: IngestTarget = { url: '' };
  const groundTruthFile =
    o.groundTruthFile ??
    join(config.storage.dataDir === ':memory:' ? join(tmpdir(), `inferlens-demo-${process.pid}`) : config.storage.dataDir, GROUND_TRUTH_FILE);

  // The service listens before inferlens starts, so the golden probes' first run (at server start)
  // finds it. Its events go to the SDK, created once the server's URL is known; before that only
  // that first probe run calls it, and the probe runner records those calls itself.
  const tenants = createTenants();
  const rate = createRateModel({ ...o.rateShape, meanRatePerS: o.ratePerS ?? 4, seed });
  const models: ModelParams[] = MODEL_VERSIONS.map((v) => loadModel(v));
  const perReplica: Record<string, number> = {};
  const statuses: Record<string, number> = {};
  let calibration: EventInput[] | undefined;
  let client: InferlensClient | undefined;
  const service: Service = createService({
    port: servicePort,
    node,
    serviceVersion: SERVICE_VERSION,
    replicas: REPLICAS.length,
    queueCapacity: 64,
    routes: DEMO_ROUTES,
    tenantTiers: tenantTiers(tenants),
    rateLimits: tenantRateLimits(tenants, rate.peakRatePerS),
    models,
    seed,
    observer: {
      onRequest(event) {
        client?.record(event);
        const status = event.status ?? 'ok';
        statuses[status] = (statuses[status] ?? 0) + 1;
        if (event.replica) perReplica[event.replica] = (perReplica[event.replica] ?? 0) + 1;
        if (calibration && calibration.length < 5_000) calibration.push(event);
      },
    },
  });
  await service.start();

  let server: InferlensServer;
  try {
    server = await startServer(config, {
      configWarnings,
      logger: pino({ level: config.log.level, base: { service: 'inferlens' } }),
      ui: o.ui ?? true,
      collectors: o.collectors ?? true,
    });
  } catch (err) {
    await service.stop().catch(() => undefined);
    throw err;
  }
  target.url = server.url;
  // With API keys configured, the demo's own traffic and queries use a key valid only in this process.
  if (server.keyring.enabled()) target.apiKey = server.keyring.ephemeral('demo traffic', 'admin');

  // From here on, a failure must not leave the server or the service running.
  try {
    const dataset = loadDataset();
    const targets = demoTargets(node);

    const spanMs = o.backfill === undefined || o.backfill === 'auto' ? 24 * HOUR_MS : o.backfill === 'off' ? 0 : parseDurationMs(o.backfill);
    if (spanMs === undefined) throw new Error(`--backfill ${o.backfill}: expected auto, off, or a span such as 24h or 90m`);
    const wantHistory =
      spanMs > 0 && (o.backfill !== undefined && o.backfill !== 'auto' ? true : !(await hasEvents(target, Date.now() - 7 * 24 * HOUR_MS, Date.now() + 60_000)));

    // The service's events, reported to inferlens through the SDK.
    const sdk = createClient({
      endpoint: server.url,
      ...(target.apiKey && { apiKey: target.apiKey }),
      defaults: { model: MODEL_NAME, node, service_version: SERVICE_VERSION },
      maxBufferSize: 100_000,
      logger: { warn: (msg) => console.warn(msg) },
    });
    client = sdk;
    const svc = service;

    // History: calibrate the latency model on a few seconds of real requests, then backfill.
    let history: HistoricalIncident[] = [];
    let backfillResult: BackfillResult | undefined;
    if (wantHistory && spanMs > 0) {
      calibration = [];
      const calibrate = createTraffic({
        url: svc.url,
        rate: { ratePerS: () => CALIBRATION_RATE_PER_S, meanRatePerS: CALIBRATION_RATE_PER_S, peakRatePerS: CALIBRATION_RATE_PER_S },
        tenants,
        messages: dataset.heldOut,
        driftMessages: dataset.hard,
        seed: seed + 3,
        runId: 'calib',
      });
      print(`measuring the live service's stage times for ${CALIBRATION_MS / 1000} s (the latency model of the history)…`);
      calibrate.start();
      await new Promise((r) => setTimeout(r, CALIBRATION_MS));
      await calibrate.stop();
      const latency = fitLatencyModel(calibration);
      calibration = undefined;
      for (const counts of [statuses, perReplica]) for (const k of Object.keys(counts)) delete counts[k];
      print(
        `latency model: ${latency.source} on ${latency.samples} requests (median exec ${Math.exp(latency.stages.exec_ms.mu).toFixed(2)} ms, batch ${Math.exp(latency.stages.batch_ms.mu).toFixed(2)} ms)`,
      );

      const toMs = Date.now();
      const fromMs = toMs - spanMs;
      history = historyIncidents(fromMs, spanMs, targets);
      const interactive = process.stderr.isTTY === true;
      const bar = interactive
        ? new cliProgress.SingleBar(
            { format: 'history [{bar}] {percentage}% | {value}/{total} events | {speed} events/s | ETA {eta}s', hideCursor: true },
            cliProgress.Presets.shades_classic,
          )
        : undefined;
      print(`writing ${(spanMs / HOUR_MS).toFixed(1)} h of history (real predictions on the corpus, modelled latencies, attributes.backfill = "true")…`);
      const t0 = performance.now();
      let started = false;
      backfillResult = await writeDemoHistory({
        target,
        fromMs,
        toMs,
        incidents: history,
        latency,
        node,
        ratePerS: rate.meanRatePerS,
        seed,
        models,
        dataset,
        onProgress(sent, total) {
          if (!bar) return;
          if (!started) bar.start(total, 0, { speed: 0 });
          started = true;
          bar.update(sent, { speed: Math.round(sent / ((performance.now() - t0) / 1000)) });
        },
      });
      bar?.stop();
      const b = backfillResult;
      print(
        `history: ${b.events.toLocaleString('en')} events, ${b.feedback.toLocaleString('en')} feedback rows, ${b.resources.toLocaleString('en')} GPU samples in ${(b.elapsedMs / 1000).toFixed(1)} s ` +
          `(${Math.round(b.events / (b.elapsedMs / 1000)).toLocaleString('en')} events/s)${b.rejected > 0 ? `; ${b.rejected} rejected, first: ${b.firstProblem ?? '?'}` : ''}`,
      );
      if (o.backfillOnly) {
        await svc.stop();
        await sdk.shutdown({ timeoutMs: 5_000 });
        await server.stop();
        return finishedOnly(server, svc.url, groundTruthFile, b);
      }
    }

    // Live: traffic, feedback, GPU samples, scenario.
    const feedback: FeedbackSender = createFeedbackSender({
      client: sdk,
      ...(o.feedbackPolicy && { policy: { ...DEFAULT_FEEDBACK_POLICY, ...o.feedbackPolicy } }),
      timeScale: o.feedbackTimeScale ?? (o.scenario === 'quick' ? 0.2 : 1),
      seed: seed + 7,
    });
    const traffic: Traffic = createTraffic({
      url: svc.url,
      rate,
      tenants,
      messages: dataset.heldOut,
      driftMessages: dataset.hard,
      seed: seed + 11,
      runId: `r${Date.now().toString(36)}`,
      onResult: (r) => feedback.observe(r),
    });
    const gpu: GpuSimulator = createGpuSimulator({
      target,
      node,
      gpus: GPUS.map((g, i) => ({ gpu: g, replica: REPLICAS[i] as string })),
      takeRequestCounts: () => {
        const out = { ...perReplica };
        for (const k of Object.keys(perReplica)) delete perReplica[k];
        return out;
      },
      nominalRatePerReplica: nominalRatePerReplica(rate.meanRatePerS),
      intervalMs: o.gpuIntervalMs ?? 5_000,
      seed: seed + 13,
    });
    const { schedule, cycleMs } = scheduleFor(o, targets);
    const scenario = createScenario({
      name: o.scenario ?? 'full',
      schedule,
      ...(cycleMs !== undefined && { cycleMs }),
      file: groundTruthFile,
      history: history.map(groundTruthOf),
      actions: createIncidentActions({ controls: svc.controls, traffic, gpu, baseCanaryPercent: BASE_CANARY_PERCENT }),
      onTransition: (what, spec, atMs) => print(`[${clock(atMs)}] incident ${what === 'begin' ? 'starts' : 'ends'}: ${spec.title}`),
      onError: (spec, err) => console.warn(`incident ${spec.id} failed: ${(err as Error).message}`),
    });
    feedback.start();
    traffic.start();
    gpu.start();
    scenario.start();

    print(guide(server.url, svc.url, scenario, schedule, cycleMs, groundTruthFile, history));

    // One summary line every few seconds, never one per request.
    let lastSummaryMs = Date.now();
    const summary = setInterval(() => {
      const t = Date.now();
      const n = Object.values(statuses).reduce((a, b) => a + b, 0);
      const parts = Object.entries(statuses)
        .sort((a, b) => b[1] - a[1])
        .map(([s, c]) => `${s} ${pct(c, n)}`)
        .join(', ');
      for (const k of Object.keys(statuses)) delete statuses[k];
      const s = sdk.stats();
      const dropped = Object.values(s.dropped).reduce((a, b) => a + b, 0);
      const f = feedback.stats();
      const active = scenario.active().map((i) => i.id);
      const next = scenario.next();
      print(
        `[${clock(t)}] ${(n / ((t - lastSummaryMs) / 1000)).toFixed(1)} req/s (${parts || 'no requests'}) · sent to inferlens ${s.sent.toLocaleString('en')} rows, ${dropped} dropped · feedback ${f.sent} sent, ${f.pending} due later` +
          ` · ${active.length > 0 ? `incident: ${active.join(', ')}` : 'no incident'}${next ? ` · next: ${next.spec.id} at ${clock(next.startMs)}` : ''}`,
      );
      lastSummaryMs = t;
    }, o.summaryEveryMs ?? 10_000);
    summary.unref();

    let loadStopped: Promise<void> | undefined;
    const stopLoad = (): Promise<void> =>
      (loadStopped ??= (async () => {
        clearInterval(summary);
        await scenario.stop();
        await traffic.stop(5_000);
        feedback.stop();
        await gpu.stop();
        await svc.stop();
        await sdk.shutdown({ timeoutMs: 5_000 });
      })());
    let stopped: Promise<void> | undefined;
    return {
      url: server.url,
      serviceUrl: svc.url,
      groundTruthFile,
      server,
      scenario,
      ...(backfillResult && { backfill: backfillResult }),
      stopLoad,
      stop: () =>
        (stopped ??= (async () => {
          await stopLoad();
          await server.stop();
        })()),
    };
  } catch (err) {
    await service.stop().catch(() => undefined);
    await client?.shutdown({ timeoutMs: 1_000 });
    await server.stop();
    throw err;
  }
}

export interface DemoHistoryOptions {
  target: IngestTarget;
  fromMs: number;
  toMs: number;
  incidents?: readonly HistoricalIncident[];
  /** Default: the latency model measured on the demo service (DEFAULT_LATENCY_MODEL). */
  latency?: LatencyModel;
  node: string;
  /** Daily mean request rate, req/s (default 4, as the live demo). */
  ratePerS?: number;
  seed?: number;
  /** Loaded once by the caller when it has them already. */
  models?: readonly ModelParams[];
  dataset?: Dataset;
  onProgress?: (sent: number, total: number) => void;
}

/**
 * The demo's history between two times with the demo's own wiring (tenants, daily rate, routing
 * table, replicas, GPUs, the real models' predictions): what `npm start` backfills, and what the
 * incident → alert test replays the rule pack over.
 */
export async function writeDemoHistory(o: DemoHistoryOptions): Promise<BackfillResult> {
  const seed = o.seed ?? 7;
  const rate = createRateModel({ meanRatePerS: o.ratePerS ?? 4, seed });
  const dataset = o.dataset ?? loadDataset();
  const models = o.models ?? MODEL_VERSIONS.map((v) => loadModel(v));
  const classifiers = new Map(models.map((m, i) => [MODEL_VERSIONS[i] as ModelVersion, createClassifier(m)]));
  const predict = (v: ModelVersion, texts: string[]) => classifiers.get(v)?.predict(texts) ?? [];
  return backfill({
    target: o.target,
    fromMs: o.fromMs,
    toMs: o.toMs,
    rate,
    tenants: createTenants(),
    routes: DEMO_ROUTES,
    messages: predictAll(dataset.heldOut, predict),
    driftMessages: predictAll(dataset.hard, predict),
    latency: o.latency ?? DEFAULT_LATENCY_MODEL,
    incidents: o.incidents ?? [],
    model: MODEL_NAME,
    serviceVersion: SERVICE_VERSION,
    node: o.node,
    replicas: REPLICAS,
    gpus: GPUS,
    nominalRatePerReplica: nominalRatePerReplica(rate.meanRatePerS),
    seed: seed + 5,
    ...(o.onProgress && { onProgress: o.onProgress }),
  });
}

/** Who the demo's incidents target on `node`. */
export function demoTargets(node: string): IncidentTargets {
  return {
    model: MODEL_NAME,
    slowReplica: 'replica-1',
    errorTenant: PILOT_TENANT,
    canaryTenants: ['acme', 'globex'],
    node,
    creepGpu: '2',
    creepReplica: 'replica-2',
  };
}

/** Requests/s per replica that read as ~94 % GPU utilisation: the daily peak (mean × 1.5) spread over the replicas, with 20 % headroom. */
function nominalRatePerReplica(meanRatePerS: number): number {
  return (meanRatePerS * 1.5 * 1.2) / REPLICAS.length;
}

function finishedOnly(server: InferlensServer, serviceUrl: string, groundTruthFile: string, b: BackfillResult): Demo {
  const none = createScenario({ name: 'none', schedule: [], actions: { begin: () => undefined, end: () => undefined } });
  return { url: server.url, serviceUrl, groundTruthFile, server, scenario: none, backfill: b, stopLoad: async () => undefined, stop: async () => undefined };
}

function guide(
  url: string,
  serviceUrl: string,
  scenario: Scenario,
  schedule: readonly IncidentSpec[],
  cycleMs: number | undefined,
  file: string,
  history: readonly HistoricalIncident[],
): string {
  const started = Date.parse(scenario.groundTruth().started_at);
  const lines = [
    '',
    `inferlens is running: open ${url}`,
    `  model service (spam filter v1 + v2 canary, 3 replicas): ${serviceUrl}  ·  traffic from 40 tenants at a daily-cycle rate`,
    `  feedback (reviews, conversions) arrives seconds to minutes after each request; GPU samples are simulated (labelled simulated)`,
    `  ground truth of the incidents: ${file}`,
    '',
  ];
  if (history.length > 0) {
    lines.push('In the history (backfilled, attributes.backfill = "true"):');
    for (const h of history)
      lines.push(
        `  ${clock(h.startMs)}–${clock(h.endMs)} ${new Date(h.startMs).toDateString() === new Date().toDateString() ? '' : '(yesterday) '}${h.spec.title}`,
      );
    lines.push('');
  }
  if (schedule.length === 0) lines.push('Scenario: clean (no incidents injected).');
  else {
    lines.push(`What to look for${cycleMs ? ` (the cycle repeats every ${Math.round(cycleMs / 60_000)} min)` : ''}:`);
    for (const s of schedule) {
      const a = started + s.startOffsetMs;
      lines.push(`  ${clock(a)}–${clock(a + s.durationMs)}  ${s.title}`, `      ${s.expect}`);
    }
  }
  lines.push('', 'Ctrl-C stops everything cleanly.', '');
  return lines.join('\n');
}

/** Runs the demo until Ctrl-C / SIGTERM or `durationMs`, then stops everything in order. */
export async function runDemo(o: DemoOptions = {}): Promise<void> {
  const demo = await startDemo(o);
  if (o.backfillOnly) return;
  await new Promise<void>((resolve) => {
    const done = (why: string) => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      clearTimeout(timer);
      (o.print ?? console.log)(`\n${why}: stopping traffic, service, SDK flush, server…`);
      resolve();
    };
    const onInt = () => done('SIGINT');
    const onTerm = () => done('SIGTERM');
    process.once('SIGINT', onInt);
    process.once('SIGTERM', onTerm);
    const durationMs = o.durationMs;
    const timer = durationMs !== undefined ? setTimeout(() => done(`${Math.round(durationMs / 1000)} s elapsed`), durationMs) : undefined;
  });
  await demo.stop();
  (o.print ?? console.log)('stopped.');
}
