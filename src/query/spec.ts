/** Validation of query inputs: zod shape, then the rules zod cannot say (range order, bucket count). */
import type { z } from 'zod';
import { InferlensError, MAX_BUCKETS, QuerySpecSchema, parseDurationMs, parseMeasure, zodIssues } from '../schema/index.ts';
import type { FieldIssue, Filters, QuerySpec } from '../schema/index.ts';

/** Parses with a zod schema or throws invalid_argument listing every field problem. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, what: string): z.infer<S> {
  const r = schema.safeParse(input);
  if (!r.success) {
    const issues = zodIssues(r.error);
    throw new InferlensError('invalid_argument', `invalid ${what}: ${issues.map((i) => `${i.path || '(body)'}: ${i.message}`).join('; ')}`, { issues });
  }
  return r.data;
}

/** Checks a time range: from < to, both valid; returns epoch ms. */
export function timeRange(from: string, to: string, stepMs?: number): { fromMs: number; toMs: number } {
  const fromMs = Date.parse(from);
  const toMs = Date.parse(to);
  const issues: FieldIssue[] = [];
  if (!(toMs > fromMs)) issues.push({ path: 'to', message: 'must be after from' });
  if (stepMs !== undefined) {
    if (stepMs < 1000) issues.push({ path: 'step', message: 'must be at least 1s' });
    else if ((toMs - fromMs) / stepMs > MAX_BUCKETS) issues.push({ path: 'step', message: `gives more than ${MAX_BUCKETS} buckets for this range: use a larger step` });
  }
  if (issues.length) throw new InferlensError('invalid_argument', issues.map((i) => `${i.path}: ${i.message}`).join('; '), { issues });
  return { fromMs, toMs };
}

/** The validated QuerySpec of `POST /v1/query`. */
export function toQuerySpec(input: unknown): QuerySpec {
  const raw = parseOrThrow(QuerySpecSchema, input, 'query');
  const stepMs = raw.step ? parseDurationMs(raw.step) : undefined;
  const { fromMs, toMs } = timeRange(raw.from, raw.to, stepMs);
  const issues: FieldIssue[] = [];
  const measures = raw.measures.map((name, i) => {
    const m = parseMeasure(name);
    if (typeof m === 'string') issues.push({ path: `measures.${i}`, message: m });
    return { name, measure: typeof m === 'string' ? { kind: 'count' as const } : m };
  });
  if (issues.length) throw new InferlensError('invalid_argument', issues.map((i) => `${i.path}: ${i.message}`).join('; '), { issues });
  const spec: QuerySpec = { fromMs, toMs, filters: raw.filters as Filters, groupBy: raw.group_by, measures, includeProbes: raw.include_probes, limit: raw.limit };
  if (stepMs !== undefined) spec.stepMs = stepMs;
  if (raw.approx) spec.approx = true;
  return spec;
}
