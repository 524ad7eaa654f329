// Over 400 lines on purpose: one room: the demo inference service's stages (ingress, queue, replicas, inference, admin) over one shared state.
/**
 * The demo inference service: a real spam filter behind `POST /v1/classify`, with real stages.
 *
 *   ingress  reading and JSON-parsing the body, validating it, routing, rate limiting
 *   queue    waiting in the version's bounded queue for a replica (full → 503 `rejected`)
 *   batch    waiting for the dynamic batch to fill (max size or max wait, whichever first)
 *   exec     the model's predict on the batch, measured inside the replica worker
 *   post     threshold, injected tenant errors, formatting and writing the response
 *
 * Every stage is a `performance.now()` difference; the stages sum to at most `total_ms` (the
 * rest is hand-offs between threads). One event per request goes to the `RequestObserver` after
 * the response is written.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EventInput, ErrorType, Status } from '../../src/schema/index.ts';
import { countWords, loadModel, MODEL_VERSIONS } from '../model/index.ts';
import type { ModelParams, ModelVersion, Prediction } from '../model/index.ts';
import { spamProbability } from '../model/index.ts';
import { createRandom } from '../model/index.ts';
import { runAdmin } from './admin.ts';
import { createBatcher } from './batcher.ts';
import type { Batch, Batcher, BatchSettings } from './batcher.ts';
import type { ServiceControls, ServiceState, TenantError } from './controls.ts';
import { noopObserver } from './observer.ts';
import type { RequestObserver } from './observer.ts';
import { createRateLimiter } from './rate-limiter.ts';
import type { RateLimit } from './rate-limiter.ts';
import { createReplicaPool, ReplicaFault } from './replica-pool.ts';
import type { Regression } from './replica-protocol.ts';
import { createRouter, DEFAULT_ROUTES } from './router.ts';
import type { RouteRule } from './router.ts';

export const MODEL_NAME = 'spam-filter';

export interface ServiceOptions {
  /** 0 picks a free port. */
  port?: number;
  host?: string;
  replicas?: number;
  maxBatchSize?: number;
  maxWaitMs?: number;
  /** Requests waiting per model version before new ones are rejected. */
  queueCapacity?: number;
  /** Token buckets per tenant; `defaultRateLimit` for the others (none: unlimited). */
  rateLimits?: Record<string, RateLimit>;
  defaultRateLimit?: RateLimit;
  routes?: RouteRule[];
  observer?: RequestObserver;
  node?: string;
  serviceVersion?: string;
  /** Service tier per tenant; others are `standard`. */
  tenantTiers?: Record<string, string>;
  /** P(spam) at or above which the answer is `spam`. */
  spamThreshold?: number;
  /** Trained parameters of both versions; loaded (cached or trained) when absent. */
  models?: ModelParams[];
  maxBodyBytes?: number;
  /** Characters of the input text put in the event's `input` field for the capture hook. */
  maxCapturedChars?: number;
  /** Seeds injected-error draws. */
  seed?: number;
}

export interface Service {
  /** `http://127.0.0.1:<port>`; valid after `start()`. */
  readonly url: string;
  start(): Promise<void>;
  /** Stops accepting, answers queued requests with 503, waits for batches in flight, ends the workers. */
  stop(): Promise<void>;
  readonly controls: ServiceControls;
  /** Observer calls that threw (the service carries on). */
  readonly observerFailures: number;
}

interface ClassifyBody {
  text: string;
  tenant: string;
  entry: string;
  requestId: string;
  /** A golden-sample probe (`probe: true`): its event is marked `probe` and it may pin `model_version`. */
  probe: boolean;
  /** The version a probe asks for, bypassing the routing table (probes only). */
  version?: ModelVersion;
  /** The client's deadline: past it, the answer is a 504 timeout instead of a late label. */
  deadlineMs?: number;
}

/** What came back for one request of a batch; `replica` is '' when it never reached one. */
type ExecResult =
  | { ok: true; prediction: Prediction; execMs: number; replica: string; batchSize: number; batchTokens: number }
  | { ok: false; message: string; replica: string; batchSize: number; batchTokens: number; execMs?: number };
type Outcome = ExecResult & { queueMs: number; batchMs: number };

interface Pending {
  text: string;
  inputTokens: number;
  settle: (r: ExecResult, queueMs: number, batchMs: number) => void;
}

class BadInput extends Error {
  constructor(
    message: string,
    readonly httpStatus = 400,
  ) {
    super(message);
  }
}

