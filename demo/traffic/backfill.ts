/**
 * History for a fresh store: a day (or any span) of requests generated quickly and sent through the
 * public ingest API, so every view has something to show the first time it opens.
 *
 * What is real and what is modelled:
 * - arrivals follow the same rate model, tenants, entries and routing table as the live traffic;
 * - labels and confidences are the real models' predictions on the real messages (each version
 *   predicts the corpus once, in-process, and requests reuse those predictions);
 * - stage latencies are drawn from a log-normal model fitted on the live service's measured stage
 *   times (`fitLatencyModel`), so they are modelled, not measured: every event carries
 *   `attributes.backfill = "true"`;
 * - feedback follows the live policy (`planFeedback`), GPU samples (every 15 s) the simulator's model
 *   (`simulated: true`);
 * - incidents of the history (`incidents`) apply the same parameters as the live ones.
 *
 * Events go out as NDJSON batches of `batchRows` (default 5,000), at most two requests in flight
 * while the next batch is generated; 429/503 are retried after `Retry-After`.
 */
import type { EventInput, Feedback, Stage } from '../../src/schema/index.ts';
import { STAGES } from '../../src/schema/index.ts';
import { planFeedback } from '../feedback/index.ts';
import type { FeedbackPolicy } from '../feedback/index.ts';
import type { Message, ModelVersion, Prediction } from '../model/index.ts';
import { countWords } from '../model/index.ts';
import { createRandom } from '../model/index.ts';
import { gpuReadings, gpuRows } from '../resources/index.ts';
import type { IncidentSpec } from '../scenario/index.ts';
import { INCIDENT_PARAMS } from '../scenario/index.ts';
import { createRouter } from '../service/index.ts';
import type { RouteRule } from '../service/index.ts';
import { CLIENT_TRICKLE } from './generator.ts';
import { postNdjson } from '../ingest/index.ts';
import type { IngestTarget } from '../ingest/index.ts';
import { drawMs } from './latency-model.ts';
import type { LatencyModel } from './latency-model.ts';
import { poisson } from './rate.ts';
import type { RateModel } from './rate.ts';
import { createTenantPicker, tenantTiers } from './tenants.ts';
import type { Tenant } from './tenants.ts';

/** An incident placed in the history at absolute times. */
export interface HistoricalIncident {
  spec: IncidentSpec;
  startMs: number;
  endMs: number;
}

/** A message with both versions' real predictions on it. */
export interface PredictedMessage {
  message: Message;
  inputTokens: number;
  predictions: Record<ModelVersion, Prediction>;
}

export interface BackfillOptions {
  target: IngestTarget;
  fromMs: number;
  toMs: number;
  rate: RateModel;
  tenants: readonly Tenant[];
  routes: readonly RouteRule[];
  /** Normal traffic and the drift (hard) subset, each with real predictions. */
  messages: readonly PredictedMessage[];
  driftMessages: readonly PredictedMessage[];
  latency: LatencyModel;
  incidents?: readonly HistoricalIncident[];
  model: string;
  serviceVersion: string;
  node: string;
  replicas: readonly string[];
  /** One simulated GPU per replica: `gpus[i]` sits under `replicas[i]`. */
  gpus: readonly string[];
  nominalRatePerReplica: number;
  spamThreshold?: number;
  feedbackPolicy?: FeedbackPolicy;
  batchRows?: number;
  seed?: number;
  /** Called after each batch with events sent so far and the total. */
  onProgress?: (sent: number, total: number) => void;
}

export interface BackfillResult {
  events: number;
  feedback: number;
  resources: number;
  rejected: number;
  firstProblem?: string;
  elapsedMs: number;
}

const SECOND_MS = 1_000;
const MINUTE_MS = 60_000;
const GPU_SAMPLE_MS = 15_000;

/** Both versions' predictions on `messages`, computed in batches by the real models. */
export function predictAll(messages: readonly Message[], predict: (version: ModelVersion, texts: string[]) => Prediction[]): PredictedMessage[] {
  const texts = messages.map((m) => m.text);
  const v1 = predict('v1', texts);
  const v2 = predict('v2', texts);
  return messages.map((message, i) => ({ message, inputTokens: countWords(message.text), predictions: { v1: v1[i] as Prediction, v2: v2[i] as Prediction } }));
}

