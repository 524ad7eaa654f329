/** Simulated GPU samples (labelled `simulated: true`) for a GPU this machine does not have. */
/** The readings model (utilisation from load, memory from utilisation and creep) and its rows, shared with the backfill. */
export { gpuReadings, gpuRows, GIB, GPU_MEMORY_TOTAL_BYTES, GPU_POOL } from './gpu-model.ts';
export type { GpuReadings } from './gpu-model.ts';
/** Posts the samples periodically; `setMemoryCreep` drives the GPU-memory-creep incident. */
export { createGpuSimulator } from './gpu-simulator.ts';
export type { GpuSimulator, GpuSimulatorOptions, GpuSimulatorStats, SimulatedGpu } from './gpu-simulator.ts';
