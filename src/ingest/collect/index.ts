/** Host and GPU collectors for the local node → resource samples. */

/** Reads /proc (CPU, memory, network, disk) on an interval and writes resource samples for the node. */
export { createHostCollector } from './host.ts';
/** The host collector's interface and options. */
export type { HostCollector, HostCollectorOptions } from './host.ts';
/** Runs nvidia-smi (or scrapes a DCGM exporter) on an interval; quiet on machines without a GPU. */
export { createGpuCollector } from './gpu.ts';
/** The GPU collector's interface and options. */
export type { GpuCollector, GpuCollectorOptions } from './gpu.ts';
/** What a collector reports about itself. */
export type { CollectorStats } from './stats.ts';
/** Pure /proc parsers (tested on captured files). */
export { parseProcStat, cpuUtilizationRatio, parseMeminfo, parseNetDev, parseDiskstats } from './proc.ts';
/** The shapes the /proc parsers return. */
export type { CpuTimes, MemInfo, NetCounters, DiskCounters } from './proc.ts';
/** The nvidia-smi CSV parser and the exact arguments the collector passes. */
export { parseNvidiaSmiCsv, NVIDIA_SMI_ARGS, NVIDIA_SMI_FIELDS } from './nvidia-smi.ts';
/** One GPU's reading and the parse result. */
export type { GpuReading, NvidiaSmiParse } from './nvidia-smi.ts';
