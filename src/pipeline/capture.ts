/**
 * The capture policy: which request/response payloads are kept as samples, and why.
 *
 * Every valid event is observed (per-model input-length quantiles, tenant traffic shares, requests
 * per model version); an event that carries a payload (`input` or `output`) is kept when a rule
 * fires, in this priority order (the `reasons` of the sample, see SAMPLE_REASONS):
 *   error (status ≠ ok) · low_confidence (confidence < lowConfidence) · refused · empty ·
 *   malformed (format_ok false) · risk_tag (any risk tag, or one of `riskTags` when that list is
 *   set) · new_version (the first `firstPerVersion` requests of a model × version this process
 *   sees) · edge_input_long / edge_input_short (input length above the running P99 / below the
 *   running P1 of its model, once `edgeInputs.minSeen` inputs were seen) · long_tail_tenant (the
 *   tenant had less than `longTail.share` of the traffic over the current and previous window,
 *   once the window holds `longTail.minRequests` requests) · baseline (a random draw with
 *   probability `baselineRate`, made for EVERY payload event so it is independent of the rules).
 *
 * Weights (so aggregates over samples stay unbiased): a sample kept by a rule was kept with
 * probability 1 and stands for the event's own `sample_weight` w (default 1); a sample kept only
 * by the baseline was kept with probability p = baselineRate and stands for w / p. Over a stream
 * of N payload events of weight 1, E[Σ weights] = (rule hits)·1 + (others)·p·(1/p) = N.
 * Worked: 10 000 events, 300 rule hits, p = 1 %: ≈ 97 baseline samples of weight 100 → Σ ≈ 10 000.
 * The estimate stays exact in expectation only while no quota is full; drops are counted.
 *
 * Bounds: every kept sample is charged to the slice (model, model_version, reason) of each of its
 * reasons that has room; a slice holds at most `quota.perSlice` samples per `quota.windowMs`, and
 * the window at most `quota.maxPerWindow` in all. A sample with no room anywhere is dropped and
 * counted once in `inferlens_capture_dropped_total{reason}` under its first reason. Texts are
 * redacted (redact.ts), then cut to `maxTextChars`. So the samples table grows by at most
 * maxPerWindow rows of ≤ 2·maxTextChars characters per window: with the defaults
 * 1 000 rows/h · 24 h · 7 days of retention = 168 000 rows, at most 2 · 8 Ki characters each.
 * The trackers are bounded by `maxTracked` keys each (oldest evicted first).
 *
 * Probes (golden-sample requests) are neither observed nor kept. Time (windows) comes from the
 * injected clock, randomness from the injected RNG: the policy is deterministic under test.
 */
import type { Registry } from 'prom-client';
import { Counter } from 'prom-client';
import { z } from 'zod';
import type { Dimension, EventInput } from '../schema/index.ts';
import { DEFAULT_LOW_CONFIDENCE, truncate, tsMillis } from '../schema/index.ts';
import type { SampleReason, SampleRow } from '../store/index.ts';
import { P2Quantile } from './p2-quantile.ts';
import { DEFAULT_PHONE_REGIONS, PII_KINDS, isPhoneRegion, redact } from './redact.ts';

const HOUR_MS = 3_600_000;

/** The policy's configuration (the `capture` section of the config). */
export const CapturePolicySchema = z
  .object({
    /** Keep samples at all; when false, payloads are only stripped from stored events. */
    enabled: z.boolean().default(true),
    /** Replace e-mail addresses, phone, card numbers and IP addresses before storing. */
    redact: z.boolean().default(true),
    /**
     * Regions (ISO 3166 alpha-2) whose national phone formats are recognised, besides every
     * international one (+…, 00…, 011…): see redact.ts.
     */
    phoneRegions: z
      .array(z.string().refine(isPhoneRegion, { error: 'expected a region code libphonenumber knows, e.g. US, GB, DE, JP' }))
      .min(1)
      .max(16)
      .default([...DEFAULT_PHONE_REGIONS]),
    /** Risk tags that make a request worth keeping; empty = any risk tag. */
    riskTags: z.array(z.string().min(1).max(64)).max(256).default([]),
    /** Requests kept from each model × version the first time this process sees it. */
    firstPerVersion: z.number().int().min(0).max(10_000).default(20),
    edgeInputs: z
      .object({
        enabled: z.boolean().default(true),
        lowQuantile: z.number().gt(0).lt(0.5).default(0.01),
        highQuantile: z.number().gt(0.5).lt(1).default(0.99),
        /** Inputs of a model seen before its outliers are judged (the estimate must settle). */
        minSeen: z.number().int().min(5).default(200),
      })
      .strict()
      .prefault({}),
    longTail: z
      .object({
        /** Tenants below this share of the traffic are long-tail (0 turns the rule off). */
        share: z.number().min(0).max(1).default(0.01),
        windowMs: z.number().int().min(1000).default(HOUR_MS),
        /** Requests the window must hold before shares are judged. */
        minRequests: z.number().int().min(1).default(1000),
      })
      .strict()
      .prefault({}),
    /** Probability of keeping any payload event at random (the unbiased baseline). */
    baselineRate: z.number().min(0).max(1).default(0.01),
    quota: z
      .object({
        /** Most samples per model × version × reason per window. */
        perSlice: z.number().int().min(1).default(50),
        /** Most samples per window in all. */
        maxPerWindow: z.number().int().min(1).default(1000),
        windowMs: z.number().int().min(1000).default(HOUR_MS),
      })
      .strict()
      .prefault({}),
    /** Captured texts are cut to this many characters after redaction. */
    maxTextChars: z.number().int().min(64).max(65_536).default(8192),
    /** Most keys each tracker holds (model versions, models, tenants). */
    maxTracked: z.number().int().min(1).default(10_000),
  })
  .strict();

