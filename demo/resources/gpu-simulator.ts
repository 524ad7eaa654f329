/**
 * Posts simulated GPU samples (`POST /v1/resources`, `simulated: true`) every `intervalMs`, one GPU
 * per replica, utilisation following the replica's measured request rate. `setMemoryCreep` starts
 * the GPU-memory-creep incident on one GPU (memory grows by `bytesPerS` until cleared: a leak, and
 * the restart that ends it). Send failures are counted, never thrown.
 */
import { createRandom } from '../model/index.ts';
// the ingest client file directly: traffic/index.ts (the backfill) imports this folder
import { postNdjson } from '../ingest/index.ts';
import type { IngestTarget } from '../ingest/index.ts';
import { gpuReadings, gpuRows } from './gpu-model.ts';

export interface SimulatedGpu {
  gpu: string;
  replica: string;
}

export interface GpuSimulatorOptions {
  target: IngestTarget;
  node: string;
  gpus: readonly SimulatedGpu[];
  /** Requests per replica since the previous call (the simulator divides by the elapsed time). */
  takeRequestCounts: () => Record<string, number>;
  /** Requests/s per replica that reads as ≈ 94 % utilisation. */
  nominalRatePerReplica: number;
  intervalMs?: number;
  seed?: number;
  now?: () => number;
}

export interface GpuSimulatorStats {
  samplesSent: number;
  sendFailures: number;
  /** Current creep per GPU, bytes. */
  creepBytes: Record<string, number>;
}

export interface GpuSimulator {
  start(): void;
  stop(): Promise<void>;
  /** `null` ends the creep and frees what it held. */
  setMemoryCreep(gpu: string, bytesPerS: number | null): void;
  stats(): GpuSimulatorStats;
}

export function createGpuSimulator(options: GpuSimulatorOptions): GpuSimulator {
  const random = createRandom(options.seed ?? 31);
  const now = options.now ?? Date.now;
  const intervalMs = options.intervalMs ?? 5_000;
  const creepRate = new Map<string, number>();
  const creepBytes = new Map<string, number>();
  let timer: NodeJS.Timeout | undefined;
  let lastMs = now();
  let samplesSent = 0;
  let sendFailures = 0;
  let sending: Promise<void> = Promise.resolve();

  const sample = (): void => {
    const t = now();
    const elapsedS = Math.max(0.001, (t - lastMs) / 1000);
    lastMs = t;
    const counts = options.takeRequestCounts();
    const rows: Record<string, unknown>[] = [];
    for (const { gpu, replica } of options.gpus) {
      const creep = (creepBytes.get(gpu) ?? 0) + (creepRate.get(gpu) ?? 0) * elapsedS;
      if (creepRate.has(gpu)) creepBytes.set(gpu, creep);
      rows.push(...gpuRows(t, options.node, gpu, replica, gpuReadings((counts[replica] ?? 0) / elapsedS, options.nominalRatePerReplica, creep, random)));
    }
    sending = sending
      .then(() => postNdjson(options.target, '/v1/resources', rows, 2))
      .then(
        (r) => void (samplesSent += r.accepted),
        () => void sendFailures++,
      );
  };

  return {
    start() {
      if (timer) return;
      lastMs = now();
      timer = setInterval(sample, intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await sending;
    },
    setMemoryCreep(gpu, bytesPerS) {
      if (bytesPerS === null) {
        creepRate.delete(gpu);
        creepBytes.delete(gpu);
      } else creepRate.set(gpu, bytesPerS);
    },
    stats: () => ({ samplesSent, sendFailures, creepBytes: Object.fromEntries(creepBytes) }),
  };
}
