/**
 * `POST /v1/quality/drift`: has the output distribution moved against a reference? The reference
 * is the previous window of the same length, a pinned window, or another model version over the
 * same window. Per field, the test chosen by `driftTest` (Evidently's defaults: reference ≤ 1000
 * rows → KS / chi-square or z with p-values, more → normed Wasserstein / Jensen–Shannon with a 0.1
 * threshold; below the minimum sample size → not_enough_data) and PSI, each with statistic,
 * p-value where defined, threshold, verdict and both sample sizes; Benjamini–Hochberg q-values
 * across the fields' p-values.
 *
 * Numeric values are read as raw rows, at most MAX_NUMERIC_ROWS per side: when a window holds more,
 * a deterministic stratified subsample is taken instead (STRATA equal time slices, the first rows
 * of each). Categorical values come from grouped row counts; above MAX_CATEGORICAL_ROWS per side
 * the counts are scaled down proportionally (shares kept) before the test.
 */
import { benjaminiHochberg, driftTest, psi, psiNumeric } from '../analysis/index.ts';
import type { DriftResult, PsiResult } from '../analysis/index.ts';
import { InferlensError, snakeKeys } from '../schema/index.ts';
import type { DriftField, DriftReply, DriftRequest, Filters } from '../schema/index.ts';
import type { QualityReads } from './reads.ts';
import { specOf } from './reads.ts';

export const MAX_NUMERIC_ROWS = 20_000;
export const STRATA = 20;
export const MAX_CATEGORICAL_ROWS = 200_000;

/**
 * Lower bound that keeps only rows where the field is set (the store's `minValue` filter). Not an
 * integer, so the driver binds it as a DOUBLE (a whole number this large would overflow BIGINT);
 * values below −2^51 are outside any confidence, length or score we expect.
 */
const NOT_NULL_BOUND = -(2 ** 51) - 0.5;

interface Window {
  fromMs: number;
  toMs: number;
  filters: Filters;
}

