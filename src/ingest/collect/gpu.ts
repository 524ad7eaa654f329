/**
 * The GPU collector: `nvidia-smi --query-gpu=… --format=csv,noheader,nounits` on an interval, or,
 * when `dcgm` is configured, a scrape of a DCGM exporter (the scraper with the DCGM table).
 *
 * Samples per GPU (gpu field = index; labels gpu_uuid, gpu_model): `gpu_utilization_ratio`,
 * `gpu_memory_used_bytes`, `gpu_memory_total_bytes`, `gpu_temperature_celsius`, `gpu_power_watts`:
 * the same names the DCGM and Triton mappings produce.
 *
 * No GPU is a normal state: when the command does not exist the collector logs that once and stops
 * polling; when it exists but fails (no driver) it logs once and keeps trying quietly.
 */
import { execFile } from 'node:child_process';
import type { ResourceSink } from '../../pipeline/index.ts';
import type { ResourceSample } from '../../schema/index.ts';
import type { Component, Logger, Scraper } from '../scrape/index.ts';
import { createLoop, createScraper, silentLogger } from '../scrape/index.ts';
import type { GpuReading } from './nvidia-smi.ts';
import { NVIDIA_SMI_ARGS, parseNvidiaSmiCsv } from './nvidia-smi.ts';
import type { CollectorStats } from './stats.ts';
import { emptyStats, failureLatch } from './stats.ts';

export interface GpuCollectorOptions {
  node: string;
  intervalMs: number;
  sink: ResourceSink;
  /** The nvidia-smi executable (name looked up on PATH, or a path). Default 'nvidia-smi'. */
  command?: string;
  /** Environment for the child process (tests pass a PATH without nvidia-smi). Default: inherited. */
  env?: Record<string, string>;
  /** Kill nvidia-smi after this long. Default 5 s. */
  timeoutMs?: number;
  /** Scrape a DCGM exporter instead of running nvidia-smi. */
  dcgm?: { url: string; timeoutMs?: number };
  replica?: string;
  pool?: string;
  logger?: Logger;
  /** Epoch ms. */
  now?: () => number;
}

export interface GpuCollector extends Component {
  collectOnce(): Promise<void>;
  stats(): CollectorStats & { source: 'nvidia-smi' | 'dcgm' };
}

/** Runs nvidia-smi; resolves with stdout, or with the reason it could not. */
function run(
  command: string,
  env: Record<string, string> | undefined,
  timeoutMs: number,
): Promise<{ ok: true; stdout: string } | { ok: false; absent: boolean; message: string }> {
  return new Promise((resolve) => {
    execFile(command, NVIDIA_SMI_ARGS, { timeout: timeoutMs, maxBuffer: 1024 * 1024, encoding: 'utf8', ...(env ? { env } : {}) }, (err, stdout, stderr) => {
      if (!err) return resolve({ ok: true, stdout });
      const code = (err as NodeJS.ErrnoException).code;
      const absent = code === 'ENOENT' || code === 'EACCES';
      const detail = (stdout.trim() || stderr.trim()).split('\n')[0] ?? '';
      resolve({ ok: false, absent, message: absent ? `${command} not found` : `${err.message.split('\n')[0]}${detail ? `: ${detail}` : ''}` });
    });
  });
}

function readingSamples(g: GpuReading, base: Omit<ResourceSample, 'metric' | 'value' | 'gpu' | 'labels'>): ResourceSample[] {
  const labels = { gpu_uuid: g.uuid, gpu_model: g.name };
  const out: ResourceSample[] = [];
  const add = (metric: string, value: number | undefined): void => {
    if (value !== undefined) out.push({ ...base, gpu: g.index, metric, labels, value });
  };
  add('gpu_utilization_ratio', g.utilizationRatio);
  add('gpu_memory_used_bytes', g.memoryUsedBytes);
  add('gpu_memory_total_bytes', g.memoryTotalBytes);
  add('gpu_temperature_celsius', g.temperatureCelsius);
  add('gpu_power_watts', g.powerWatts);
  return out;
}

export function createGpuCollector(options: GpuCollectorOptions): GpuCollector {
  const logger = options.logger ?? silentLogger;
  const now = options.now ?? Date.now;
  if (options.dcgm) return dcgmCollector(options, options.dcgm, logger, now);

  const command = options.command ?? 'nvidia-smi';
  const timeoutMs = options.timeoutMs ?? 5000;
  const stats = emptyStats();
  const latch = failureLatch(stats, logger, options.node, 'GPU collector recovered');

  async function collect(): Promise<void> {
    if (!stats.available) return; // nvidia-smi is absent: stay quiet
    const ts = now();
    stats.collections++;
    const r = await run(command, options.env, timeoutMs);
    if (!r.ok) {
      if (r.absent) {
        stats.failures++;
        stats.lastError = r.message;
        stats.available = false;
        logger.info({ node: options.node, command }, 'no nvidia-smi on this node: GPU collector idle');
        void loop.stop();
      } else latch.fail(r.message, 'nvidia-smi failed');
      return;
    }
    const parsed = parseNvidiaSmiCsv(r.stdout);
    const base = { ts, node: options.node, replica: options.replica ?? null, pool: options.pool ?? null };
    const samples = parsed.gpus.flatMap((g) => readingSamples(g, base));
    if (samples.length === 0) {
      latch.fail(`nvidia-smi printed no GPU lines (${parsed.badLines} other lines)`, 'nvidia-smi output had no GPUs');
      return;
    }
    await latch.write(options.sink, samples, ts, 'GPU collector cannot write samples');
  }

  const loop = createLoop(collect, options.intervalMs);
  return {
    start: () => loop.start(),
    stop: () => loop.stop(),
    collectOnce: () => loop.runOnce(),
    stats: () => ({ ...stats, source: 'nvidia-smi' }),
  };
}

function dcgmCollector(options: GpuCollectorOptions, dcgm: { url: string; timeoutMs?: number }, logger: Logger, now: () => number): GpuCollector {
  const labels: { node: string; replica?: string; pool?: string } = { node: options.node };
  if (options.replica !== undefined) labels.replica = options.replica;
  if (options.pool !== undefined) labels.pool = options.pool;
  const scraper: Scraper = createScraper({
    targets: [{ url: dcgm.url, intervalMs: options.intervalMs, timeoutMs: Math.min(dcgm.timeoutMs ?? 10_000, options.intervalMs), labels, engine: 'dcgm' }],
    sink: options.sink,
    logger,
    now,
  });
  return {
    start: () => scraper.start(),
    stop: (deadlineMs) => scraper.stop(deadlineMs),
    collectOnce: () => scraper.scrapeOnce(),
    stats: () => {
      const t = scraper.stats()[0]!;
      return {
        source: 'dcgm',
        collections: t.scrapes,
        failures: t.failures,
        lastSuccessMs: t.lastSuccessMs,
        lastError: t.lastError ? `${t.lastError.reason}: ${t.lastError.message}` : null,
        lastSamples: t.lastSamples,
        samplesTotal: t.samplesTotal,
        sinkRejected: t.sinkRejected,
        available: true,
      };
    },
  };
}
