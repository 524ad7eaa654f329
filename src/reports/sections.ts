/**
 * The review's sections that reuse the platform's analyses, each over the period and the one before:
 *
 * - versions that behaved abnormally: the release comparer (src/release) judging each model
 *   version of the period against itself in the previous period, and each version beside its
 *   model's main one (the version with the most requests) against that main version over the same
 *   period — promote / hold / rollback with the score and the reasons; ranked worst verdict first;
 * - tenants and entries with the largest error and latency excess: the slice finder
 *   (src/analysis rankSlices through the query service) over tenant and entry and their pairs,
 *   errors (error + timeout) and slow requests (above the period's P95 of total_ms), each slice
 *   with its n, k, rate, the rest's rate, the excess n·(rate − rest) and its BH q-value, beside the
 *   same slice's figures in the previous period;
 * - quality drift per version: src/quality's drift test of confidence and label, the period
 *   against the previous one (KS / chi-square up to 1,000 reference rows, else Wasserstein / JS, as
 *   Evidently), with PSI;
 * - golden pass rates per version from the probe events, against the previous period.
 *
 * Bounded: at most MAX_VERSIONS model versions are compared and tested (most requests first), each
 * release comparison reading at most MAX_EVENTS_PER_SIDE rows per side.
 */
import type { CompareResult, Comparer } from '../release/index.ts';
import type { QualityReads } from '../quality/index.ts';
import { driftQuery, goldenResults } from '../quality/index.ts';
import { CompareRequestSchema, DriftRequestSchema, ErrorSlicesRequestSchema, GoldenResultsRequestSchema, decode } from '../schema/index.ts';
import type { ErrorSlicesRequest, Filters, QueryRow, QuerySpec } from '../schema/index.ts';
import type { DriftReply, ErrorSlicesReply, GoldenResultsReply as GoldenResults, RankedSliceReply as RankedSlice } from '../schema/index.ts';

/** Model versions compared and drift-tested per report. */
export const MAX_VERSIONS = 12;
/** Rows each side of a release comparison reads. */
export const MAX_EVENTS_PER_SIDE = 5000;
/** Slice-finder dimensions of this section. */
export const SLICE_DIMENSIONS = ['tenant', 'entry'] as const;

/** The reads these sections need; each section is left out (available: false) without its read. */
export interface SectionReads {
  aggregate(spec: QuerySpec): Promise<QueryRow[]>;
  comparer?: Comparer;
  errorSlices?: (req: ErrorSlicesRequest) => Promise<ErrorSlicesReply>;
  quality?: QualityReads;
}

type Verdict = CompareResult['verdict'];
export interface VerdictSummary {
  verdict: Verdict;
  score: number | null;
  reasons: string[];
  baseline_requests: number;
  candidate_requests: number;
}

export interface VersionRow {
  model: string | null;
  model_version: string | null;
  requests: number;
  previous_requests: number;
  main: boolean;
  /** This version now against itself in the previous period. */
  vs_previous: VerdictSummary | null;
  /** This version against its model's main version over the period (null for the main one). */
  vs_main: (VerdictSummary & { main_version: string | null }) | null;
}

export interface SliceRow {
  slice: Record<string, string>;
  n: number;
  k: number;
  rate: number;
  rest_rate: number;
  excess: number;
  q_value: number;
  verdict: RankedSlice['verdict'];
  previous: { n: number; k: number; rate: number; excess: number } | null;
}

export interface SliceSection {
  kind: 'errors' | 'slow';
  threshold_ms: number | null;
  previous_threshold_ms: number | null;
  total: { n: number; k: number; rate: number | null };
  previous_total: { n: number; k: number; rate: number | null };
  slices: SliceRow[];
}

export interface DriftRow {
  model: string | null;
  model_version: string | null;
  field: string;
  method: string | null;
  statistic: number | null;
  p_value: number | null;
  drift: boolean | null;
  psi: number | null;
  n: number;
  reference_n: number;
}

export interface GoldenRow {
  model: string | null;
  model_version: string | null;
  runs: number;
  passed: number;
  pass_rate: number | null;
  previous_runs: number;
  previous_pass_rate: number | null;
  /** Pass-rate points gained since the previous period. */
  change_points: number | null;
}

export interface Sections {
  versions: { available: boolean; rows: VersionRow[] };
  slices: { available: boolean; errors: SliceSection | null; slow: SliceSection | null };
  quality: { available: boolean; drift: DriftRow[]; golden: GoldenRow[] };
}

