/** Resource samples: host and GPU readings on the same time axis as the requests. */
import { z } from 'zod';

export const ResourceSampleSchema = z.object({
  ts: z.union([z.string(), z.number().positive()]),
  node: z.string().min(1).max(256),
  replica: z.string().max(256).nullish(),
  gpu: z.string().max(64).nullish(),
  pool: z.string().max(256).nullish(),
  /** e.g. gpu_utilization_ratio, gpu_memory_used_bytes, cpu_utilization_ratio, memory_used_bytes. */
  metric: z.string().min(1).max(128).regex(/^[a-zA-Z_:][a-zA-Z0-9_:.]*$/, { error: 'expected a metric name [a-zA-Z_:][a-zA-Z0-9_:.]*' }),
  labels: z.record(z.string().max(64), z.string().max(256)).nullish(),
  value: z.number().refine(Number.isFinite, { error: 'expected a finite number' }),
  /** True when the reading is simulated (the demo's GPU on a machine without one). */
  simulated: z.boolean().nullish(),
});
export type ResourceSample = z.infer<typeof ResourceSampleSchema>;
