/**
 * The release comparer: validates a request, reads both sides through the query service, measures
 * every selected metric, and judges. Reads only; the same input gives the same answer (all
 * subsampling is seeded).
 */
import { jensenShannonDistance } from '../analysis/index.ts';
import { LATENCY_FIELDS, snakeKeys } from '../schema/index.ts';
import type { CompareReply, CompareRequest, CompareSideReply } from '../schema/index.ts';
import type { TypedReads } from '../query/index.ts';
import { toComparePlan } from './input.ts';
import type { ComparePlan } from './input.ts';
import { judge } from './judge.ts';
import { ACCURACY_METRICS, LATENCY_KINDS, OUTPUT_METRICS, QUANTILE_OF, RATE_METRICS, latencyMetric, selected } from './metrics.ts';
import type { MetricDef } from './metrics.ts';
import { readSide } from './side-data.ts';
import type { FeedbackSource, SideData } from './side-data.ts';
import { confidenceDrift, confidenceShift, labelDrift, latencyShift, noData, quantileDiff, rateDiff } from './stats.ts';
import type { Measurement } from './stats.ts';

/** Seed of every subsample (Hodges–Lehmann), so a comparison is reproducible. */
export const SEED = 20_240_601;

/**
 * Values per side for the Hodges–Lehmann estimate: n_x·n_y differences are built and selected
 * from, so 1000 per side is 1 M differences (~50 ms), 2000 would be 4 M (4× the time) for an
 * interval only √2 narrower. The U test always uses every value read.
 */
export const HL_MAX_PER_SIDE = 1000;

export type SideSummary = CompareSideReply;
/** The comparison as the API answers it (src/schema/replies.ts). */
export type CompareResult = CompareReply;

export interface Comparer {
  /** Plans (invalid_argument with field paths) and compares; see src/release/README.md. */
  compare(request: CompareRequest): Promise<CompareResult>;
}

export interface ComparerOptions {
  /** Feedback hit rate per side, when the feedback join exists; without it the row says no data. */
  feedback?: FeedbackSource;
  /** Values per side for Hodges–Lehmann (default HL_MAX_PER_SIDE). */
  hodgesLehmannMaxPerSide?: number;
}

/** The reads a comparison needs: the aggregate and bounded raw events (the query service or the typed reads). */
export type ReleaseReads = Pick<TypedReads, 'aggregate' | 'events'>;

export function createComparer(queries: ReleaseReads, options: ComparerOptions = {}): Comparer {
  return {
    async compare(input) {
      const plan = toComparePlan(input);
      const [b, c] = await Promise.all([
        readSide(queries, plan.baseline, plan.maxEventsPerSide, options.feedback),
        readSide(queries, plan.candidate, plan.maxEventsPerSide, options.feedback),
      ]);
      const few = [b, c].flatMap((s, i) =>
        s.n < plan.minRequests ? [`${i === 0 ? 'baseline' : 'candidate'} has ${s.n} requests, fewer than ${plan.minRequests}`] : [],
      );
      const j = judge(measure(plan, b, c, options.hodgesLehmannMaxPerSide ?? HL_MAX_PER_SIDE), {
        correction: plan.correction,
        promoteScore: plan.promoteScore,
        rollbackScore: plan.rollbackScore,
        ...(few.length ? { tooLittleTraffic: `not enough data: ${few.join('; ')}` } : {}),
      });
      return {
        verdict: j.verdict,
        score: j.score,
        reasons: j.reasons,
        warnings: mixWarnings(b, c),
        evidence: j.evidence.map(snakeKeys),
        baseline: summary(b),
        candidate: summary(c),
      };
    },
  };
}

/** Jensen–Shannon distance between the sides' tenant mixes at which the comparison warns. */
export const TENANT_MIX_DISTANCE = 0.1;

/**
 * A version that serves other tenants than its baseline can look better or worse for that alone
 * (a canary routed only to a small, fast tenant). Warn when the tenant mixes differ by a
 * Jensen–Shannon distance ≥ 0.1 (the drift threshold used elsewhere); a single tenant on each side
 * (the `tenant` field) has nothing to compare. Worked: baseline {a: 50, b: 50}, candidate {a: 90, b: 10} → distance 0.29 → warn.
 */
export function mixWarnings(b: Pick<SideData, 'tenants'>, c: Pick<SideData, 'tenants'>): string[] {
  const keys = [...new Set([...Object.keys(b.tenants), ...Object.keys(c.tenants)])];
  if (keys.length < 2) return [];
  const d = jensenShannonDistance(
    keys.map((k) => b.tenants[k] ?? 0),
    keys.map((k) => c.tenants[k] ?? 0),
  );
  if (!(d.statistic >= TENANT_MIX_DISTANCE)) return [];
  const top = (t: Record<string, number>) => {
    const total = Object.values(t).reduce((x, y) => x + y, 0);
    return Object.entries(t)
      .sort((x, y) => y[1] - x[1])
      .slice(0, 3)
      .map(([k, v]) => `${k} ${((100 * v) / total).toFixed(0)} %`)
      .join(', ');
  };
  return [
    `the two sides serve different tenant mixes (Jensen–Shannon distance ${d.statistic.toFixed(2)}; baseline ${top(b.tenants)}; candidate ${top(c.tenants)}): differences may come from the traffic, not the version — compare with "tenant" set`,
  ];
}