const TOP = 10;
const iso = (ms: number) => new Date(ms).toISOString();
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown) => (typeof v === 'string' ? v : null);
const SEVERITY: Record<Verdict, number> = { rollback: 0, hold: 1, not_enough_data: 2, promote: 3 };

function summary(r: CompareResult): VerdictSummary {
  return {
    verdict: r.verdict,
    score: r.score,
    reasons: r.reasons.slice(0, 3),
    baseline_requests: r.baseline.requests,
    candidate_requests: r.candidate.requests,
  };
}

async function versionsSection(reads: SectionReads, cur: [number, number], prev: [number, number], filters: Filters): Promise<Sections['versions']> {
  if (!reads.comparer) return { available: false, rows: [] };
  const count = (w: [number, number]) =>
    reads.aggregate({
      fromMs: w[0],
      toMs: w[1],
      filters,
      groupBy: ['model', 'model_version'],
      includeProbes: false,
      limit: 10_000,
      measures: [{ name: 'count', measure: { kind: 'count' } }],
    });
  const [now, before] = await Promise.all([count(cur), count(prev)]);
  const prevCount = new Map(before.map((r) => [JSON.stringify([r['model'], r['model_version']]), num(r['count']) ?? 0]));
  const list = now
    .map((r) => ({ model: str(r['model']), model_version: str(r['model_version']), requests: num(r['count']) ?? 0 }))
    .sort((a, b) => b.requests - a.requests)
    .slice(0, MAX_VERSIONS);
  const mainOf = new Map<string | null, string | null>();
  for (const v of [...list].sort((a, b) => b.requests - a.requests)) if (!mainOf.has(v.model)) mainOf.set(v.model, v.model_version);
  const side = (model: string | null, version: string | null, w: [number, number]) => ({
    filters: { ...filters, ...(model !== null && { model }), ...(version !== null && { model_version: version }) },
    from: iso(w[0]),
    to: iso(w[1]),
  });
  const compare = (baseline: ReturnType<typeof side>, candidate: ReturnType<typeof side>) =>
    reads.comparer!.compare(decode(CompareRequestSchema, { baseline, candidate, max_events_per_side: MAX_EVENTS_PER_SIDE }, 'release comparison'));
  const rows: VersionRow[] = [];
  // One comparison at a time: each reads up to MAX_EVENTS_PER_SIDE rows per side.
  for (const v of list) {
    const main = mainOf.get(v.model) === v.model_version;
    const previousRequests = prevCount.get(JSON.stringify([v.model, v.model_version])) ?? 0;
    const vsPrevious = previousRequests > 0 ? summary(await compare(side(v.model, v.model_version, prev), side(v.model, v.model_version, cur))) : null;
    const mainVersion = mainOf.get(v.model) ?? null;
    const vsMain = main ? null : { ...summary(await compare(side(v.model, mainVersion, cur), side(v.model, v.model_version, cur))), main_version: mainVersion };
    rows.push({ ...v, previous_requests: previousRequests, main, vs_previous: vsPrevious, vs_main: vsMain });
  }
  const worst = (r: VersionRow) => Math.min(SEVERITY[r.vs_previous?.verdict ?? 'promote'], SEVERITY[r.vs_main?.verdict ?? 'promote']);
  const score = (r: VersionRow) => Math.min(r.vs_previous?.score ?? 100, r.vs_main?.score ?? 100);
  return { available: true, rows: rows.sort((a, b) => worst(a) - worst(b) || score(a) - score(b) || b.requests - a.requests).slice(0, TOP) };
}

async function sliceSection(
  reads: SectionReads,
  kind: 'errors' | 'slow',
  cur: [number, number],
  prev: [number, number],
  filters: Filters,
): Promise<SliceSection> {
  const req = (w: [number, number]) =>
    decode(ErrorSlicesRequestSchema, { from: iso(w[0]), to: iso(w[1]), filters, kind, dimensions: [...SLICE_DIMENSIONS], limit: 500 }, 'slice search');
  const [now, before] = await Promise.all([reads.errorSlices!(req(cur)), reads.errorSlices!(req(prev))]);
  const old = new Map(before.slices.map((s) => [JSON.stringify(s.slice), s]));
  return {
    kind,
    threshold_ms: now.threshold_ms ?? null,
    previous_threshold_ms: before.threshold_ms ?? null,
    total: now.total,
    previous_total: before.total,
    slices: now.slices
      .filter((s) => s.verdict === 'elevated')
      .slice(0, TOP)
      .map((s) => {
        const b = old.get(JSON.stringify(s.slice));
        return {
          slice: s.slice,
          n: s.n,
          k: s.k,
          rate: s.rate,
          rest_rate: s.rest_rate,
          excess: s.excess,
          q_value: s.q_value,
          verdict: s.verdict,
          previous: b ? { n: b.n, k: b.k, rate: b.rate, excess: b.excess } : null,
        };
      }),
  };
}

