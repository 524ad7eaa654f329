/**
 * The host collector: reads /proc on an interval and writes resource samples for the local node.
 *
 * Samples: `cpu_utilization_ratio` (from the delta of /proc/stat), `memory_used_bytes`,
 * `memory_available_bytes`, `memory_total_bytes`, and per device `network_receive_bytes_per_second`,
 * `network_transmit_bytes_per_second`, `disk_read_bytes_per_second`, `disk_write_bytes_per_second`
 * (label `device`). Rates need two readings, so the first collection writes only the memory gauges.
 * A /proc file that cannot be read (not Linux, a container without it) is logged once and skipped.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ResourceSink } from '../../pipeline/index.ts';
import type { ResourceSample } from '../../schema/index.ts';
import type { Component, Logger, MappedSample } from '../scrape/index.ts';
import { createLoop, createRateState, silentLogger } from '../scrape/index.ts';
import type { CpuTimes } from './proc.ts';
import { cpuUtilizationRatio, parseDiskstats, parseMeminfo, parseNetDev, parseProcStat } from './proc.ts';
import type { CollectorStats } from './stats.ts';
import { emptyStats, failureLatch } from './stats.ts';

export interface HostCollectorOptions {
  node: string;
  intervalMs: number;
  sink: ResourceSink;
  /** Default '/proc'; tests point it at captured files. */
  procRoot?: string;
  replica?: string;
  pool?: string;
  logger?: Logger;
  /** Epoch ms. */
  now?: () => number;
  /** Bound on network interfaces and disks reported each (the rest are counted in `devicesDropped`). Default 64. */
  maxDevices?: number;
}

export interface HostCollector extends Component {
  /** Reads /proc once now and writes what it can. */
  collectOnce(): Promise<void>;
  stats(): CollectorStats & { devicesDropped: number };
}

const SOURCES = ['stat', 'meminfo', 'net/dev', 'diskstats'] as const;
type Source = (typeof SOURCES)[number];

export function createHostCollector(options: HostCollectorOptions): HostCollector {
  const procRoot = options.procRoot ?? '/proc';
  const logger = options.logger ?? silentLogger;
  const now = options.now ?? Date.now;
  const maxDevices = options.maxDevices ?? 64;
  const stats = emptyStats();
  let devicesDropped = 0;
  let prevCpu: CpuTimes | undefined;
  const rates = createRateState({ maxSeries: 4 * maxDevices, staleAfterMs: Math.max(10 * options.intervalMs, 5 * 60_000) });
  const missing = new Set<Source>();
  const latch = failureLatch(stats, logger, options.node, 'host collector writes again');

  const read = async (source: Source): Promise<string | undefined> => {
    try {
      const text = await readFile(join(procRoot, source), 'utf8');
      missing.delete(source);
      return text;
    } catch (e) {
      if (!missing.has(source)) {
        missing.add(source);
        logger.warn(
          { file: join(procRoot, source), err: e instanceof Error ? e.message : String(e) },
          'cannot read a /proc file; its host metrics are skipped (logged once)',
        );
      }
      return undefined;
    }
  };

  async function collect(): Promise<void> {
    const ts = now();
    stats.collections++;
    const [stat, meminfo, netdev, diskstats] = await Promise.all(SOURCES.map(read));
    const out: { metric: string; labels: Record<string, string>; value: number }[] = [];
    if (stat !== undefined) {
      const cpu = parseProcStat(stat);
      if (cpu && prevCpu) {
        const ratio = cpuUtilizationRatio(prevCpu, cpu);
        if (ratio !== undefined) out.push({ metric: 'cpu_utilization_ratio', labels: {}, value: ratio });
      }
      if (cpu) prevCpu = cpu;
    }
    if (meminfo !== undefined) {
      const mem = parseMeminfo(meminfo);
      if (mem) {
        out.push({ metric: 'memory_used_bytes', labels: {}, value: mem.usedBytes });
        out.push({ metric: 'memory_available_bytes', labels: {}, value: mem.availableBytes });
        out.push({ metric: 'memory_total_bytes', labels: {}, value: mem.totalBytes });
      }
    }
    const counters: MappedSample[] = [];
    const counter = (concept: string, device: string, value: number): void => {
      counters.push({ concept, part: 'counter', labels: { device }, value, source: 'proc' });
    };
    if (netdev !== undefined) {
      const devs = parseNetDev(netdev);
      devicesDropped += Math.max(0, devs.length - maxDevices);
      for (const d of devs.slice(0, maxDevices)) {
        counter('network_receive_bytes', d.device, d.rxBytes);
        counter('network_transmit_bytes', d.device, d.txBytes);
      }
    }
    if (diskstats !== undefined) {
      const disks = parseDiskstats(diskstats);
      devicesDropped += Math.max(0, disks.length - maxDevices);
      for (const d of disks.slice(0, maxDevices)) {
        counter('disk_read_bytes', d.device, d.readBytes);
        counter('disk_write_bytes', d.device, d.writtenBytes);
      }
    }
    out.push(...rates.apply(counters, ts));

    if (missing.size === SOURCES.length) {
      stats.available = false;
      stats.failures++;
      stats.lastError = `no readable /proc files under ${procRoot}`;
      return;
    }
    stats.available = true;
    const samples: ResourceSample[] = out.map((s) => ({
      ts,
      node: options.node,
      replica: options.replica ?? null,
      pool: options.pool ?? null,
      gpu: null,
      metric: s.metric,
      labels: s.labels,
      value: s.value,
    }));
    if (samples.length === 0) return;
    await latch.write(options.sink, samples, ts, 'host collector cannot write samples');
  }

  const loop = createLoop(collect, options.intervalMs);
  return {
    start: () => loop.start(),
    stop: () => loop.stop(),
    collectOnce: () => loop.runOnce(),
    stats: () => ({ ...stats, devicesDropped }),
  };
}
