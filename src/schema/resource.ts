/** Resource samples: host and GPU readings on the same time axis as the requests. */
import { z } from 'zod';
import { TimestampSchema, textSchema } from './fields.ts';
import { RESOURCE_PANEL_METRICS } from './vocabulary.ts';

/** Most labels on one resource sample (a DCGM exporter series carries about ten). */
export const MAX_RESOURCE_LABELS = 64;

/** A resource sample: `ts` is the reading's time (RFC 3339 or epoch ms, the same window as events). */
export const ResourceSampleSchema = z.object({
  ts: TimestampSchema,
  node: textSchema(1, 256),
  replica: textSchema(0, 256).nullish(),
  gpu: textSchema(0, 64).nullish(),
  pool: textSchema(0, 256).nullish(),
  /** e.g. gpu_utilization_ratio, gpu_memory_used_bytes, cpu_utilization_ratio, memory_used_bytes. */
  metric: z
    .string()
    .min(1)
    .max(128)
    .regex(/^[a-zA-Z_:][a-zA-Z0-9_:.]*$/, { error: 'expected a metric name [a-zA-Z_:][a-zA-Z0-9_:.]*' }),
  labels: z
    .record(textSchema(0, 64), textSchema(0, 256))
    .refine((o) => Object.keys(o).length <= MAX_RESOURCE_LABELS, { error: `expected at most ${MAX_RESOURCE_LABELS} labels` })
    .nullish(),
  value: z.number().refine(Number.isFinite, { error: 'expected a finite number' }),
  /** True when the reading is simulated (the demo's GPU on a machine without one). */
  simulated: z.boolean().nullish(),
});
export type ResourceSample = z.infer<typeof ResourceSampleSchema>;

/**
 * Resource metric names that an analysis, view or default alert rule reads. Any other name is
 * stored (the resource query and custom rules can use it), and the ingest reply warns that nothing
 * built in will look at it: `gpu_mem_util` instead of `gpu_memory_used_bytes` is otherwise a
 * silent gap in the capacity analysis.
 */
export const READ_RESOURCE_METRICS: readonly string[] = [
  ...RESOURCE_PANEL_METRICS,
  'memory_total_bytes',
  'memory_available_bytes',
  'queue_length',
  'replica_restarts_total',
];
