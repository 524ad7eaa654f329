// "Which signal was missing" on the demo's scenario, against the store: the demo's own history
// writer puts two hours of its traffic into a real DuckDB file with the slow-replica incident of the
// live cycle (replica-1 executes 3× slower from T0 + 3 min to T0 + 8 min); the server's alerting
// (the default pack and the demo's rules) is evaluated on the server's clock every 30 s through it,
// so the incident and its alerts land in the incident log; then the review of the hour reads the log
// back and names, for that incident, the signals that moved first, the rule that fired first, and
// what the backtest of the half hour before would have fired.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_RULE_FILE, demoTargets, writeDemoHistory } from '../demo/main.ts';
import { fullSchedule } from '../demo/scenario/index.ts';
import { loadConfig } from '../src/config/index.ts';
import { startServer } from '../src/main.ts';
import type { InferlensServer } from '../src/main.ts';
import type { Report } from '../src/reports/index.ts';

const MIN = 60_000;
const T0 = Date.parse('2026-11-29T14:00:00Z');
const NODE = 'demo-node';
// Ingest checks timestamps against the server's clock: it stands past the history while it is written.
let now = T0 + 15 * MIN;
let server: InferlensServer;
let dir: string;
let report: Report;
let markdown: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'inferlens-missing-signal-'));
  server = await startServer(
    loadConfig({
      env: {},
      flags: { server: { port: 0 }, storage: { dataDir: join(dir, 'data') }, alerting: { ruleFiles: [DEMO_RULE_FILE] }, log: { level: 'silent' } },
    }),
    { logger: pino({ level: 'silent' }), now: () => now, collectors: false, ui: false },
  );
  const slow = fullSchedule(demoTargets(NODE)).find((s) => s.kind === 'slow_replica')!;
  const incidents = [{ spec: slow, startMs: T0 + slow.startOffsetMs, endMs: T0 + slow.startOffsetMs + slow.durationMs }];
  const r = await writeDemoHistory({ target: { url: server.url }, fromMs: T0 - 2 * 60 * MIN, toMs: T0 + 12 * MIN, incidents, node: NODE, seed: 7 });
  expect(r.rejected, r.firstProblem).toBe(0);
  for (let t = T0 - 5 * MIN; t <= T0 + 12 * MIN; t += 30_000) {
    now = t;
    await server.alerting!.evaluateAt(t, { onlyDue: true });
  }
  now = T0 + 15 * MIN;
  const res = await fetch(`${server.url}/v1/reports?period=1h`);
  expect(res.status).toBe(200);
  report = ((await res.json()) as { data: Report }).data;
  markdown = await (await fetch(`${server.url}/v1/reports?period=1h&format=md`)).text();
  if (process.env.REVIEW_PRINT) console.log(markdown);
}, 300_000);

afterAll(async () => {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("which signal was missing, on the demo's slow replica", () => {
  it("names the first signal (replica-1's execution time, as the incident began) and the first rule on the replica after it", () => {
    expect(report.incidents.available).toBe(true);
    const review = report.incidents.reviewed.find((i) => i.first_rule?.labels['replica'] === 'replica-1');
    expect(review, JSON.stringify(report.incidents.reviewed.map((i) => [i.first_rule, i.first_signal]))).toBeDefined();
    expect(review!.slice).toMatchObject({ model: 'spam-filter', replica: 'replica-1' });
    // Both rules of the pack that judge a replica's execution name it: LatencyTailUp (against its
    // version's past, localised to the replica) and ReplicaSlow (against its peers); which fires
    // first turns on the demo's measured sub-millisecond timings.
    expect(['LatencyTailUp', 'ReplicaSlow']).toContain(review!.first_rule!.alertname);
    // The replica slows at T0 + 3 min: its execution time (and with it the total) moves that minute or the next.
    const first = review!.first_signal!;
    expect(['p95(exec_ms)', 'p95(total_ms)']).toContain(first.signal);
    expect(Date.parse(first.moved_at)).toBeGreaterThanOrEqual(T0 + 3 * MIN);
    expect(Date.parse(first.moved_at)).toBeLessThanOrEqual(T0 + 4 * MIN);
    const exec = review!.signals.find((s) => s.signal === 'p95(exec_ms)')!;
    expect(exec.judged).toBe(true);
    expect(exec.value! / exec.baseline!).toBeGreaterThan(2);
    // The rule fired after the signal moved, by the seconds between the two times.
    const fired = Date.parse(review!.first_rule!.fired_at);
    expect(fired).toBeGreaterThan(Date.parse(first.moved_at));
    expect(review!.first_rule!.after_first_signal_s).toBe((fired - Date.parse(first.moved_at)) / 1000);
    // A signal of another place (queue, errors) did not move.
    expect(review!.signals.find((s) => s.signal === 'error_rate')?.moved_at ?? null).toBeNull();
  });

  it("replays the half hour before the firing: the catalogue's exec_ms detector on the slice, and whether any rule fired earlier", () => {
    const review = report.incidents.reviewed.find((i) => i.first_rule?.labels['replica'] === 'replica-1')!;
    expect(review.backtest.ran, review.backtest.note ?? '').toBe(true);
    expect(Date.parse(review.backtest.to!)).toBe(Date.parse(review.first_rule!.fired_at));
    const s = review.backtest.suggested!;
    expect(s.rule_yaml).toContain('kind: latency_shift');
    expect(s.rule_yaml).toMatch(/field: (exec|total)_ms/);
    // Without a `for`, the detector fires before the pack's first rule (which waits 2 minutes), and after the signal moved.
    expect(s.fired_at).not.toBeNull();
    expect(s.lead_s!).toBeGreaterThan(0);
    expect(s.after_first_signal_s!).toBeGreaterThanOrEqual(0);
    // Whatever fired earlier in the pack fired on a place consistent with the slice, before the first rule.
    const e = review.backtest.earlier_in_pack;
    if (e) {
      expect(e.lead_s).toBeGreaterThan(0);
      expect(e.labels['replica'] ?? 'replica-1').toBe('replica-1');
    }
  });

  it('says it in the Markdown, with the times', () => {
    expect(markdown).toContain('## Which signal was missing');
    const review = report.incidents.reviewed.find((i) => i.first_rule?.labels['replica'] === 'replica-1')!;
    expect(markdown).toContain(`first signal \`${review.first_signal!.signal}\` moved at ${review.first_signal!.moved_at.slice(11, 16)}`);
    expect(markdown).toContain(`first rule \`${review.first_rule!.alertname}\` fired at ${review.first_rule!.fired_at.slice(11, 16)}`);
  });
});