export type CapturePolicyInput = z.input<typeof CapturePolicySchema>;

/** Maps a dimension value the way the stored event will carry it (the cardinality cap). */
export type MapDimension = (d: Dimension, v: string) => string;

export interface CapturePolicy {
  /**
   * Observes a valid event and returns its sample (redacted, weighted) when the policy keeps it,
   * or null. Call once per event, in arrival order.
   */
  sample(ev: EventInput, mapDimension?: MapDimension): SampleRow | null;
}

export interface CapturePolicyOptions {
  config?: CapturePolicyInput;
  /** Confidence below this is kept as low_confidence: the one cut-off, `quality.lowConfidence` (default 0.6). */
  lowConfidence?: number;
  registry: Registry;
  /** Uniform [0, 1) (default Math.random). */
  rng?: () => number;
  /** Epoch ms (default Date.now). */
  now?: () => number;
}

/** Fields that hold captured payloads: never stored in the events table. */
const PAYLOAD_FIELDS = ['input', 'output', 'risk_tags'] as const;

/** The event without its payload fields; the same object when it had none. */
export function withoutPayload(ev: EventInput): EventInput {
  if (ev.input == null && ev.output == null && ev.risk_tags == null) return ev;
  const out = { ...ev };
  for (const f of PAYLOAD_FIELDS) delete out[f];
  return out;
}

/** A Map that forgets its oldest key when full. */
function remember<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  if (!map.has(key) && map.size >= max) {
    const oldest = map.keys().next();
    if (!oldest.done) map.delete(oldest.value);
  }
  map.set(key, value);
}

/** A dimension value as the stored event will carry it (no closure per call: this is the hot path). */
function dimValue(mapDimension: MapDimension | undefined, d: Dimension, v: string | null | undefined): string | null {
  if (v == null) return null;
  return mapDimension ? mapDimension(d, v) : v;
}

function cut(s: string, max: number): string {
  return s.length <= max ? s : `${truncate(s, max)}…[${s.length - max} more characters]`;
}

