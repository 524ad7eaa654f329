/**
 * The simulated GPUs' readings. This machine has no GPU, so the demo pretends each replica runs on
 * one GPU of an 80 GiB card and derives its readings from the replica's real load. Every sample
 * carries `simulated: true`; the host's CPU and memory come from inferlens's own host collector and
 * are real.
 *
 *   utilisation = clamp(0.04 + 0.9 × load / nominalLoad, 0, 1) + noise(σ 0.02)
 *   memory used = 14 GiB (weights, runtime) + 22 GiB × utilisation (activations) + creep
 *
 * Worked numbers: at the nominal load a GPU shows 94 % and 14 + 20.7 = 34.7 GiB of 80 GiB; at a
 * third of it, 34 % and 21.5 GiB. A creep of 100 MiB/s adds 29 GiB in 5 minutes.
 */
export const GIB = 1024 ** 3;
export const GPU_MEMORY_TOTAL_BYTES = 80 * GIB;
export const GPU_POOL = 'a100-80g';
const BASE_MEMORY_BYTES = 14 * GIB;
const ACTIVATION_MEMORY_BYTES = 22 * GIB;

export interface GpuReadings {
  utilizationRatio: number;
  memoryUsedBytes: number;
}

/** Readings of one GPU for `load` (requests/s on its replica) against `nominalLoad` (what it is sized for). */
export function gpuReadings(load: number, nominalLoad: number, creepBytes: number, random: () => number): GpuReadings {
  const noise = (random() - 0.5) * 0.07;
  const utilizationRatio = Math.min(1, Math.max(0, 0.04 + (0.9 * load) / Math.max(nominalLoad, 1e-9) + noise));
  const memoryUsedBytes = Math.min(GPU_MEMORY_TOTAL_BYTES, BASE_MEMORY_BYTES + ACTIVATION_MEMORY_BYTES * utilizationRatio + creepBytes);
  return { utilizationRatio: Math.round(utilizationRatio * 1000) / 1000, memoryUsedBytes: Math.round(memoryUsedBytes) };
}

/** The three resource rows of one GPU at one time, labelled simulated. */
export function gpuRows(tsMs: number, node: string, gpu: string, replica: string, readings: GpuReadings): Record<string, unknown>[] {
  const base = { ts: tsMs, node, gpu, replica, pool: GPU_POOL, simulated: true };
  return [
    { ...base, metric: 'gpu_utilization_ratio', value: readings.utilizationRatio },
    { ...base, metric: 'gpu_memory_used_bytes', value: readings.memoryUsedBytes },
    { ...base, metric: 'gpu_memory_total_bytes', value: GPU_MEMORY_TOTAL_BYTES },
  ];
}
