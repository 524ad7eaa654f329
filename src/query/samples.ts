/**
 * `POST /v1/samples/search`: the captured samples behind a chart point. A chart point is a slice
 * (filters) and a time bucket (from, to); reasons, risk tags and a request id narrow it further.
 * Newest first, at most 1000.
 */
import { z } from 'zod';
import { SAMPLE_FILTER_KEYS, SAMPLE_REASONS } from '../store/index.ts';
import type { SampleListSpec, Store, StoredSample } from '../store/index.ts';
import { parseOrThrow, timeRange } from './spec.ts';

const rfc3339 = z.string().refine((s) => Number.isFinite(Date.parse(s)), { error: 'expected an RFC 3339 timestamp' });
const filterValue = z.union([z.string(), z.array(z.string()).min(1).max(1000)]);

export const SampleSearchSchema = z
  .object({
    from: rfc3339,
    to: rfc3339,
    filters: z.partialRecord(z.enum(SAMPLE_FILTER_KEYS), filterValue).default({}),
    reasons: z.array(z.enum(SAMPLE_REASONS)).min(1).max(SAMPLE_REASONS.length).optional(),
    tags: z.array(z.string().min(1).max(64)).min(1).max(64).optional(),
    request_id: z.string().min(1).max(128).optional(),
    limit: z.number().int().min(1).max(1000).default(100),
  })
  .strict();

export type SampleSearchInput = z.input<typeof SampleSearchSchema>;

export async function searchSamples(store: Store, input: unknown): Promise<{ samples: StoredSample[] }> {
  const o = parseOrThrow(SampleSearchSchema, input, 'sample search');
  const { fromMs, toMs } = timeRange(o.from, o.to);
  const spec: SampleListSpec = { fromMs, toMs, filters: o.filters, limit: o.limit };
  if (o.reasons) spec.reasons = o.reasons;
  if (o.tags) spec.tags = o.tags;
  if (o.request_id !== undefined) spec.requestId = o.request_id;
  return { samples: await store.listSamples(spec) };
}