export function createCapturePolicy(o: CapturePolicyOptions): CapturePolicy {
  const cfg = CapturePolicySchema.parse(o.config ?? {});
  const lowConfidence = o.lowConfidence ?? DEFAULT_LOW_CONFIDENCE;
  const rng = o.rng ?? Math.random;
  const now = o.now ?? Date.now;
  const riskSet: ReadonlySet<string> = new Set(cfg.riskTags);

  const kept = new Counter({
    name: 'inferlens_capture_kept_total',
    help: 'Samples kept, by their first reason.',
    labelNames: ['reason'],
    registers: [o.registry],
  });
  const dropped = new Counter({
    name: 'inferlens_capture_dropped_total',
    help: 'Samples a rule wanted but a quota refused, by their first reason.',
    labelNames: ['reason'],
    registers: [o.registry],
  });
  const redactions = new Counter({
    name: 'inferlens_capture_redactions_total',
    help: 'PII replaced in captured text, by kind.',
    labelNames: ['kind'],
    registers: [o.registry],
  });

  // Trackers.
  const versionsSeen = new Map<string, number>();
  const lengths = new Map<string, { low: P2Quantile; high: P2Quantile }>();
  let tenantWindow = -1;
  let tenantsNow = new Map<string, number>();
  let tenantsPrev = new Map<string, number>();
  let totalNow = 0;
  let totalPrev = 0;
  // Quotas.
  let quotaWindow = -1;
  const sliceCounts = new Map<string, number>();
  let windowKept = 0;

  function rollTenants(t: number) {
    const w = Math.floor(t / cfg.longTail.windowMs);
    if (w === tenantWindow) return;
    const adjacent = w === tenantWindow + 1;
    tenantsPrev = adjacent ? tenantsNow : new Map();
    totalPrev = adjacent ? totalNow : 0;
    tenantsNow = new Map();
    totalNow = 0;
    tenantWindow = w;
  }

  function rollQuota(t: number) {
    const w = Math.floor(t / cfg.quota.windowMs);
    if (w === quotaWindow) return;
    quotaWindow = w;
    sliceCounts.clear();
    windowKept = 0;
  }

  /** The rules that fire for this event (everything but the baseline), observing as it goes. */
  function rules(ev: EventInput, model: string, version: string, tenant: string | null, hasPayload: boolean): SampleReason[] {
    const reasons: SampleReason[] = [];
    if (ev.status != null && ev.status !== 'ok') reasons.push('error');
    if (ev.confidence != null && ev.confidence < lowConfidence) reasons.push('low_confidence');
    if (ev.refused === true) reasons.push('refused');
    if (ev.empty === true) reasons.push('empty');
    if (ev.format_ok === false) reasons.push('malformed');
    if (ev.risk_tags != null && ev.risk_tags.length > 0 && (riskSet.size === 0 || ev.risk_tags.some((t) => riskSet.has(t)))) reasons.push('risk_tag');

    const vKey = `${model}\u0000${version}`;
    const seen = versionsSeen.get(vKey) ?? 0;
    if (seen < cfg.firstPerVersion) {
      if (hasPayload) reasons.push('new_version');
      remember(versionsSeen, vKey, seen + 1, cfg.maxTracked);
    }

    if (cfg.edgeInputs.enabled && ev.input != null) {
      let q = lengths.get(model);
      if (!q)
        remember(lengths, model, (q = { low: new P2Quantile(cfg.edgeInputs.lowQuantile), high: new P2Quantile(cfg.edgeInputs.highQuantile) }), cfg.maxTracked);
      const len = ev.input.length;
      // Judged against the inputs seen before this one. Lengths are whole numbers and the estimate
      // interpolates between them (P99 of 90…110 reads 109.8), so compare with the whole number
      // beyond it: a length tied with the P99 is not an outlier.
      if (q.high.seen >= cfg.edgeInputs.minSeen) {
        if (len > Math.ceil(q.high.value())) reasons.push('edge_input_long');
        else if (len < Math.floor(q.low.value())) reasons.push('edge_input_short');
      }
      q.low.add(len);
      q.high.add(len);
    }

    if (tenant != null) {
      rollTenants(now());
      const n = (tenantsNow.get(tenant) ?? 0) + 1;
      if (tenantsNow.has(tenant) || tenantsNow.size < cfg.maxTracked) tenantsNow.set(tenant, n);
      totalNow++;
      const total = totalNow + totalPrev;
      const share = (n + (tenantsPrev.get(tenant) ?? 0)) / total;
      if (cfg.longTail.share > 0 && total >= cfg.longTail.minRequests && share < cfg.longTail.share) reasons.push('long_tail_tenant');
    }
    return reasons;
  }

  function redacted(s: string | null | undefined): string | null {
    if (s == null) return null;
    let text = s;
    if (cfg.redact) {
      const r = redact(s, { phoneRegions: cfg.phoneRegions });
      for (const k of PII_KINDS) if (r.counts[k] > 0) redactions.inc({ kind: k }, r.counts[k]);
      text = r.text;
    }
    return cut(text, cfg.maxTextChars);
  }

  return {
    sample(ev, mapDimension) {
      if (!cfg.enabled || ev.probe === true) return null;
      const model = dimValue(mapDimension, 'model', ev.model)!;
      const version = dimValue(mapDimension, 'model_version', ev.model_version);
      const tenant = dimValue(mapDimension, 'tenant', ev.tenant);
      const hasPayload = ev.input != null || ev.output != null;
      const reasons = rules(ev, model, version ?? '', tenant, hasPayload);
      if (!hasPayload) return null;
      if (cfg.baselineRate > 0 && rng() < cfg.baselineRate) reasons.push('baseline');
      if (reasons.length === 0) return null;

      // Quotas: charge every reason's slice that has room.
      rollQuota(now());
      let byRule = false;
      let byBaseline = false;
      if (windowKept < cfg.quota.maxPerWindow) {
        for (const r of reasons) {
          const key = `${model}\u0000${version ?? ''}\u0000${r}`;
          const n = sliceCounts.get(key) ?? 0;
          if (n >= cfg.quota.perSlice) continue;
          sliceCounts.set(key, n + 1);
          if (r === 'baseline') byBaseline = true;
          else byRule = true;
        }
      }
      if (!byRule && !byBaseline) {
        dropped.inc({ reason: reasons[0]! });
        return null;
      }
      windowKept++;
      kept.inc({ reason: reasons[0]! });
      const w = ev.sample_weight ?? 1;
      return {
        ts: tsMillis(ev.ts),
        request_id: ev.request_id ?? null,
        model,
        model_version: version,
        tenant,
        entry: dimValue(mapDimension, 'entry', ev.entry),
        node: dimValue(mapDimension, 'node', ev.node),
        replica: dimValue(mapDimension, 'replica', ev.replica),
        route_rule: dimValue(mapDimension, 'route_rule', ev.route_rule),
        status: ev.status ?? null,
        error_type: ev.error_type ?? null,
        label: ev.label ?? null,
        confidence: ev.confidence ?? null,
        reasons,
        risk_tags: ev.risk_tags ?? [],
        sample_weight: byRule ? w : w / cfg.baselineRate,
        input: redacted(ev.input),
        output: redacted(ev.output),
      };
    },
  };
}