async function qualitySection(reads: SectionReads, cur: [number, number], prev: [number, number], filters: Filters): Promise<Sections['quality']> {
  const q = reads.quality;
  if (!q) return { available: false, drift: [], golden: [] };
  const versions = (
    await reads.aggregate({
      fromMs: cur[0],
      toMs: cur[1],
      filters,
      groupBy: ['model', 'model_version'],
      includeProbes: false,
      limit: 10_000,
      measures: [{ name: 'count', measure: { kind: 'count' } }],
    })
  )
    .map((r) => ({ model: str(r['model']), model_version: str(r['model_version']), requests: num(r['count']) ?? 0 }))
    .sort((a, b) => b.requests - a.requests)
    .slice(0, MAX_VERSIONS);
  const drift: DriftRow[] = [];
  for (const v of versions) {
    const side = { ...filters, ...(v.model !== null && { model: v.model }), ...(v.model_version !== null && { model_version: v.model_version }) };
    const reply: DriftReply = await driftQuery(
      q,
      decode(
        DriftRequestSchema,
        {
          from: iso(cur[0]),
          to: iso(cur[1]),
          filters: side,
          reference: { kind: 'window', from: iso(prev[0]), to: iso(prev[1]) },
          fields: ['confidence', 'label'],
        },
        'drift request',
      ),
    );
    for (const f of reply.fields) {
      const n = f.test.n_cur;
      const refN = f.test.n_ref;
      if (n === 0 && refN === 0) continue;
      const judged = f.test.verdict === 'drift' || f.test.verdict === 'no_drift';
      drift.push({
        model: v.model,
        model_version: v.model_version,
        field: f.field,
        method: judged ? f.test.method : null,
        statistic: judged ? num(f.test.statistic) : null,
        p_value: judged ? num(f.test.p_value) : null,
        drift: judged ? f.test.drift : null,
        psi: num(f.psi.statistic),
        n,
        reference_n: refN,
      });
    }
  }
  // Drifted first, then by PSI.
  drift.sort((a, b) => Number(b.drift === true) - Number(a.drift === true) || (b.psi ?? -1) - (a.psi ?? -1));
  // Golden probes are the platform's own calls (no tenant, entry or route): narrowed by model and version only.
  const golden = async (w: [number, number]): Promise<GoldenResults> =>
    goldenResults(
      q,
      decode(
        GoldenResultsRequestSchema,
        { from: iso(w[0]), to: iso(w[1]), ...(typeof filters.model === 'string' && { model: filters.model }) },
        'golden results',
      ),
    );
  const [gNow, gBefore] = await Promise.all([golden(cur), golden(prev)]);
  const old = new Map(gBefore.versions.map((v) => [JSON.stringify([v.model, v.model_version]), v]));
  const goldenRows = gNow.versions
    .filter((v) => typeof filters.model_version !== 'string' || v.model_version === filters.model_version)
    .map((v) => {
      const b = old.get(JSON.stringify([v.model, v.model_version]));
      return {
        model: v.model,
        model_version: v.model_version,
        runs: v.runs,
        passed: v.passed,
        pass_rate: v.pass_rate,
        previous_runs: b?.runs ?? 0,
        previous_pass_rate: b?.pass_rate ?? null,
        change_points: v.pass_rate != null && b?.pass_rate != null ? (v.pass_rate - b.pass_rate) * 100 : null,
      };
    })
    .sort((a, b) => (a.pass_rate ?? 2) - (b.pass_rate ?? 2) || (a.change_points ?? 0) - (b.change_points ?? 0))
    .slice(0, TOP);
  return { available: true, drift: drift.slice(0, TOP), golden: goldenRows };
}

export async function buildSections(reads: SectionReads, cur: [number, number], prev: [number, number], filters: Filters = {}): Promise<Sections> {
  const [versions, errors, slow, quality] = await Promise.all([
    versionsSection(reads, cur, prev, filters),
    reads.errorSlices ? sliceSection(reads, 'errors', cur, prev, filters) : Promise.resolve(null),
    reads.errorSlices ? sliceSection(reads, 'slow', cur, prev, filters) : Promise.resolve(null),
    qualitySection(reads, cur, prev, filters),
  ]);
  return { versions, slices: { available: !!reads.errorSlices, errors, slow }, quality };
}
