/**
 * What the runtime view asks for, built from the vocabulary (src/schema/vocabulary.ts) so that a
 * new status, error type or stage appears on the dashboard without an edit here
 * (`test/vocabulary.test.ts` checks every member is asked for).
 */
import { ERROR_TYPES, STAGES, STATUSES } from '../../../../src/schema/vocabulary.ts';

export const PCTS = [
  ['p50', 'P50'],
  ['p90', 'P90'],
  ['p95', 'P95'],
  ['p99', 'P99'],
  ['p999', 'P99.9'],
] as const;

/** The statuses drawn in the "not served" panel: everything but `ok` and `error` (which has its own panel). */
export const NOT_SERVED_STATUSES = STATUSES.filter((s) => s !== 'ok' && s !== 'error');

/** The whole runtime view from one query (at most 40 measures: the query API's limit). */
export const BUCKET_MEASURES = [
  'count',
  'n',
  'qps',
  ...STATUSES.map((s) => `${s}_rate`),
  ...PCTS.map(([p]) => `${p}(total_ms)`),
  'max(total_ms)',
  ...STAGES.map((s) => `mean(${s})`),
  'p99(queue_ms)',
  'mean(batch_size)',
  'max(batch_size)',
  'p50(ttft_ms)',
  'p99(ttft_ms)',
  'p50(tpot_ms)',
  'p99(tpot_ms)',
  ...ERROR_TYPES.map((e) => `error_rate(${e})`),
];

/** The KPI row: one unbucketed query. */
export const TOTAL_MEASURES = ['count', 'n', 'qps', 'error_rate', 'rejected_rate', 'rate_limited_rate', 'p50(total_ms)', 'p99(total_ms)', 'max(total_ms)'];
