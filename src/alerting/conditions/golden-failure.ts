/**
 * golden_failure: pass rate of golden-sample probes per slice. A probe is an event with
 * `probe: true`; it passed when `attributes[pass_attribute]` is true/1/pass/yes and failed when it
 * is false/0/fail/no. A probe without the attribute counts as failed when its status is not ok
 * and is not judged otherwise. Worked: 7 of 10 probes passed → 0.7 < min_pass_rate 0.9 fires.
 */
import { benjaminiHochberg, evidencePValue, rateShift, wilsonUpper } from '../../analysis/index.ts';
import type { ConditionContext, Observation } from './context.ts';
import { CHANGE_POINTS, SHRINK_REQUESTS } from './shift.ts';
import { sliceKey } from './context.ts';
import { durationMs } from '../rule-schema.ts';
import type { GoldenFailureCondition } from '../rule-schema.ts';
import type { Labels } from '../labels.ts';

const PASS = new Set(['true', '1', 'pass', 'passed', 'yes', 'ok']);
const FAIL = new Set(['false', '0', 'fail', 'failed', 'no']);

/** Minutes of the windows the sequential form tries (up to the rule's window). */
const MINUTES = [5, 10, 15, 20, 30, 45, 60, 90, 120];

interface Slice {
  labels: Labels;
  /** Probes with a verdict in the current window, and how many passed. */
  n: number;
  pass: number;
  /** Every probe read, the reference window's included, by age. */
  marks: { ageMs: number; passed: boolean }[];
}

/** Fewest reference probes for a slice's own failure rate to be a reference (half an hour of probes). */
const MIN_REFERENCE = 30;

export async function evalGoldenFailure(c: GoldenFailureCondition, ctx: ConditionContext): Promise<Observation[]> {
  const windowMs = durationMs(c.window);
  const spanMs = windowMs + (c.fdr !== undefined && c.reference ? durationMs(c.reference.window) : 0);
  // Probes only, so the row bound is spent on them and not on user traffic.
  const rows = await ctx.series.rows(
    { filters: { ...c.filters, probe: 'true' }, includeProbes: true, columns: ['attributes', 'status', ...c.by] },
    ctx.nowMs,
    spanMs,
    c.max_rows,
  );
  const slices = new Map<string, Slice>();
  for (const e of rows) {
    const mark = e.attributes?.[c.pass_attribute]?.toLowerCase();
    const passed =
      mark !== undefined && PASS.has(mark) ? true : mark !== undefined && FAIL.has(mark) ? false : e.status != null && e.status !== 'ok' ? false : undefined;
    if (passed === undefined) continue;
    const labels: Labels = {};
    for (const d of c.by) {
      const v = (e as Record<string, unknown>)[d];
      if (v !== null && v !== undefined) labels[d] = String(v);
    }
    const key = sliceKey(labels, c.by);
    let s = slices.get(key);
    if (!s) slices.set(key, (s = { labels, n: 0, pass: 0, marks: [] }));
    const ageMs = ctx.nowMs - Date.parse(e.ts as string);
    s.marks.push({ ageMs, passed });
    if (ageMs > windowMs) continue;
    s.n++;
    if (passed) s.pass++;
  }
  if (c.fdr !== undefined) return sequential(c, c.fdr, [...slices.values()]);
  const out: Observation[] = [];
  for (const s of slices.values()) {
    if (s.n === 0) continue;
    const rate = s.pass / s.n;
    if (s.n >= c.min_count && rate < c.min_pass_rate) out.push({ labels: s.labels, value: rate });
  }
  return out;
}

