/**
 * `inferlens rules check <files…>` and `inferlens rules test <test.yaml>` as functions.
 *
 * A rule test file, like `promtool test rules`:
 *
 *   rule_files: [../../../rules/default.yaml]   # relative to the test file
 *   start: 2025-01-01T00:00:00Z                  # time 0 (default)
 *   evaluation_interval: 30s                     # the interval of groups that give none; each group runs on its own interval
 *   evaluate_from: 60m                           # optional: first evaluation (skips quiet history)
 *   input_events:                                # generated: one event every `every` in [from, to)
 *     - { every: 1s, from: 0m, to: 30m, event: { model: m1, replica: r1, status: ok, total_ms: 80 } }
 *     - { file: events.ndjson }                  # or NDJSON rows with absolute ts
 *   input_resources:
 *     - { every: 15s, from: 0m, to: 30m, sample: { node: n1, gpu: '0', metric: gpu_memory_used_bytes }, value: 7.0e10, step_increase: 0 }
 *   alert_rule_test:
 *     - eval_time: 10m
 *       alertname: HighP99Latency
 *       exp_alerts:                              # the firing alerts of that name (empty list: none)
 *         - exp_labels: { model: m1, replica: r1, severity: warning, signal: latency }
 *           exp_annotations: { summary: ... }    # compared exactly when given
 *
 * Fixtures load into an in-memory DuckDB; evaluation uses a manual clock.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { createAlerting, createManualClock, formatProblem, loadRuleFiles } from '../alerting/index.ts';
import type { AlertView } from '../alerting/index.ts';
import { typedReads } from '../query/index.ts';
import { ResourceSampleSchema, checkEvent, parseDurationMs, zodIssues } from '../schema/index.ts';
import type { ResourceSample } from '../schema/index.ts';
import { createDuckDBStore } from '../store/index.ts';

export interface RulesCheckResult {
  ok: boolean;
  /** `file:line: path: message`, one per problem. */
  problems: string[];
  groups: number;
  rules: number;
}

/** Validates rule files; lists every problem. */
export function rulesCheck(files: readonly string[]): RulesCheckResult {
  const r = loadRuleFiles(files);
  return {
    ok: r.problems.length === 0,
    problems: r.problems.map(formatProblem),
    groups: r.groups.length,
    rules: r.groups.reduce((a, g) => a + g.rules.length, 0),
  };
}

const duration = z.string().refine((s) => parseDurationMs(s) !== undefined, { error: 'expected a duration such as 30s, 5m, 1h' });
const Generated = z.object({ every: duration, from: duration.default('0s'), to: duration }).strict();
const TestFileSchema = z
  .object({
    rule_files: z.array(z.string()).min(1),
    start: z
      .string()
      .refine((s) => Number.isFinite(Date.parse(s)), { error: 'expected an RFC 3339 timestamp' })
      .default('2025-01-01T00:00:00Z'),
    evaluation_interval: duration.default('30s'),
    /** First evaluation (default 0): skip quiet history; start before any alert's `for` must begin. */
    evaluate_from: duration.default('0s'),
    input_events: z
      .array(z.union([Generated.extend({ event: z.record(z.string(), z.unknown()) }).strict(), z.object({ file: z.string() }).strict()]))
      .default([]),
    input_resources: z
      .array(
        Generated.extend({
          sample: z.record(z.string(), z.unknown()),
          value: z.number(),
          /** Added per step (counters, memory creep). */
          step_increase: z.number().default(0),
        }).strict(),
      )
      .default([]),
    alert_rule_test: z
      .array(
        z
          .object({
            eval_time: duration,
            alertname: z.string().min(1),
            exp_alerts: z
              .array(
                z.object({ exp_labels: z.record(z.string(), z.string()).default({}), exp_annotations: z.record(z.string(), z.string()).optional() }).strict(),
              )
              .default([]),
          })
          .strict(),
      )
      .min(1),
  })
  .strict();

