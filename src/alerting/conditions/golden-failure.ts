/**
 * golden_failure: pass rate of golden-sample probes per slice. A probe is an event with
 * `probe: true`; it passed when `attributes[pass_attribute]` is true/1/pass/yes and failed when it
 * is false/0/fail/no. A probe without the attribute counts as failed when its status is not ok
 * and is not judged otherwise (a failed call is a failed probe; with `fdr` and a `reference`, its
 * answers are also judged apart, below). Worked: 7 of 10 probes passed → 0.7 < min_pass_rate 0.9 fires.
 */
import { benjaminiHochberg, betaBinomialStrength, evidencePValue, rateShift, wilsonUpper } from '../../analysis/index.ts';
import type { RateShift } from '../../analysis/index.ts';
import type { ConditionContext, Observation } from './context.ts';
import { CHANGE_POINTS } from './shift.ts';
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
  marks: { ageMs: number; passed: boolean; errored: boolean }[];
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
    s.marks.push({ ageMs, passed, errored: e.status != null && e.status !== 'ok' });
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
 * With a `reference`, the slice's answers say what is usual for it too: the probes whose calls were
 * answered (status ok) before the current window, when the Wilson upper bound of their failure
 * rate is below 1 − min_pass_rate, and the current window's answers are judged against that bound
 * (still for a rise of 10 points), so a version whose answers always pass is raised when a fifth of
 * them fail, not only when a third do. Failed calls stay in the first test only: they fail with the
 * version's errors (dependencies, overload, blips that hit several probes at once), which the
 * error rules judge on all of its traffic; a version whose every call fails is still raised
 * against what is tolerated. Two tests per slice then, Bonferroni over them. Worked: 1 of 150
 * reference answers failed (Wilson upper bound 2.93 %); 8 of the last 30 failing → against 2.93 %
 * with alternatives from 10.67 % up, ln LR = 9.909, p = 2 · 60 · e^−9.909 = 0.0060: raised, where
 * against the fixed 10 % it is ln LR 1.94.
 *
 * A slice's own past is a few probes (two hours at one a minute: its failure rate known to a few
 * points), so it is shrunk toward every other slice's reference answers (their failure rate
 * without its own) by as many pseudo-probes as the slices' rates say they share
 * (`betaBinomialStrength`, the method of moments: all of them when the slices differ no more than
 * their counts do; few when their rates differ): golden sets are fixed inputs, and a version whose
 * answers always failed more keeps its own rate. Worked: 1 of 60 own (bound 7.13 %), another
 * version's 1 of 150 (the two as close as their counts: pooled) → 2 of 210, bound 2.84 %; 8 of
 * the last 30 → ln LR 10.162 against 3.82 unshrunk.
 */
function sequential(c: GoldenFailureCondition, fdr: number, slices: Slice[]): Observation[] {
  const windowMs = durationMs(c.window);
  const lengths = MINUTES.filter((m) => m * 60_000 <= windowMs);
  const tolerated = 1 - c.min_pass_rate;
  const options = { tolerance: 1, minRatio: 1, minDelta: 0.1, minBad: Math.min(c.min_count, 3) };
  const windows = (marks: Slice['marks']) =>
    lengths.map((m) => {
      const inside = marks.filter((x) => x.ageMs <= m * 60_000);
      return { n: inside.length, k: inside.filter((x) => !x.passed).length };
    });
  // The answered probes: what a slice's own past says about its answers.
  const answered = slices.map((s) => s.marks.filter((x) => !x.errored));
  const refs = answered.map((marks) => {
    const before = marks.filter((x) => x.ageMs > windowMs);
    return { n: before.length, k: before.filter((x) => !x.passed).length };
  });
  const fleetN = refs.reduce((a, r) => a + r.n, 0);
  const fleetFailed = refs.reduce((a, r) => a + r.k, 0);
  const strength = betaBinomialStrength(refs);
  const tested: { labels: Labels; rate: number; pValue: number }[] = [];
  slices.forEach((s, i) => {
    // Every probe, failed calls included, against what is tolerated.
    const tests = [
      rateShift(
        windows(s.marks).map((w) => ({ ...w, pRef: tolerated, nRef: Infinity })),
        options,
      ),
    ];
    // The answers against what is usual for this slice: its own reference shrunk toward every
    // other slice's by the strength the slices' rates share, its Wilson upper bound below what is tolerated.
    const ref = refs[i]!;
    if (c.reference !== undefined && ref.n >= MIN_REFERENCE) {
      const pseudo = fleetN > ref.n && strength > 0 ? Math.min(strength, fleetN - ref.n) : 0;
      const nRef = ref.n + pseudo;
      const pOwn = (ref.k + (pseudo > 0 ? (pseudo * (fleetFailed - ref.k)) / (fleetN - ref.n) : 0)) / nRef;
      if (wilsonUpper(pOwn, nRef, 1.645) < tolerated)
        tests.push(
          rateShift(
            windows(answered[i]!).map((w) => ({ ...w, pRef: pOwn, nRef })),
            options,
          ),
        );
    }
    let best: RateShift | null = null;
    for (const e of tests) if (e && e.n >= c.min_count && (!best || e.logLR > best.logLR)) best = e;
    // Bonferroni over the slice's tests.
    if (best) tested.push({ labels: s.labels, rate: 1 - best.rate, pValue: Math.min(1, tests.length * evidencePValue(best.logLR, CHANGE_POINTS)) });
  });
  const q = benjaminiHochberg(tested.map((t) => t.pValue));
  return tested.filter((_, i) => (q[i] ?? 1) < fdr).map((t) => ({ labels: t.labels, value: t.rate }));
}