/**
 * The sequential form: over windows of 5 … `window` minutes ending now, the evidence that the
 * failure rate is above 1 − min_pass_rate by at least 10 points (analysis/sequential.ts, the
 * tolerance exact: golden samples are expected to pass), Benjamini–Hochberg across slices. The
 * p-value is union-bounded over an hour of change points, as the other sequential detectors' are
 * (`CHANGE_POINTS`): probes are the prober's own fixed inputs, so their failures carry no tenant
 * mix or burst to guard against, and at one probe a minute each nat of evidence is about two
 * minutes of a failing version. Worked: min_pass_rate 0.9; 6 of the last 12 probes failed →
 * against "at most 10 % fail" the mixture over 20 %, 40 %, 80 %, 95 % gives ln LR ≈ 4.7, short of
 * the ~8.7 an hour of change points asks at q < 0.01; 12 of 20 failing (60 %) → ≈ 12.5: raised. A
 * probe or two failing in fifteen is not a failing version.
 *
 * With a `reference`, the slice's own probes before the current window say what is usual for it:
 * when the Wilson upper bound of their failure rate is below 1 − min_pass_rate, the windows are
 * judged against that bound instead (still for a rise of 10 points), so a version whose probes
 * always pass is raised when a fifth of them fail, not only when a third do; a version that always
 * failed more than is tolerated is judged against the tolerated rate as before. One test per slice,
 * against the lower of the two. Worked: 1 of 150 reference probes failed (Wilson upper bound
 * 2.93 %); 8 of the last 30 failing → against 2.93 % with alternatives from 10.67 % up,
 * ln LR = 9.909, p = 60 · e^−9.909 = 0.0030: raised, where against the fixed 10 % it is ln LR 1.94.
 *
 * A slice's own past is a few probes (two hours at one a minute: its failure rate known to a few
 * points), so it is shrunk toward every other slice's reference probes, as a tenant's thin past
 * is toward its version's (`SHRINK_REQUESTS` probes at their failure rate): golden sets are fixed
 * inputs that pass, and a version whose own always failed more keeps its own rate (and the
 * 10-point floor above it). Worked: 1 of 60 own (bound 7.13 %), the others 0 of 150 → 1 of 160,
 * bound 2.75 %; 8 of the last 30 → ln LR 10.374 against 3.82 unshrunk.
 */
function sequential(c: GoldenFailureCondition, fdr: number, slices: Slice[]): Observation[] {
  const windowMs = durationMs(c.window);
  const lengths = MINUTES.filter((m) => m * 60_000 <= windowMs);
  const tolerated = 1 - c.min_pass_rate;
  // Every slice's reference probes together: what a slice's own few are shrunk toward.
  let fleetN = 0;
  let fleetFailed = 0;
  const refs = slices.map((s) => {
    const before = s.marks.filter((x) => x.ageMs > windowMs);
    const failed = before.filter((x) => !x.passed).length;
    fleetN += before.length;
    fleetFailed += failed;
    return { n: before.length, failed };
  });
  const tested: { labels: Labels; rate: number; pValue: number }[] = [];
  slices.forEach((s, i) => {
    const current = lengths.map((m) => {
      const inside = s.marks.filter((x) => x.ageMs <= m * 60_000);
      return { n: inside.length, k: inside.filter((x) => !x.passed).length };
    });
    // The null: the failure rate is what is usual for this slice (the Wilson upper bound of its
    // reference, shrunk toward every slice's) or what is tolerated (1 − min_pass_rate), whichever is lower.
    const ref = refs[i]!;
    const nRef = ref.n >= MIN_REFERENCE && fleetN > ref.n ? ref.n + SHRINK_REQUESTS : ref.n;
    const pOwn =
      nRef === ref.n ? (ref.n > 0 ? ref.failed / ref.n : NaN) : (ref.failed + (SHRINK_REQUESTS * (fleetFailed - ref.failed)) / (fleetN - ref.n)) / nRef;
    const own = c.reference !== undefined && ref.n >= MIN_REFERENCE && wilsonUpper(pOwn, nRef, 1.645) < tolerated;
    const e = rateShift(
      current.map((w) => ({ ...w, ...(own ? { pRef: pOwn, nRef } : { pRef: tolerated, nRef: Infinity }) })),
      { tolerance: 1, minRatio: 1, minDelta: 0.1, minBad: Math.min(c.min_count, 3) },
    );
    if (e && e.n >= c.min_count) tested.push({ labels: s.labels, rate: 1 - e.rate, pValue: evidencePValue(e.logLR, CHANGE_POINTS) });
  });
  const q = benjaminiHochberg(tested.map((t) => t.pValue));
  return tested.filter((_, i) => (q[i] ?? 1) < fdr).map((t) => ({ labels: t.labels, value: t.rate }));
}