export interface RuleTestCase {
  evalTime: string;
  alertname: string;
  ok: boolean;
  /** Expected vs got, when they differ. */
  diff?: string;
}

export interface RulesTestResult {
  ok: boolean;
  /** Problems with the test file, its fixtures or its rule files (no cases ran). */
  problems: string[];
  cases: RuleTestCase[];
}

type Got = { labels: Record<string, string>; annotations: Record<string, string> };

function canonical(alerts: Got[], withAnnotations: boolean[]): string[] {
  return alerts.map((a, i) => JSON.stringify({ labels: sortKeys(a.labels), ...(withAnnotations[i] ? { annotations: sortKeys(a.annotations) } : {}) })).sort();
}
const sortKeys = (o: Record<string, string>) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));

function compareCase(exp: { exp_labels: Record<string, string>; exp_annotations?: Record<string, string> }[], got: AlertView[]): string | undefined {
  const wantAnn = exp.some((e) => e.exp_annotations !== undefined);
  const gotRows: Got[] = got.map((a) => {
    const { alertname: _drop, ...labels } = a.labels;
    return { labels, annotations: a.annotations };
  });
  const expRows: Got[] = exp.map((e) => ({ labels: e.exp_labels, annotations: e.exp_annotations ?? {} }));
  const want = canonical(
    expRows,
    expRows.map(() => wantAnn),
  );
  const have = canonical(
    gotRows,
    gotRows.map(() => wantAnn),
  );
  if (JSON.stringify(want) === JSON.stringify(have)) return undefined;
  const lines = [...want.filter((w) => !have.includes(w)).map((w) => `  - exp ${w}`), ...have.filter((h) => !want.includes(h)).map((h) => `  + got ${h}`)];
  return lines.join('\n');
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/** Runs a promtool-style rule test file. */
export async function rulesTest(testFile: string): Promise<RulesTestResult> {
  const problems: string[] = [];
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(testFile, 'utf8'));
  } catch (e) {
    return { ok: false, problems: [`${testFile}: ${(e as Error).message}`], cases: [] };
  }
  if (typeof raw === 'object' && raw !== null && 'groups' in raw && !('alert_rule_test' in raw))
    return {
      ok: false,
      problems: [
        `${testFile}: this is a rule file; \`rules test\` takes a test file (rule_files, input_events, alert_rule_test: see \`inferlens rules test --help\`). To validate a rule file, run \`inferlens rules check ${testFile}\`.`,
      ],
      cases: [],
    };
  const parsed = TestFileSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, problems: zodIssues(parsed.error).map((i) => `${testFile}: ${i.path}: ${i.message}`), cases: [] };
  const t = parsed.data;
  const base = dirname(resolve(testFile));
  const loaded = loadRuleFiles(t.rule_files.map((f) => resolve(base, f)));
  if (loaded.problems.length > 0) return { ok: false, problems: loaded.problems.map(formatProblem), cases: [] };

  const startMs = Date.parse(t.start);
  const at = (d: string) => startMs + parseDurationMs(d)!;
  const lines: string[] = [];
  const farFutureMs = startMs + 400 * 86_400_000;
  const addEvent = (row: unknown, where: string) => {
    const r = checkEvent(row, farFutureMs);
    if (!r.event) problems.push(`${where}: ${r.issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`);
    else lines.push(JSON.stringify({ ...r.event, ts: typeof r.event.ts === 'number' ? r.event.ts : Date.parse(r.event.ts) }));
  };
  t.input_events.forEach((g, gi) => {
    if ('file' in g) {
      const file = resolve(base, g.file);
      try {
        readFileSync(file, 'utf8')
          .split('\n')
          .forEach((l, li) => {
            if (l.trim()) addEvent(JSON.parse(l) as unknown, `${file}:${li + 1}`);
          });
      } catch (e) {
        problems.push(`${file}: ${(e as Error).message}`);
      }
      return;
    }
    const every = parseDurationMs(g.every)!;
    for (let ts = at(g.from); ts < at(g.to); ts += every) addEvent({ ...g.event, ts }, `input_events.${gi}`);
  });
  const samples: ResourceSample[] = [];
  t.input_resources.forEach((g, gi) => {
    const every = parseDurationMs(g.every)!;
    let k = 0;
    for (let ts = at(g.from); ts < at(g.to); ts += every, k++) {
      const s = ResourceSampleSchema.safeParse({ ...g.sample, ts, value: g.value + k * g.step_increase });
      if (!s.success) {
        problems.push(
          `input_resources.${gi}: ${zodIssues(s.error)
            .map((i) => `${i.path}: ${i.message}`)
            .join('; ')}`,
        );
        break;
      }
      samples.push(s.data);
    }
  });
  if (problems.length > 0) return { ok: false, problems, cases: [] };

  const store = await createDuckDBStore({ path: ':memory:' });
  try {
    await store.migrate();
    for (let i = 0; i < lines.length; i += 50_000) await store.appendEvents(lines.slice(i, i + 50_000));
    if (samples.length > 0) await store.appendResources(samples);
    const clock = createManualClock(startMs);
    const stepMs = parseDurationMs(t.evaluation_interval)!;
    // Each group on its own interval, as the server runs it; evaluation_interval is the interval of
    // the groups that give none (promtool's rule).
    const groups = loaded.groups.map((g) => (g.defaultInterval ? { ...g, intervalMs: stepMs } : g));
    const alerting = createAlerting({ groups, reads: typedReads(store), clock });
    const tickMs = [stepMs, ...groups.map((g) => g.intervalMs)].reduce(gcd);
    const cases = [...t.alert_rule_test].sort((a, b) => at(a.eval_time) - at(b.eval_time));
    const cutoffs = [...new Set(cases.map((c) => at(c.eval_time)))];
    const lastMs = Math.max(...cutoffs);
    const ticks = new Set<number>(cutoffs);
    for (let ts = Math.ceil(at(t.evaluate_from) / tickMs) * tickMs; ts <= lastMs; ts += tickMs) ticks.add(ts);
    const results: RuleTestCase[] = [];
    for (const ts of [...ticks].sort((a, b) => a - b)) {
      clock.advance(ts - clock.now());
      await alerting.evaluateAt(ts, { onlyDue: true });
      for (const c of cases.filter((x) => at(x.eval_time) === ts)) {
        const got = alerting.alerts().filter((a) => a.alertname === c.alertname && a.state === 'firing');
        const diff = compareCase(c.exp_alerts, got);
        results.push({ evalTime: c.eval_time, alertname: c.alertname, ok: diff === undefined, ...(diff !== undefined && { diff }) });
      }
    }
    await alerting.stop(100);
    return { ok: results.every((r) => r.ok), problems: [], cases: results };
  } finally {
    await store.close();
  }
}

/** Prints a rules test result the way promtool does; returns the exit code. */
export function printRulesTest(file: string, r: RulesTestResult, out: (line: string) => void): number {
  for (const p of r.problems) out(`  FAILED: ${p}`);
  for (const c of r.cases) {
    if (c.ok) continue;
    out(`  FAILED: alertname: ${c.alertname}, time: ${c.evalTime}`);
    out(c.diff ?? '');
  }
  out(`${file}: ${r.ok ? 'SUCCESS' : 'FAILED'} (${r.cases.filter((c) => c.ok).length}/${r.cases.length} cases passed)`);
  return r.ok ? 0 : 1;
}

/** Prints a rules check result; returns the exit code. */
export function printRulesCheck(r: RulesCheckResult, out: (line: string) => void): number {
  for (const p of r.problems) out(`  ${p}`);
  out(r.ok ? `SUCCESS: ${r.groups} groups, ${r.rules} rules` : `FAILED: ${r.problems.length} problem${r.problems.length === 1 ? '' : 's'}`);
  return r.ok ? 0 : 1;
}
