/**
 * `POST /v1/samples/search`: the captured samples behind a chart point. A chart point is a slice
 * (filters) and a time bucket (from, to); reasons, risk tags and a request id narrow it further.
 * Newest first, at most 1000.
 */
import type { SampleSearchRequest, SamplesReply } from '../schema/index.ts';
import type { SampleListSpec, StoreReads } from '../store/index.ts';

export async function searchSamples(store: StoreReads, o: SampleSearchRequest): Promise<SamplesReply> {
  const { fromMs, toMs } = o;
  const spec: SampleListSpec = { fromMs, toMs, filters: o.filters, limit: o.limit };
  if (o.reasons) spec.reasons = o.reasons;
  if (o.tags) spec.tags = o.tags;
  if (o.request_id !== undefined) spec.requestId = o.request_id;
  return { samples: await store.listSamples(spec) };
}
