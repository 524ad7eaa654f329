import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { memorySink, recordingLogger } from './collect.test-support.ts';
import { createGpuCollector } from './gpu.ts';

const DIR = join(import.meta.dirname, '..', '..', '..', 'test', 'fixtures', 'collect');
const tmp = mkdtempSync(join(tmpdir(), 'inferlens-gpu-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A stand-in nvidia-smi: checks its arguments, then prints a file and exits with a code. */
function fakeSmi(name: string, outputFile: string, exitCode = 0): string {
  const path = join(tmp, name);
  writeFileSync(
    path,
    `#!/bin/sh\n[ "$1" = "--query-gpu=index,uuid,name,utilization.gpu,memory.used,memory.total,temperature.gpu,power.draw" ] || { echo "bad args: $*" >&2; exit 2; }\ncat '${outputFile}'\nexit ${exitCode}\n`,
  );
  chmodSync(path, 0o755);
  return path;
}

describe('createGpuCollector (nvidia-smi)', () => {
  it('runs the command and writes one sample per reported field', async () => {
    const sink = memorySink();
    const c = createGpuCollector({
      node: 'gpu-1',
      pool: 'h100',
      intervalMs: 1000,
      sink,
      command: fakeSmi('smi-ok', join(DIR, 'nvidia-smi-query-gpu.csv')),
      now: () => 42,
    });
    await c.collectOnce();
    // GPUs 0 and 1 report 5 fields each; GPU 2 has [N/A] utilisation and [Not Supported] power: 3.
    expect(sink.samples).toHaveLength(13);
    const util0 = sink.samples.find((s) => s.gpu === '0' && s.metric === 'gpu_utilization_ratio')!;
    expect(util0).toMatchObject({
      ts: 42,
      node: 'gpu-1',
      pool: 'h100',
      value: 0.87,
      labels: { gpu_uuid: 'GPU-6f1c2d3e-4a5b-6c7d-8e9f-0a1b2c3d4e5f', gpu_model: 'NVIDIA H100 80GB HBM3' },
    });
    expect(sink.samples.find((s) => s.gpu === '0' && s.metric === 'gpu_memory_used_bytes')!.value).toBe(61234 * 1048576);
    expect(sink.samples.find((s) => s.gpu === '1' && s.metric === 'gpu_power_watts')!.value).toBe(69.87);
    expect(sink.samples.filter((s) => s.gpu === '2').map((s) => s.metric)).toEqual([
      'gpu_memory_used_bytes',
      'gpu_memory_total_bytes',
      'gpu_temperature_celsius',
    ]);
    expect(c.stats()).toMatchObject({ source: 'nvidia-smi', collections: 1, failures: 0, lastSamples: 13, available: true });
  });

  it('with a PATH that has no nvidia-smi it logs once and stays quiet', async () => {
    const empty = join(tmp, 'empty-bin');
    mkdirSync(empty, { recursive: true });
    const logger = recordingLogger();
    const sink = memorySink();
    const c = createGpuCollector({ node: 'cpu-only', intervalMs: 20, sink, logger, env: { PATH: empty } });
    await c.collectOnce();
    c.start();
    await new Promise((r) => setTimeout(r, 100));
    await c.collectOnce();
    await c.stop();
    expect(logger.lines).toEqual([{ level: 'info', msg: 'no nvidia-smi on this node: GPU collector idle' }]);
    expect(sink.samples).toEqual([]);
    expect(c.stats()).toMatchObject({ available: false, collections: 1, failures: 1, lastError: 'nvidia-smi not found' });
  });

  it('a failing nvidia-smi (no driver) is logged once, counted each time, and recovers', async () => {
    const logger = recordingLogger();
    const sink = memorySink();
    const broken = fakeSmi('smi-broken', join(DIR, 'nvidia-smi-no-driver.txt'), 9);
    const c = createGpuCollector({ node: 'n', intervalMs: 1000, sink, logger, command: broken });
    await c.collectOnce();
    await c.collectOnce();
    expect(c.stats().failures).toBe(2);
    expect(c.stats().lastError).toContain("couldn't communicate with the NVIDIA driver");
    expect(logger.lines.filter((l) => l.level === 'warn')).toHaveLength(1);
    // The driver comes back.
    writeFileSync(broken, readFileSync(fakeSmi('smi-ok2', join(DIR, 'nvidia-smi-query-gpu.csv')), 'utf8'));
    await c.collectOnce();
    expect(sink.samples).toHaveLength(13);
    expect(logger.lines.at(-1)).toEqual({ level: 'info', msg: 'GPU collector recovered' });
  });
});

describe('createGpuCollector (DCGM exporter)', () => {
  it('scrapes the exporter through the scraper with the DCGM table', async () => {
    const body = readFileSync(
      join(import.meta.dirname, '..', '..', '..', 'test', 'fixtures', 'prometheus', 'dcgm', 'datadog-dcgm-metrics-fixture.txt'),
      'utf8',
    );
    const server = createServer((_req, res) => res.end(body));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const sink = memorySink();
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
      const c = createGpuCollector({ node: 'gpu-2', intervalMs: 5000, sink, dcgm: { url, timeoutMs: 3000 } });
      await c.collectOnce();
      expect(sink.samples.find((s) => s.metric === 'gpu_temperature_celsius' && s.gpu === '0')).toMatchObject({ node: 'gpu-2', value: 25 });
      expect(c.stats()).toMatchObject({ source: 'dcgm', collections: 1, failures: 0 });
      await c.stop();
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
