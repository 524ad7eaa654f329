// Acknowledging an incident (`POST /v1/incidents/:id/ack`): written to the incident log, so it is
// there after a restart; once only; and counted in the review's alerting health as the time from
// the incident's first firing to it. The server's clock is set by hand.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IncidentHistory } from '../src/alerting/index.ts';
import type { InferlensServer } from '../src/main.ts';
import type { Report } from '../src/reports/index.ts';
import { MIN, NOW, startReportServer } from './report-fixture.ts';

let server: InferlensServer;
let dir: string;
let now = NOW;
const window = `from=${encodeURIComponent(new Date(NOW - 60 * MIN).toISOString())}&to=${encodeURIComponent(new Date(NOW + 60 * MIN).toISOString())}`;

async function history(): Promise<IncidentHistory[]> {
  return ((await (await fetch(`${server.url}/v1/incidents?${window}`)).json()) as { data: { incidents: IncidentHistory[] } }).data.incidents;
}
const ack = (id: string, body: unknown = {}) =>
  fetch(`${server.url}/v1/incidents/${encodeURIComponent(id)}/ack`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'inferlens-incident-ack-'));
  // VersionErrors fires at NOW (12:00), opening one incident.
  server = await startReportServer(dir, { now: () => now });
}, 60_000);

afterAll(async () => {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('acknowledging an incident', () => {
  it('records who and when, once, and says so in the incident log', async () => {
    const [inc] = await history();
    expect(inc!.acknowledged_at).toBeNull();
    now = NOW + 7 * MIN;
    const res = await ack(inc!.id, { comment: 'looking at v2' });
    expect(res.status).toBe(200);
    const acked = ((await res.json()) as { data: IncidentHistory }).data;
    expect(acked.acknowledged_at).toBe('2026-11-30T12:07:00.000Z');
    expect(acked.acknowledged_by).toBe('anonymous');
    expect(acked.timeline.find((t) => t.kind === 'acknowledged')).toMatchObject({
      ts: '2026-11-30T12:07:00.000Z',
      detail: { by: 'anonymous', comment: 'looking at v2' },
    });
    // A second acknowledgement changes nothing.
    now = NOW + 9 * MIN;
    const again = ((await (await ack(inc!.id)).json()) as { data: IncidentHistory }).data;
    expect(again.acknowledged_at).toBe('2026-11-30T12:07:00.000Z');
    expect(again.timeline.filter((t) => t.kind === 'acknowledged')).toHaveLength(1);
  });

  it('refuses an unknown incident (404) and an acknowledger in the body (400)', async () => {
    expect((await ack('inc-none')).status).toBe(404);
    const [inc] = await history();
    const res = await ack(inc!.id, { by: 'someone-else' });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('by');
  });

  it('counts in the review: 1 of 1 incidents acknowledged, 7 minutes after VersionErrors fired', async () => {
    now = NOW + 10 * MIN;
    const r = ((await (await fetch(`${server.url}/v1/reports?period=1h`)).json()) as { data: Report }).data;
    expect(r.alerting).toMatchObject({ incidents: 1, acknowledged_incidents: 1, median_minutes_to_acknowledge: 7 });
    expect(r.alerting.noisiest).toEqual([{ alertname: 'VersionErrors', episodes: 1, with_action: 0, acknowledged: 1, median_minutes_to_acknowledge: 7 }]);
    const md = await (await fetch(`${server.url}/v1/reports?period=1h&format=md`)).text();
    expect(md).toContain('1 of 1 incidents acknowledged, a median 7.0 min after their first firing.');
  });

  it('is still there after a restart', async () => {
    await server.stop();
    server = await startReportServer(dir, { now: () => now });
    const inc = (await history()).find((i) => i.acknowledged_at);
    expect(inc).toMatchObject({ acknowledged_at: '2026-11-30T12:07:00.000Z', acknowledged_by: 'anonymous' });
  });
});
