import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ResourceSample } from '../../schema/index.ts';
import { memorySink, recordingLogger } from './collect.test-support.ts';
import { createHostCollector } from './host.ts';

const DIR = join(import.meta.dirname, '..', '..', '..', 'test', 'fixtures', 'collect');
const tmp = mkdtempSync(join(tmpdir(), 'inferlens-proc-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const value = (samples: ResourceSample[], metric: string, device?: string) =>
  samples.find((s) => s.metric === metric && (device === undefined || s.labels?.device === device))?.value;

describe('createHostCollector', () => {
  it('two captured /proc snapshots 2 s apart give the hand-computed values', async () => {
    const root = join(tmp, 'proc');
    cpSync(join(DIR, 'proc-1'), root, { recursive: true });
    const sink = memorySink();
    let t = 1_700_000_000_000;
    const c = createHostCollector({ node: 'node-a', replica: 'r1', intervalMs: 1000, sink, procRoot: root, now: () => t });
    await c.collectOnce();
    // First reading: memory gauges only (rates need two readings).
    expect(sink.samples.map((s) => s.metric).sort()).toEqual(['memory_available_bytes', 'memory_total_bytes', 'memory_used_bytes']);
    expect(value(sink.samples, 'memory_used_bytes')).toBe((24683656 - 24249776) * 1024);

    cpSync(join(DIR, 'proc-2'), root, { recursive: true });
    t += 2000;
    sink.samples.length = 0;
    await c.collectOnce();
    const s = sink.samples;
    // Δbusy 3 / Δtotal 220 jiffies
    expect(value(s, 'cpu_utilization_ratio')).toBeCloseTo(3 / 220, 12);
    // proc-2 meminfo: 24683656 − 24252884 = 430772 kB
    expect(value(s, 'memory_used_bytes')).toBe(430772 * 1024);
    expect(value(s, 'memory_total_bytes')).toBe(24683656 * 1024);
    // 50 MiB written in 2 s = 26214400 B/s; 155648 bytes read in 2 s = 77824 B/s
    expect(value(s, 'disk_write_bytes_per_second', 'vda')).toBe(26214400);
    expect(value(s, 'disk_read_bytes_per_second', 'vda')).toBe(77824);
    // The network counters did not move between the two captures.
    expect(value(s, 'network_receive_bytes_per_second', 'eth0')).toBe(0);
    expect(value(s, 'network_transmit_bytes_per_second', 'eth0')).toBe(0);
    expect(s.every((x) => x.node === 'node-a' && x.replica === 'r1' && x.gpu === null && x.ts === t)).toBe(true);
    expect(c.stats()).toMatchObject({ collections: 2, failures: 0, lastSuccessMs: t, available: true, devicesDropped: 0 });
  });

  it('network rate from hand-edited counters, and a counter reset', async () => {
    const root = join(tmp, 'net');
    cpSync(join(DIR, 'proc-1'), root, { recursive: true });
    const { writeFileSync, readFileSync } = await import('node:fs');
    const dev = readFileSync(join(DIR, 'proc-1', 'net', 'dev'), 'utf8');
    const sink = memorySink();
    let t = 0;
    const c = createHostCollector({ node: 'n', intervalMs: 1000, sink, procRoot: root, now: () => t });
    await c.collectOnce();
    // +1,000,000 rx bytes in 4 s = 250000 B/s
    writeFileSync(join(root, 'net', 'dev'), dev.replace('270630729', String(270630729 + 1_000_000)));
    t = 4000;
    sink.samples.length = 0;
    await c.collectOnce();
    expect(value(sink.samples, 'network_receive_bytes_per_second', 'eth0')).toBe(250000);
    // The interface was reset to 5000 bytes: 5000 new bytes in 1 s.
    writeFileSync(join(root, 'net', 'dev'), dev.replace('270630729', '5000'));
    t = 5000;
    sink.samples.length = 0;
    await c.collectOnce();
    expect(value(sink.samples, 'network_receive_bytes_per_second', 'eth0')).toBe(5000);
  });

  it('reads the real /proc of this machine', async () => {
    const sink = memorySink();
    let t = Date.now();
    const c = createHostCollector({ node: 'here', intervalMs: 1000, sink, now: () => t });
    await c.collectOnce();
    await new Promise((r) => setTimeout(r, 50));
    t += 50;
    await c.collectOnce();
    const cpu = value(sink.samples, 'cpu_utilization_ratio');
    if (cpu !== undefined) {
      expect(cpu).toBeGreaterThanOrEqual(0);
      expect(cpu).toBeLessThanOrEqual(1);
    }
    expect(value(sink.samples, 'memory_total_bytes')).toBeGreaterThan(0);
  });

  it('a missing /proc is logged once per file and leaves the collector quiet', async () => {
    const logger = recordingLogger();
    const sink = memorySink();
    const c = createHostCollector({ node: 'n', intervalMs: 1000, sink, procRoot: join(tmp, 'does-not-exist'), logger });
    await c.collectOnce();
    await c.collectOnce();
    expect(logger.lines.filter((l) => l.level === 'warn')).toHaveLength(4); // stat, meminfo, net/dev, diskstats: once each
    expect(sink.samples).toEqual([]);
    expect(c.stats()).toMatchObject({ available: false, collections: 2 });
  });

  it('start() runs on the interval; stop() is idempotent', async () => {
    const sink = memorySink();
    const c = createHostCollector({ node: 'n', intervalMs: 30, sink, procRoot: join(DIR, 'proc-1') });
    c.start();
    await expect.poll(() => c.stats().collections, { timeout: 5000, interval: 10 }).toBeGreaterThanOrEqual(2);
    const p = c.stop();
    expect(c.stop()).toBe(p);
    await p;
    const n = c.stats().collections;
    await new Promise((r) => setTimeout(r, 100));
    expect(c.stats().collections).toBe(n);
  });
});
