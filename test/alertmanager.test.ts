// The notifier against a real Alertmanager (Debian's prometheus-alertmanager) on loopback: alerts
// sent through inferlens are read back with GET /api/v2/alerts, and resolving them clears them.
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAlerting, createManualClock, parseRuleText } from '../src/alerting/index.ts';
import { createAlertmanagerNotifier } from '../src/notify/index.ts';
import type { TypedReads } from '../src/query/index.ts';
import type { QueryRow } from '../src/schema/index.ts';
import { startOwned, stopOwned } from './own-process.ts';

const BIN = '/usr/bin/prometheus-alertmanager';

// .ci/run installs the package (with its service kept from starting); a test installs nothing.
const skipReason = existsSync(BIN) ? undefined : `${BIN} is not installed (.ci/run installs prometheus-alertmanager)`;
if (skipReason) console.warn(`skipping the Alertmanager test: ${skipReason}`);

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

interface GettableAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt: string;
  generatorURL?: string;
  status: { state: string };
}

describe.skipIf(skipReason !== undefined)('Alertmanager API v2', () => {
  let am: ChildProcess | undefined;
  let url = '';
  let dir = '';
  let log = '';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'inferlens-am-'));
    const config = join(dir, 'alertmanager.yml');
    writeFileSync(config, "route:\n  receiver: 'null'\n  group_wait: 1s\nreceivers:\n  - name: 'null'\n");
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    am = startOwned(
      BIN,
      [`--web.listen-address=127.0.0.1:${port}`, '--cluster.listen-address=', `--storage.path=${join(dir, 'data')}`, `--config.file=${config}`],
      ['ignore', 'pipe', 'pipe'],
    );
    am.stdout?.on('data', (d: Buffer) => (log += d.toString()));
    am.stderr?.on('data', (d: Buffer) => (log += d.toString()));
    const deadline = Date.now() + 20_000;
    for (;;) {
      try {
        if ((await fetch(`${url}/-/ready`)).ok) break;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline || am.exitCode !== null) throw new Error(`Alertmanager did not become ready:\n${log.slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 30_000);

  afterAll(async () => {
    await stopOwned(am);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('receives firing alerts from the notifier and lists them; resolved ones leave the list', async () => {
    const { groups, problems } = parseRuleText(
      `groups:
  - name: g
    interval: 10s
    rules:
      - alert: SlowReplica
        condition: { kind: threshold, measure: p99(total_ms), window: 5m, by: [model, replica], op: '>', value: 500 }
        severity: critical
        labels: { signal: latency }
        annotations: { summary: 'P99 on {{ $labels.replica }} is {{ $value }} ms' }
`,
      'am.yaml',
    );
    expect(problems).toEqual([]);
    let rows: QueryRow[] = [
      { model: 'm1', replica: 'r1', 'p99(total_ms)': 900, n: 100 },
      { model: 'm1', replica: 'r2', 'p99(total_ms)': 700, n: 100 },
    ];
    const reads = { aggregate: async () => rows } as unknown as TypedReads;
    // Near wall-clock time (Alertmanager judges endsAt against its own clock), started 30 s back so
    // that after the two 10 s steps below the resolved alert's endsAt is in Alertmanager's past.
    const clock = createManualClock(Date.now() - 30_000);
    const notifier = createAlertmanagerNotifier({ url, initialBackoffMs: 50 });
    const alerting = createAlerting({ groups, reads, clock, notifiers: [notifier], externalUrl: 'http://127.0.0.1:7070' });
    alerting.start();
    clock.advance(10_000);
    await alerting.settled();
    await notifier.idle();
    expect(notifier.stats()).toMatchObject({ sentTotal: 1, failedTotal: 0 });

    const listed = (await (await fetch(`${url}/api/v2/alerts`)).json()) as GettableAlert[];
    const byReplica = Object.fromEntries(listed.map((a) => [a.labels.replica, a]));
    expect(Object.keys(byReplica).sort()).toEqual(['r1', 'r2']);
    expect(byReplica.r1).toMatchObject({
      labels: { alertname: 'SlowReplica', severity: 'critical', signal: 'latency', model: 'm1', replica: 'r1' },
      annotations: { summary: 'P99 on r1 is 900 ms' },
      generatorURL: 'http://127.0.0.1:7070/v1/alerts?alertname=SlowReplica',
      status: { state: 'active' },
    });
    expect(Date.parse(byReplica.r1!.endsAt)).toBeGreaterThan(Date.now());

    // r2 recovers: the next evaluation sends it as resolved (endsAt = now) and Alertmanager drops it.
    rows = [rows[0]!];
    clock.advance(10_000);
    await alerting.settled();
    await notifier.idle();
    const after = (await (await fetch(`${url}/api/v2/alerts?active=true`)).json()) as GettableAlert[];
    expect(after.filter((a) => a.status.state === 'active').map((a) => a.labels.replica)).toEqual(['r1']);
    await alerting.stop(1000);
  });
});