function summary(s: SideData): SideSummary {
  return {
    n: s.n,
    requests: s.requests,
    from: new Date(s.window.fromMs).toISOString(),
    to: new Date(s.window.toMs).toISOString(),
    filters: s.window.filters,
    sample: s.sample,
  };
}

/** Every selected metric, in catalog order. */
export function measure(plan: ComparePlan, b: SideData, c: SideData, hlMaxPerSide = HL_MAX_PER_SIDE): Measurement[] {
  const out: Measurement[] = [];
  const want = (d: MetricDef) => selected(d, plan.metrics);
  const min = plan.minRateSamples;
  const t = plan.tolerance;
  const sampleNote = [b, c].some((s) => s.sample.stratified)
    ? `raw sample: ${b.sample.rows} of ${b.sample.of} / ${c.sample.rows} of ${c.sample.of} rows, the most recent of each of 10 equal slices of the window`
    : null;

  for (const field of LATENCY_FIELDS) {
    const x = b.latency[field];
    const y = c.latency[field];
    // Generative fields (and stages a service does not time) appear only when either side has them.
    if (x.length === 0 && y.length === 0) continue;
    for (const kind of LATENCY_KINDS) {
      const def = latencyMetric(kind, field);
      if (!want(def)) continue;
      const test = kind === 'shift' ? 'mann_whitney_u+hodges_lehmann' : 'quantile_order_statistics';
      if (x.length < min || y.length < min) {
        out.push(noData(def, 'ms', test, x.length, y.length, `fewer than ${min} values on a side`));
        continue;
      }
      const m =
        kind === 'shift'
          ? latencyShift(def, x, y, t.latencyRelative, t.latencyMinMs, SEED, hlMaxPerSide)
          : quantileDiff(
              def,
              QUANTILE_OF[kind],
              { baseline: b.quantiles[def.name] ?? null, candidate: c.quantiles[def.name] ?? null },
              x,
              y,
              t.latencyRelative,
              t.latencyMinMs,
            );
      if (sampleNote) m.notes.push(sampleNote);
      out.push(m);
    }
  }

  const tolPp: Record<string, number> = { error_rate: t.errorRatePp, timeout_rate: t.timeoutRatePp, reject_rate: t.rejectRatePp };
  const rateOf = (s: SideData, name: string): number | null =>
    name === 'error_rate'
      ? s.rates.error
      : name === 'timeout_rate'
        ? s.rates.timeout
        : s.rates.rejected === null && s.rates.rateLimited === null
          ? null
          : (s.rates.rejected ?? 0) + (s.rates.rateLimited ?? 0);
  for (const def of RATE_METRICS) {
    if (!want(def)) continue;
    const rb = rateOf(b, def.name);
    const rc = rateOf(c, def.name);
    if (rb === null || rc === null || b.n < min || c.n < min) {
      out.push(
        noData(def, 'fraction', 'two_proportion', b.n, c.n, rb === null || rc === null ? 'no status on a side' : `fewer than ${min} requests on a side`),
      );
      continue;
    }
    // Rates are weighted shares; the test counts stored rows: k = rate × rows.
    out.push(rateDiff(def, Math.round(rb * b.n), b.n, Math.round(rc * c.n), c.n, tolPp[def.name] ?? 0));
  }

  for (const def of OUTPUT_METRICS) {
    if (!want(def)) continue;
    let m: Measurement;
    if (def.name === 'label_drift') {
      m =
        b.labels.length && c.labels.length
          ? labelDrift(def, b.labels, c.labels, min)
          : noData(def, 'distance', 'label distribution', b.labels.length, c.labels.length, 'no labels on a side');
    } else if (b.confidence.length < min || c.confidence.length < min) {
      m = noData(
        def,
        'confidence',
        def.name === 'confidence_drift' ? 'ks/wasserstein' : 'mann_whitney_u+hodges_lehmann',
        b.confidence.length,
        c.confidence.length,
        `fewer than ${min} confidence values on a side`,
      );
    } else if (def.name === 'confidence_drift') {
      m = confidenceDrift(def, b.confidence, c.confidence, min);
    } else {
      m = confidenceShift(def, b.confidence, c.confidence, t.confidenceShift, SEED, hlMaxPerSide);
    }
    if (sampleNote && m.noData === undefined) m.notes.push(sampleNote);
    out.push(m);
  }

  for (const def of ACCURACY_METRICS) {
    if (!want(def)) continue;
    const pair =
      def.name === 'golden_pass_rate'
        ? [b.golden, c.golden].map((g) => ({ k: g.passed, n: g.n }))
        : b.feedback && c.feedback
          ? [b.feedback, c.feedback].map((f) => ({ k: f.hits, n: f.n }))
          : null;
    const [pb, pc] = pair ?? [];
    if (!pb || !pc || pb.n < min || pc.n < min) {
      const why =
        def.name === 'feedback_hit_rate' && !pair
          ? 'feedback join not available (no feedback source configured)'
          : `fewer than ${min} ${def.name === 'golden_pass_rate' ? 'golden probes' : 'feedback rows'} on a side`;
      out.push(noData(def, 'fraction', 'two_proportion', pb?.n ?? 0, pc?.n ?? 0, why));
      continue;
    }
    const m = rateDiff(def, pb.k, pb.n, pc.k, pc.n, t.accuracyPp);
    if (def.name === 'golden_pass_rate' && sampleNote) m.notes.push(sampleNote);
    out.push(m);
  }
  return out;
}