/** One field's tests, inside the process (the reply spells them in snake_case). */
interface FieldDrift {
  field: DriftField;
  kind: 'numeric' | 'categorical';
  test: DriftResult;
  /** BH q-value of the test's p-value across the fields (null for distances and no verdict). */
  qValue: number | null;
  psi: PsiResult;
  /** Whether a side was subsampled to stay bounded. */
  sampled: { reference: boolean; current: boolean };
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Raw numeric values of a field in a window, bounded; stratified in time when there are more. */
export async function numericValues(reads: QualityReads, w: Window, field: DriftField): Promise<{ values: number[]; sampled: boolean }> {
  const list = (fromMs: number, toMs: number, limit: number) =>
    reads.events({
      fromMs,
      toMs,
      filters: w.filters,
      columns: [field],
      minValue: { column: field, value: NOT_NULL_BOUND },
      limit,
      includeProbes: false,
      order: 'ts_asc',
    });
  const pick = (rows: readonly Record<string, unknown>[]) => rows.map((r) => r[field]).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  const rows = await list(w.fromMs, w.toMs, MAX_NUMERIC_ROWS + 1);
  if (rows.length <= MAX_NUMERIC_ROWS) return { values: pick(rows), sampled: false };
  const sliceMs = (w.toMs - w.fromMs) / STRATA;
  const values: number[] = [];
  for (let i = 0; i < STRATA; i++) {
    const from = Math.round(w.fromMs + i * sliceMs);
    const to = i === STRATA - 1 ? w.toMs : Math.round(w.fromMs + (i + 1) * sliceMs);
    values.push(...pick(await list(from, to, MAX_NUMERIC_ROWS / STRATA)));
  }
  return { values, sampled: true };
}

/** Row counts per value of a categorical field (rows without a value left out). */
export async function categoricalCounts(reads: QualityReads, w: Window, field: 'label' | 'finish_reason'): Promise<Record<string, number>> {
  const rows = await reads.aggregate(specOf(w.fromMs, w.toMs, w.filters, ['n'], { groupBy: [field] }));
  const out: Record<string, number> = {};
  for (const r of rows) if (r[field] != null) out[String(r[field])] = Number(r.n);
  return out;
}

/** One label per row (what driftTest takes), counts scaled down to `cap` rows when larger. */
export function expandCounts(counts: Readonly<Record<string, number>>, cap = MAX_CATEGORICAL_ROWS): { values: string[]; sampled: boolean } {
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  const scale = total > cap ? cap / total : 1;
  const values: string[] = [];
  for (const [label, n] of Object.entries(counts).sort((a, b) => a[0].localeCompare(b[0]))) {
    const k = Math.round(n * scale);
    for (let i = 0; i < k; i++) values.push(label);
  }
  return { values, sampled: scale < 1 };
}

/** PSI without a verdict when a side is below the minimum sample size. */
function guardedPsi(result: PsiResult, minSamples: number): PsiResult {
  if (result.nRef >= minSamples && result.nCur >= minSamples) return result;
  return { ...result, statistic: NaN, verdict: 'not_enough_data', drift: false, level: null };
}

/** Resolves the reference window of a request. */
export function referenceWindow(cur: Window, ref: DriftRequest['reference']): Window {
  switch (ref.kind) {
    case 'previous':
      return { fromMs: 2 * cur.fromMs - cur.toMs, toMs: cur.fromMs, filters: cur.filters };
    case 'window':
      return { fromMs: ref.fromMs, toMs: ref.toMs, filters: cur.filters };
    case 'version':
      if (cur.filters.model_version === undefined) {
        throw new InferlensError(
          'invalid_argument',
          "filters.model_version: required with reference kind 'version' (the version to compare against the reference version)",
          {
            issues: [{ path: 'filters.model_version', message: "required with reference kind 'version'" }],
          },
        );
      }
      return { fromMs: cur.fromMs, toMs: cur.toMs, filters: { ...cur.filters, model_version: ref.model_version } };
  }
}

/** Answers the drift request. */
export async function driftQuery(reads: QualityReads, o: DriftRequest): Promise<DriftReply> {
  const cur: Window = { fromMs: o.fromMs, toMs: o.toMs, filters: o.filters as Filters };
  const ref = referenceWindow(cur, o.reference);
  const opts = { minSamples: o.min_samples };
  const fields: FieldDrift[] = [];
  for (const field of [...new Set(o.fields)]) {
    if (field === 'label' || field === 'finish_reason') {
      const refCounts = await categoricalCounts(reads, ref, field);
      const curCounts = await categoricalCounts(reads, cur, field);
      const r = expandCounts(refCounts);
      const c = expandCounts(curCounts);
      fields.push({
        field,
        kind: 'categorical',
        test: driftTest(r.values, c.values, 'categorical', opts),
        qValue: null,
        psi: guardedPsi(psi(refCounts, curCounts), o.min_samples),
        sampled: { reference: r.sampled, current: c.sampled },
      });
    } else {
      const r = await numericValues(reads, ref, field);
      const c = await numericValues(reads, cur, field);
      const p = psiNumeric(r.values, c.values);
      const { edges: _e, refCounts: _r, curCounts: _c, ...psiResult } = p;
      fields.push({
        field,
        kind: 'numeric',
        test: driftTest(r.values, c.values, 'numeric', opts),
        qValue: null,
        psi: guardedPsi(psiResult, o.min_samples),
        sampled: { reference: r.sampled, current: c.sampled },
      });
    }
  }
  const q = benjaminiHochberg(fields.map((f) => (f.test.pValue != null && f.test.verdict !== 'not_enough_data' ? f.test.pValue : NaN)));
  fields.forEach((f, i) => (f.qValue = Number.isNaN(q[i]!) ? null : q[i]!));
  return {
    current: { from: iso(cur.fromMs), to: iso(cur.toMs), filters: cur.filters },
    reference: { from: iso(ref.fromMs), to: iso(ref.toMs), filters: ref.filters },
    fields: fields.map((f) => ({ field: f.field, kind: f.kind, test: snakeKeys(f.test), q_value: f.qValue, psi: snakeKeys(f.psi), sampled: f.sampled })),
  };
}