const DEFAULTS = {
  port: 0,
  host: '127.0.0.1',
  replicas: 3,
  maxBatchSize: 8,
  maxWaitMs: 5,
  queueCapacity: 256,
  node: 'node-a',
  serviceVersion: '2024.06.1',
  spamThreshold: 0.5,
  maxBodyBytes: 256 * 1024,
  maxCapturedChars: 2_000,
  seed: 1,
};
const MAX_TENANT_CHARS = 64;
const MAX_TEXT_CHARS = 64 * 1024;

/** Every problem with the options; empty when they are usable. */
export function optionProblems(o: ServiceOptions): string[] {
  const p: string[] = [];
  const int = (name: string, v: number | undefined, min: number): void => {
    if (v !== undefined && !(Number.isInteger(v) && v >= min)) p.push(`${name} must be an integer ≥ ${min}, got ${v}`);
  };
  int('port', o.port, 0);
  int('replicas', o.replicas, 1);
  int('maxBatchSize', o.maxBatchSize, 1);
  int('queueCapacity', o.queueCapacity, 1);
  if (o.maxWaitMs !== undefined && !(o.maxWaitMs >= 0)) p.push(`maxWaitMs must be ≥ 0, got ${o.maxWaitMs}`);
  if (o.spamThreshold !== undefined && !(o.spamThreshold > 0 && o.spamThreshold < 1)) p.push(`spamThreshold must be in (0, 1), got ${o.spamThreshold}`);
  for (const [tenant, l] of Object.entries(o.rateLimits ?? {})) {
    if (!(l.ratePerS > 0 && l.burst >= 1)) p.push(`rateLimits.${tenant}: ratePerS must be > 0 and burst ≥ 1`);
  }
  return p;
}

function readBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        reject(new BadInput(`body over ${maxBytes} bytes: send less text`, 413));
        req.removeAllListeners('data');
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** What a rejected body still says about its sender (tenant, request id), when it is a JSON object. */
function knownDims(raw: string): Partial<EventInput> {
  try {
    const b = JSON.parse(raw) as Record<string, unknown>;
    if (typeof b !== 'object' || b === null) return {};
    return {
      ...(typeof b.tenant === 'string' && b.tenant.length >= 1 && b.tenant.length <= MAX_TENANT_CHARS && { tenant: b.tenant }),
      ...(typeof b.request_id === 'string' && b.request_id.length >= 1 && b.request_id.length <= 128 && { request_id: b.request_id }),
    };
  } catch {
    return {};
  }
}

function parseClassify(raw: string): ClassifyBody {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    throw new BadInput('body is not JSON: send {"text": "...", "tenant": "..."}');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new BadInput('body must be a JSON object {"text", "tenant", "entry"?, "request_id"?}');
  const b = body as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof b.text !== 'string' || b.text.length > MAX_TEXT_CHARS) problems.push(`text: a string of at most ${MAX_TEXT_CHARS} characters`);
  if (typeof b.tenant !== 'string' || b.tenant.length < 1 || b.tenant.length > MAX_TENANT_CHARS)
    problems.push(`tenant: a string of 1–${MAX_TENANT_CHARS} characters`);
  if (b.entry != null && (typeof b.entry !== 'string' || b.entry.length < 1 || b.entry.length > MAX_TENANT_CHARS))
    problems.push(`entry: a string of 1–${MAX_TENANT_CHARS} characters`);
  if (b.request_id != null && (typeof b.request_id !== 'string' || b.request_id.length < 1 || b.request_id.length > 128))
    problems.push('request_id: a string of 1–128 characters');
  if (b.probe != null && typeof b.probe !== 'boolean') problems.push('probe: true or false');
  if (b.deadline_ms != null && !(typeof b.deadline_ms === 'number' && b.deadline_ms > 0 && b.deadline_ms <= 600_000))
    problems.push('deadline_ms: a number of milliseconds in (0, 600000]');
  if (b.model_version != null && !MODEL_VERSIONS.includes(b.model_version as ModelVersion)) problems.push(`model_version: one of ${MODEL_VERSIONS.join(', ')}`);
  else if (b.model_version != null && b.probe !== true) problems.push('model_version: honoured only for golden-sample probes (send probe: true as well)');
  if (problems.length > 0) throw new BadInput(`expected ${problems.join('; ')}`);
  const probe = b.probe === true;
  return {
    text: b.text as string,
    tenant: b.tenant as string,
    entry: (b.entry as string | undefined) ?? (probe ? 'golden_probe' : 'api'),
    requestId: (b.request_id as string | undefined) ?? randomUUID(),
    probe,
    ...(b.model_version != null && { version: b.model_version as ModelVersion }),
    ...(typeof b.deadline_ms === 'number' && { deadlineMs: b.deadline_ms }),
  };
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  if (!res.headersSent && !res.destroyed) {
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
    res.end(text);
  }
}