export async function backfill(o: BackfillOptions): Promise<BackfillResult> {
  const t0 = performance.now();
  const random = createRandom(o.seed ?? 101);
  const picker = createTenantPicker(o.tenants, createRandom((o.seed ?? 101) + 1));
  const router = createRouter(o.routes);
  const tiers = tenantTiers(o.tenants);
  const threshold = o.spamThreshold ?? 0.5;
  const batchRows = o.batchRows ?? 5_000;
  const incidents = o.incidents ?? [];
  const p = INCIDENT_PARAMS;
  const activeAt = (tsMs: number): IncidentSpec[] => incidents.filter((i) => tsMs >= i.startMs && tsMs < i.endMs).map((i) => i.spec);
  const fromS = Math.ceil(o.fromMs / SECOND_MS);
  const toS = Math.floor(o.toMs / SECOND_MS);

  // Pass 1: arrivals per second (so the progress bar knows the total).
  const perSecond = new Uint16Array(Math.max(0, toS - fromS));
  let total = 0;
  for (let s = fromS; s < toS; s++) {
    const tsMs = s * SECOND_MS;
    const spike = activeAt(tsMs).some((i) => i.kind === 'load_spike') ? p.spikeRateMultiplier : 1;
    const n = Math.min(65_535, poisson(o.rate.ratePerS(tsMs) * spike, random));
    perSecond[s - fromS] = n;
    total += n;
  }

  const result: BackfillResult = { events: 0, feedback: 0, resources: 0, rejected: 0, elapsedMs: 0 };
  // Two requests in flight: the server commits one batch while the next is generated and sent.
  const inflight = new Set<Promise<void>>();
  let failure: unknown;
  const send = async (path: '/v1/events' | '/v1/feedback' | '/v1/resources', rows: unknown[]): Promise<void> => {
    while (inflight.size >= 2) await Promise.race(inflight);
    if (failure !== undefined) throw failure;
    const done: Promise<void> = postNdjson(o.target, path, rows)
      .then((r) => {
        if (path === '/v1/events') {
          result.events += r.accepted;
          o.onProgress?.(result.events + result.rejected + r.rejected, total);
        } else if (path === '/v1/feedback') result.feedback += r.accepted;
        else result.resources += r.accepted;
        result.rejected += r.rejected;
        if (r.firstProblem && !result.firstProblem) result.firstProblem = `${path} ${r.firstProblem}`;
      })
      .catch((err: unknown) => void (failure ??= err))
      .finally(() => inflight.delete(done));
    inflight.add(done);
  };

  let events: EventInput[] = [];
  let feedback: Feedback[] = [];
  let seq = 0;
  const runId = `bf${(o.seed ?? 101).toString(36)}${o.fromMs.toString(36)}`;
  const perMinuteReplica = new Map<number, Map<string, number>>();
  const attributes = { backfill: 'true' };
  const clientRandom = createRandom((o.seed ?? 101) + 17);

  for (let s = fromS; s < toS; s++) {
    const n = perSecond[s - fromS] as number;
    for (let k = 0; k < n; k++) {
      const tsMs = s * SECOND_MS + Math.floor(random() * SECOND_MS);
      const active = activeAt(tsMs);
      const has = (kind: IncidentSpec['kind']) => active.find((i) => i.kind === kind);
      const { tenant, entry } = picker.pick();
      const drift = has('input_drift') !== undefined && random() < p.driftShare;
      const pool = drift ? o.driftMessages : o.messages;
      const pm = pool[Math.floor(random() * pool.length)] as PredictedMessage;
      const requestId = `${runId}-${(seq++).toString(36)}`;
      const canary = has('canary_regression');
      const routed = router.route({ tenant: tenant.name, entry, requestId });
      // The regression raises the canary percent: re-draw the canary rule for its tenants at that percent.
      const version: ModelVersion = canary && canary.where.tenants?.includes(tenant.name) ? (random() * 100 < p.canaryPercent ? 'v2' : 'v1') : routed.version;
      const rule = canary && canary.where.tenants?.includes(tenant.name) ? (version === 'v2' ? 'canary' : 'default') : routed.rule;
      const replica = o.replicas[Math.floor(random() * o.replicas.length)] as string;
      const minute = Math.floor(tsMs / MINUTE_MS);
      let counts = perMinuteReplica.get(minute);
      if (!counts) perMinuteReplica.set(minute, (counts = new Map()));
      counts.set(replica, (counts.get(replica) ?? 0) + 1);

      const factors: Partial<Record<Stage, number>> = {};
      const slow = has('slow_replica');
      if (slow && slow.where.replica === replica) {
        factors.exec_ms = p.slowFactor;
        factors.queue_ms = 1.5;
      }
      if (canary && version === 'v2') factors.exec_ms = (factors.exec_ms ?? 1) * p.regression.slowdownFactor;
      const spike = has('load_spike');
      if (spike) factors.queue_ms = (factors.queue_ms ?? 1) * 40;
      const stages = {} as Record<Stage, number>;
      let sum = 0;
      for (const st of STAGES) sum += stages[st] = drawMs(o.latency.stages[st], random, factors[st] ?? 1);
      const batchSize = o.latency.batchSizes[Math.floor(random() * o.latency.batchSizes.length)] as number;
      // One object literal per event, no spreads: spreading two objects into a 25-key literal
      // measured ~60 µs per event here (V8's slow clone path), a plain literal ~2 µs.
      const rejected = spike !== undefined && random() < 0.15;
      const tenantErr = has('tenant_errors');
      const failed = !rejected && tenantErr !== undefined && tenantErr.where.tenant === tenant.name && version === 'v2';
      let pred = pm.predictions[version];
      if (canary && version === 'v2' && random() < p.regression.flipRate) pred = { label: pred.label === 'spam' ? 'ham' : 'spam', confidence: pred.confidence };
      const pSpam = pred.label === 'spam' ? pred.confidence : 1 - pred.confidence;
      const label = pSpam >= threshold ? 'spam' : 'ham';
      // The misbehaving clients of the live traffic (CLIENT_TRICKLE), in the same shares, from a
      // stream of their own: the draws for everything else (and so the GPU noise) stay as they were.
      const u = clientRandom();
      const malformed = !rejected && u < CLIENT_TRICKLE.malformedShare;
      const limited = !rejected && !malformed && u < CLIENT_TRICKLE.malformedShare + CLIENT_TRICKLE.rateLimitedShare;
      const timedOut =
        !rejected && !malformed && !limited && u < CLIENT_TRICKLE.malformedShare + CLIENT_TRICKLE.rateLimitedShare + CLIENT_TRICKLE.tightDeadlineShare;
      const early = rejected || malformed || limited;
      const ok = !early && !timedOut && !failed;
      const event: EventInput = {
        ts: tsMs,
        request_id: requestId,
        model: o.model,
        model_version: version,
        service_version: o.serviceVersion,
        route_rule: rule,
        tenant: tenant.name,
        entry,
        node: o.node,
        replica: early ? undefined : replica,
        service_tier: tiers[tenant.name] ?? 'standard',
        attributes,
        input_tokens: pm.inputTokens,
        ingress_ms: stages.ingress_ms,
        queue_ms: early ? undefined : stages.queue_ms,
        batch_ms: early ? undefined : stages.batch_ms,
        exec_ms: early ? undefined : stages.exec_ms,
        post_ms: early ? undefined : stages.post_ms,
        batch_size: early ? undefined : batchSize,
        batch_tokens: early ? undefined : batchSize * pm.inputTokens,
        status: rejected ? 'rejected' : malformed ? 'error' : limited ? 'rate_limited' : timedOut ? 'timeout' : failed ? 'error' : 'ok',
        error_type: rejected ? 'resource_exhausted' : malformed ? 'bad_input' : !limited && !timedOut && failed ? 'internal' : undefined,
        http_status: rejected ? 503 : malformed ? 400 : limited ? 429 : timedOut ? 504 : failed ? 500 : 200,
        label: ok ? label : undefined,
        confidence: ok ? Math.round((label === 'spam' ? pSpam : 1 - pSpam) * 1e6) / 1e6 : undefined,
        empty: pm.inputTokens === 0,
        total_ms: early ? Math.round((stages.ingress_ms + 0.2) * 1000) / 1000 : Math.round((sum + drawMs(o.latency.handoff, random)) * 1000) / 1000,
      };
      events.push(event);
      if (!ok) continue;
      for (const f of planFeedback(requestId, tsMs, label === pm.message.label, random, o.feedbackPolicy)) if ((f.ts as number) < o.toMs) feedback.push(f);
    }
    if (events.length >= batchRows) {
      await send('/v1/events', events);
      events = [];
    }
    if (feedback.length >= batchRows) {
      await send('/v1/feedback', feedback);
      feedback = [];
    }
  }
  await send('/v1/events', events);
  await send('/v1/feedback', feedback);

  // GPU samples every 15 s per GPU (a DCGM exporter's usual scrape interval), from the generated
  // per-replica load of that minute.
  let resources: Record<string, unknown>[] = [];
  const creep = incidents.filter((i) => i.spec.kind === 'gpu_memory_creep');
  for (let q = Math.ceil(o.fromMs / GPU_SAMPLE_MS); q < Math.floor(o.toMs / GPU_SAMPLE_MS); q++) {
    const tsMs = q * GPU_SAMPLE_MS;
    const counts = perMinuteReplica.get(Math.floor(tsMs / MINUTE_MS));
    o.replicas.forEach((replica, i) => {
      const gpu = o.gpus[i] ?? String(i);
      const c = creep.find((x) => x.spec.where.gpu === gpu && tsMs >= x.startMs && tsMs < x.endMs);
      const creepBytes = c ? (p.creepBytesAtEnd * (tsMs - c.startMs)) / (c.endMs - c.startMs) : 0;
      resources.push(...gpuRows(tsMs, o.node, gpu, replica, gpuReadings((counts?.get(replica) ?? 0) / 60, o.nominalRatePerReplica, creepBytes, random)));
    });
    if (resources.length >= batchRows) {
      await send('/v1/resources', resources);
      resources = [];
    }
  }
  await send('/v1/resources', resources);
  await Promise.all(inflight);
  if (failure !== undefined) throw failure;
  result.elapsedMs = performance.now() - t0;
  return result;
}
