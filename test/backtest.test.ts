// `inferlens rules backtest` against a data directory and through a running server: the same
// episodes either way, scored against a truth file; bad input listed with paths; no data, a busy
// server and the memory bound each answered clearly.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../src/analysis/index.ts';
import { loadRuleFiles, runBacktest } from '../src/alerting/index.ts';
import type { BacktestReport } from '../src/alerting/index.ts';
import { runBacktestCommand } from '../src/cli/backtest.ts';
import { loadConfig } from '../src/config/index.ts';
import { startServer } from '../src/main.ts';
import { typedReads } from '../src/query/index.ts';
import { createDuckDBStore } from '../src/store/index.ts';
import { BIN } from './serve-process.ts';

const run = promisify(execFile);

const T0 = Date.parse('2026-06-01T08:00:00Z');
const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();
const dir = mkdtempSync(join(tmpdir(), 'inferlens-backtest-'));
const data = join(dir, 'data');
const rules = join(dir, 'rules.yaml');
const truth = join(dir, 'truth.json');

beforeAll(async () => {
  // Two hours of one model on two versions: tenant t7 (a request every 20 s) fails half its
  // requests on v1 from minute 90 to 105; everything else fails 0.5 %.
  const store = await createDuckDBStore({ path: join(data, 'inferlens.duckdb') });
  await store.migrate();
  const rnd = mulberry32(5);
  const lines: string[] = [];
  let seq = 0;
  for (let ts = T0; ts < T0 + 120 * MIN; ts += 500) {
    const small = ts % 20_000 === 0;
    const bad = small && ts >= T0 + 90 * MIN && ts < T0 + 105 * MIN && rnd() < 0.5;
    lines.push(
      JSON.stringify({
        ts,
        request_id: `b${seq++}`,
        model: 'm',
        model_version: seq % 10 === 0 ? 'v2' : 'v1',
        tenant: small ? 't7' : 'acme',
        replica: `r${seq % 3}`,
        total_ms: 20 + rnd() * 10,
        status: bad || rnd() < 0.005 ? 'error' : 'ok',
      }),
    );
  }
  await store.appendEvents(lines);
  await store.close();
  writeFileSync(
    rules,
    `groups:
  - name: errors
    interval: 1m
    rules:
      - alert: ErrorsUp
        condition: { kind: rate_shift, signal: error, by: [model, model_version], localize: [tenant, replica] }
        severity: warning
`,
  );
  writeFileSync(
    truth,
    JSON.stringify([{ id: 't7-errors', kind: 'tenant_errors', slice: { model: 'm', tenant: 't7' }, start: iso(T0 + 90 * MIN), end: iso(T0 + 105 * MIN) }]),
  );
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const common = { from: iso(T0 + 60 * MIN), to: iso(T0 + 120 * MIN), rules: [rules], truth };

describe('rules backtest', () => {
  let local: BacktestReport;

  it('against a data directory: the tenant (3 requests a minute) is raised within four intervals, nothing else; --json prints the report last', async () => {
    const out: string[] = [];
    local = await runBacktestCommand({ ...common, data, json: true }, (l) => out.push(l), T0);
    expect(JSON.parse(out.at(-1)!)).toEqual(JSON.parse(JSON.stringify(local)));
    expect(out.join('\n')).toMatch(/score: 1\/1 incidents raised \(recall 100\.0 %\), top-1 slice 100\.0 %/);
    expect(local.episodes.map((e) => [e.alertname, e.labels])).toEqual([['ErrorsUp', { model: 'm', model_version: 'v1', tenant: 't7' }]]);
    expect(local.evaluations).toBe(61); // 08:00 + 60 … 120 min, every minute, both ends
    const s = local.score!;
    expect(s).toMatchObject({ incidents: 1, detected: 1, recall: 1, top1: 1, false_episodes: 0, precision: 1 });
    expect(s.median_delay_intervals!).toBeLessThanOrEqual(4);
    expect(local.rules[0]).toMatchObject({ alert: 'ErrorsUp', episodes: 1, errors: 0, coverage: { judged: 2, without_reference: 0 } });
  });

  it('through a running server: the same episodes and score', async () => {
    const config = loadConfig({ env: {}, flags: { server: { port: 0 }, storage: { dataDir: data }, alerting: { enabled: false }, log: { level: 'warn' } } });
    const server = await startServer(config, { ui: false, collectors: false, now: () => T0 + 121 * MIN });
    try {
      const remote = await runBacktestCommand({ ...common, url: server.url }, () => undefined, T0);
      expect(remote.episodes).toEqual(local.episodes);
      expect(remote.score).toEqual(local.score);

      // One at a time: of two at once, one runs and one is told to come back.
      const post = () =>
        fetch(`${server.url}/v1/rules/backtest`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ from: common.from, to: common.to, rules: [{ file: 'rules.yaml', text: readFileSync(rules, 'utf8') }] }),
        });
      const [a, b] = await Promise.all([post(), post()]);
      expect([a.status, b.status].sort()).toEqual([200, 429]);
      expect((a.status === 429 ? a : b).headers.get('retry-after')).toBe('10');

      // Bad input: every problem with its path.
      const bad = await fetch(`${server.url}/v1/rules/backtest`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          from: 'yesterday',
          to: common.to,
          rules: [{ file: 'x.yaml', text: 'groups:\n  - name: g\n    rules:\n      - alert: A\n        condition: { kind: rate_shift, signal: nope }\n' }],
        }),
      });
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { error: string }).error).toMatch(/from: expected an RFC 3339 timestamp/);
      const badRules = await fetch(`${server.url}/v1/rules/backtest`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          from: common.from,
          to: common.to,
          rules: [{ file: 'x.yaml', text: 'groups:\n  - name: g\n    rules:\n      - alert: A\n        condition: { kind: rate_shift, signal: nope }\n' }],
          truth: [{ id: 'i', slice: {}, start: 'x', end: common.to }],
        }),
      });
      expect(badRules.status).toBe(400);
      const msg = ((await badRules.json()) as { error: string }).error;
      expect(msg).toMatch(/x\.yaml:5: groups\.0\.rules\.0\.condition\.signal: /);
      expect(msg).toMatch(/severity/);
    } finally {
      await server.stop();
    }
  });

  it('the installed command: `inferlens rules backtest … --json` prints the report as its last line', async () => {
    const { stdout } = await run(process.execPath, [
      BIN,
      'rules',
      'backtest',
      '--data',
      data,
      '--from',
      common.from,
      '--to',
      common.to,
      '-r',
      rules,
      '--truth',
      truth,
      '--json',
    ]);
    const last = JSON.parse(stdout.trim().split('\n').at(-1)!) as BacktestReport;
    expect(last.episodes).toEqual(local.episodes);
    expect(last.score).toEqual(local.score);
    expect(stdout).toMatch(/^backtest 2026-06-01T09:00:00.000Z … 2026-06-01T10:00:00.000Z: 61 group evaluations in/);
    // Bad input: the exit code says so, and the message what to do.
    const bad = await run(process.execPath, [BIN, 'rules', 'backtest', '--data', join(dir, 'nowhere'), '--from', common.from]).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(bad).toMatchObject({ code: 2 });
    expect((bad as { stderr: string }).stderr).toMatch(/no inferlens data in/);
  });

  it('a range without data says so; a missing data directory says what to give', async () => {
    await expect(runBacktestCommand({ ...common, from: iso(T0 - 600 * MIN), to: iso(T0 - 300 * MIN), data }, () => undefined, T0)).rejects.toThrow(
      /no events and no resource samples between 2026-05-31T22:00:00.000Z and 2026-06-01T03:00:00.000Z: nothing to backtest/,
    );
    await expect(runBacktestCommand({ ...common, data: join(dir, 'nowhere') }, () => undefined, T0)).rejects.toThrow(
      /no inferlens data in .*nowhere .*give --data DIR or --url URL/,
    );
    await expect(runBacktestCommand({ ...common, truth: rules, data }, () => undefined, T0)).rejects.toThrow(/rules\.yaml: not JSON/);
  });

  it('reads ahead in chunks, and sees exactly what it would minute by minute', async () => {
    const store = await createDuckDBStore({ path: join(data, 'inferlens.duckdb') });
    try {
      const groups = loadRuleFiles([rules]).groups;
      // The spread checks' reads (10-second steps) counted apart from the series'.
      let spread = 0;
      const reads = typedReads(store);
      const counting = { ...reads, aggregate: (spec: Parameters<typeof reads.aggregate>[0]) => (spec.stepMs === 10_000 && spread++, reads.aggregate(spec)) };
      const range = { groups, reads: counting, fromMs: T0 + 60 * MIN, toMs: T0 + 120 * MIN };
      const ahead = await runBacktest(range);
      const spreadAhead = spread;
      const live = await runBacktest({ ...range, readAheadMs: 0 });
      const spreadLive = spread - spreadAhead;
      expect(ahead.episodes).toEqual(live.episodes);
      expect(ahead.episodes).toEqual(local.episodes);
      // Three series (the version, by tenant, by replica): minute by minute a query each per tick
      // and the warm-up's chunks (192 here); ahead, one per series per 30 minutes (21). The spread
      // checks of a slice decided at tick after tick: one read each live, held across ticks ahead.
      expect(live.stats.queries - spreadLive - (ahead.stats.queries - spreadAhead)).toBe(192 - 21);
      expect(spreadAhead).toBeLessThan(spreadLive / 2);
      expect(ahead.stats.queries).toBeLessThan(live.stats.queries / 4);
    } finally {
      await store.close();
    }
  });

  it('stops with a clear error past its memory bound', async () => {
    const store = await createDuckDBStore({ path: join(data, 'inferlens.duckdb') });
    try {
      const groups = loadRuleFiles([rules]).groups;
      await expect(runBacktest({ groups, reads: typedReads(store), fromMs: T0 + 60 * MIN, toMs: T0 + 70 * MIN, maxSeriesCells: 50 })).rejects.toThrow(
        /backtest stopped at 2026-06-01T09:00:00.000Z: the detectors would hold \d+ series cells, more than the bound of 50/,
      );
    } finally {
      await store.close();
    }
  });
});