export function createService(options: ServiceOptions = {}): Service {
  const problems = optionProblems(options);
  if (problems.length > 0) throw new Error(`bad demo service options:\n  ${problems.join('\n  ')}`);
  const o = { ...DEFAULTS, ...options };
  const observer = options.observer ?? noopObserver;
  const router = createRouter(options.routes ?? DEFAULT_ROUTES);
  const limiter = createRateLimiter({ limits: options.rateLimits ?? {}, ...(options.defaultRateLimit && { defaultLimit: options.defaultRateLimit }) });
  const tenantErrors = new Map<string, TenantError>();
  const regressions: Partial<Record<ModelVersion, Regression>> = {};
  const random = createRandom(o.seed);
  const tiers = options.tenantTiers ?? {};
  let pool: ReturnType<typeof createReplicaPool> | undefined;
  let server: Server | undefined;
  let url = '';
  let observerFailures = 0;
  let inflightBatches = 0;
  let stopping = false;
  const batchers = new Map<ModelVersion, Batcher<Pending>>();

  const requirePool = (): ReturnType<typeof createReplicaPool> => {
    if (!pool) throw new Error('the service is not started: call start() first');
    return pool;
  };

  const runBatch = (version: ModelVersion, batch: Batch<Pending>, replica: string): void => {
    const p = requirePool();
    const items = batch.entries;
    const batchSize = items.length;
    const batchTokens = items.reduce((s, e) => s + e.item.inputTokens, 0);
    inflightBatches++;
    p.run(
      replica,
      version,
      items.map((e) => e.item.text),
    ).then(
      (result) => {
        inflightBatches--;
        items.forEach((e, i) => {
          const prediction = result.predictions[i];
          if (prediction) e.item.settle({ ok: true, prediction, execMs: result.execMs, replica, batchSize, batchTokens }, e.queueMs, e.batchMs);
          else e.item.settle({ ok: false, message: 'replica returned too few predictions', replica, batchSize, batchTokens }, e.queueMs, e.batchMs);
        });
      },
      (err: unknown) => {
        inflightBatches--;
        const message = err instanceof ReplicaFault ? err.message : `replica ${replica}: ${(err as Error).message}`;
        const execMs = err instanceof ReplicaFault ? err.execMs : undefined;
        for (const e of items)
          e.item.settle({ ok: false, message, replica, batchSize, batchTokens, ...(execMs !== undefined && { execMs }) }, e.queueMs, e.batchMs);
      },
    );
  };

  const emit = (event: EventInput): void => {
    try {
      observer.onRequest(event);
    } catch {
      observerFailures++;
    }
  };

  const classify = async (req: IncomingMessage, res: ServerResponse, t0: number, tsMs: number): Promise<void> => {
    const base: EventInput = { ts: tsMs, model: MODEL_NAME, service_version: o.serviceVersion, node: o.node };
    const finish = (status: Status, httpStatus: number, body: unknown, extra: Partial<EventInput>, headers: Record<string, string> = {}): void => {
      const tPost = performance.now();
      send(res, httpStatus, body, headers);
      const tEnd = performance.now();
      emit({ ...base, ...extra, status, http_status: httpStatus, post_ms: extra.post_ms ?? tEnd - tPost, total_ms: tEnd - t0 });
    };
    const fail = (
      status: Status,
      httpStatus: number,
      errorType: ErrorType | null,
      message: string,
      extra: Partial<EventInput>,
      headers?: Record<string, string>,
    ): void => {
      finish(
        status,
        httpStatus,
        { request_id: extra.request_id ?? null, status, error_type: errorType, message },
        { ...extra, ...(errorType && { error_type: errorType }) },
        headers,
      );
    };

    let body: ClassifyBody;
    let raw = '';
    try {
      raw = await readBody(req, o.maxBodyBytes);
      body = parseClassify(raw);
    } catch (err) {
      const httpStatus = err instanceof BadInput ? err.httpStatus : 400;
      fail('error', httpStatus, 'bad_input', (err as Error).message, { ...knownDims(raw), ingress_ms: performance.now() - t0 });
      return;
    }
    // A probe pinning a version skips the routing table (rule `probe`); everything else is routed.
    const { rule, version } = body.version
      ? { rule: 'probe', version: body.version }
      : router.route({ tenant: body.tenant, entry: body.entry, requestId: body.requestId });
    const inputTokens = countWords(body.text);
    const dims: Partial<EventInput> = {
      request_id: body.requestId,
      tenant: body.tenant,
      entry: body.entry,
      route_rule: rule,
      model_version: version,
      service_tier: tiers[body.tenant] ?? 'standard',
      input_tokens: inputTokens,
      input: body.text.slice(0, o.maxCapturedChars),
      // Probe calls are not user traffic: marked so user-traffic statistics leave them out.
      ...(body.probe && { probe: true }),
    };
    const decision = limiter.take(body.tenant);
    if (!decision.allowed) {
      const retryS = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
      fail(
        'rate_limited',
        429,
        null,
        `tenant ${body.tenant} is over its rate limit: retry after ${retryS} s`,
        { ...dims, ingress_ms: performance.now() - t0 },
        { 'retry-after': String(retryS) },
      );
      return;
    }
    const batcher = batchers.get(version);
    const ingressMs = performance.now() - t0;
    let resolveOutcome: (o: Outcome) => void = () => undefined;
    const outcome = new Promise<Outcome>((resolve) => (resolveOutcome = resolve));
    const pending: Pending = {
      text: body.text,
      inputTokens,
      settle: (r, queueMs, batchMs) => resolveOutcome({ ...r, queueMs, batchMs }),
    };
    if (!batcher || stopping || !batcher.offer(pending)) {
      fail(
        'rejected',
        503,
        'resource_exhausted',
        `the ${version} queue is full (${o.queueCapacity}): retry later`,
        { ...dims, ingress_ms: ingressMs },
        { 'retry-after': '1' },
      );
      return;
    }
    const r = await outcome;
    const stages: Partial<EventInput> = {
      ...dims,
      ingress_ms: ingressMs,
      queue_ms: r.queueMs,
      batch_ms: r.batchMs,
      replica: r.replica,
      batch_size: r.batchSize,
      batch_tokens: r.batchTokens,
      ...(r.execMs !== undefined && { exec_ms: r.execMs }),
    };
    if (body.deadlineMs !== undefined && performance.now() - t0 > body.deadlineMs) {
      fail('timeout', 504, null, `the request's deadline of ${body.deadlineMs} ms passed before the answer was ready`, stages);
      return;
    }
    if (!r.ok) {
      const stopped = r.replica === '';
      fail(stopped ? 'rejected' : 'error', 503, stopped ? 'resource_exhausted' : 'replica_fault', r.message, stages, { 'retry-after': '1' });
      return;
    }
    // post: threshold, injected tenant errors, formatting (timed by `finish` around the write)
    const tPost = performance.now();
    const injected = tenantErrors.get(body.tenant);
    if (injected && injected.version === version && random() < injected.rate) {
      const postMs = performance.now() - tPost;
      fail('error', 500, 'internal', `internal error for tenant ${body.tenant} on ${version} (injected)`, { ...stages, post_ms: postMs });
      return;
    }
    const pSpam = spamProbability(r.prediction);
    const label = pSpam >= o.spamThreshold ? 'spam' : 'ham';
    const confidence = label === 'spam' ? pSpam : 1 - pSpam;
    const reply = { request_id: body.requestId, label, confidence, model_version: version };
    // No output_length: a classifier's output is its label and confidence, and the reply's JSON
    // length moved with the echoed request id's digits, which drifted against the history.
    send(res, 200, reply);
    const tEnd = performance.now();
    emit({
      ...base,
      ...stages,
      status: 'ok',
      http_status: 200,
      label,
      confidence,
      empty: inputTokens === 0,
      post_ms: tEnd - tPost,
      total_ms: tEnd - t0,
    });
  };

  const admin = async (req: IncomingMessage, res: ServerResponse, name: string): Promise<void> => {
    let body: unknown = {};
    try {
      const raw = await readBody(req, 64 * 1024);
      body = raw.trim() === '' ? {} : JSON.parse(raw);
    } catch (err) {
      send(res, 400, { error: `admin body must be JSON: ${(err as Error).message}` });
      return;
    }
    const reply = await runAdmin(name, body, controls);
    send(res, reply.status, reply.body);
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const t0 = performance.now();
    const tsMs = Date.now();
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    let work: Promise<void>;
    if (req.method === 'POST' && path === '/v1/classify') work = classify(req, res, t0, tsMs);
    else if (req.method === 'POST' && path.startsWith('/admin/')) work = admin(req, res, path.slice('/admin/'.length));
    else if (req.method === 'GET' && path === '/admin/state') work = Promise.resolve(void send(res, 200, controls.state()));
    else if (req.method === 'GET' && path === '/healthz') work = Promise.resolve(void send(res, 200, { ok: !stopping }));
    else work = Promise.resolve(void send(res, 404, { error: `no route ${req.method} ${path}: try POST /v1/classify` }));
    work.catch((err: unknown) => send(res, 500, { error: `unexpected: ${(err as Error).message}` }));
  };

  const controls: ServiceControls = {
    slowReplica: (replica, factor = 3) => requirePool().configure(replica, { slowFactor: factor }),
    replicaFault: (replica, rate) => requirePool().configure(replica, { faultRate: rate }),
    killReplica: (replica) => requirePool().kill(replica),
    drainReplica: (replica, drained = true) => requirePool().drain(replica, drained),
    scaleOut: () => requirePool().scaleOut(),
    tenantError(tenant, opts = {}) {
      const rate = opts.rate ?? 1;
      if (rate <= 0) tenantErrors.delete(tenant);
      else tenantErrors.set(tenant, { version: opts.version ?? 'v2', rate: Math.min(1, rate) });
    },
    setCanary: (percent, rule = 'canary') => {
      router.setPercent(rule, percent);
      router.setPaused(rule, false);
    },
    pauseCanary: (rule = 'canary') => router.setPaused(rule, true),
    resumeCanary: (rule = 'canary') => router.setPaused(rule, false),
    adjustBatch(settings: Partial<BatchSettings>, version?: ModelVersion) {
      for (const [v, b] of batchers) if (!version || v === version) b.configure(settings);
    },
    regression(version, regression) {
      if (regression) regressions[version] = regression;
      else delete regressions[version];
      requirePool().configureAll({ regression: { ...regressions } });
    },
    setRateLimit: (tenant, limit) => limiter.setLimit(tenant, limit),
    reset() {
      tenantErrors.clear();
      for (const v of MODEL_VERSIONS) delete regressions[v];
      const p = requirePool();
      p.configureAll({ slowFactor: 1, faultRate: 0, regression: {} });
    },
    state(): ServiceState {
      const p = pool;
      const counts = p?.batchCounts() ?? {};
      const replicas: ServiceState['replicas'] = {};
      for (const name of p?.names ?? []) {
        const c = p?.config(name);
        replicas[name] = {
          ready: p?.ready(name) ?? false,
          drained: p?.drained(name) ?? false,
          slowFactor: c?.slowFactor ?? 1,
          faultRate: c?.faultRate ?? 0,
          batches: counts[name] ?? 0,
        };
      }
      const batch = {} as ServiceState['batch'];
      for (const [v, b] of batchers) batch[v] = { ...b.settings(), queueDepth: b.depth };
      return { replicas, regression: { ...regressions }, tenantErrors: Object.fromEntries(tenantErrors), routes: router.rules(), batch };
    },
  };

  return {
    get url() {
      if (!url) throw new Error('the service is not started: call start() first');
      return url;
    },
    get observerFailures() {
      return observerFailures;
    },
    controls,
    async start() {
      if (server) return;
      const models = options.models ?? MODEL_VERSIONS.map((v) => loadModel(v));
      const p = createReplicaPool({ count: o.replicas, models, seed: o.seed });
      pool = p;
      await p.start();
      for (const version of MODEL_VERSIONS) {
        batchers.set(
          version,
          createBatcher<Pending, string>({
            maxBatchSize: o.maxBatchSize,
            maxWaitMs: o.maxWaitMs,
            capacity: o.queueCapacity,
            acquire: () => p.acquire(),
            onBatch: (batch, replica) => runBatch(version, batch, replica),
          }),
        );
      }
      // When a replica frees up, offer it to the versions in turn, starting with a different one each time.
      let turn = 0;
      p.onFree(() => {
        const list = [...batchers.values()];
        for (let k = 0; k < list.length; k++) list[(turn + k) % list.length]?.pump();
        turn++;
      });
      const s = createServer(handle);
      server = s;
      await new Promise<void>((resolve, reject) => {
        s.once('error', reject);
        s.listen(o.port, o.host, () => resolve());
      });
      const addr = s.address() as AddressInfo;
      url = `http://${o.host}:${addr.port}`;
    },
    async stop() {
      if (!server || stopping) return;
      stopping = true;
      const s = server;
      const closed = new Promise<void>((resolve) => s.close(() => resolve()));
      for (const b of batchers.values()) {
        for (const item of b.drain())
          item.settle({ ok: false, message: 'the service is stopping: retry on another instance', replica: '', batchSize: 0, batchTokens: 0 }, 0, 0);
      }
      const deadline = performance.now() + 5_000;
      while (inflightBatches > 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      s.closeIdleConnections();
      await pool?.stop();
      s.closeAllConnections();
      await closed;
    },
  };
}
