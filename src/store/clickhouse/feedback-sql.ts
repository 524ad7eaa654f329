/**
 * Feedback joined to events at query time (ClickHouse): the same contract and value forms as the
 * DuckDB backend (`../duckdb/feedback-sql.ts`). The first stored event per request id counts, and
 * per request the latest row of each feedback kind (`LIMIT 1 BY`, ClickHouse's answer to QUALIFY).
 * Needs `join_use_nulls = 1` so requests without feedback read NULL, not 0.
 */
import type { FeedbackStatsSpec } from '../store.ts';
import { Params, bucketSql, ident, tsParam, whereClause } from './sql.ts';

const FLAG = `multiIf(value_num IS NOT NULL, if(value_num > 0, 1., 0.),
  lower(value_str) IN ('true', 'up', 'yes', '1'), 1.,
  lower(value_str) IN ('false', 'down', 'no', '0'), 0., NULL)`;
const NUM = 'coalesce(value_num, toFloat64OrNull(value_str))';
const STR = `coalesce(value_str, if(value_num = trunc(value_num), toString(toInt64(value_num)), toString(value_num)))`;

/** The grouped statistics query; groups ordered by bucket then dimensions. */
export function feedbackStatsSql(spec: FeedbackStatsSpec, db: string): { sql: string; params: Record<string, unknown> } {
  const p = new Params();
  const w = whereClause(p, spec.fromMs, spec.toMs, spec.filters, false);
  const dims = spec.groupBy.map(ident);
  const evCols = [...new Set(['label', ...dims])];
  const groupCols: string[] = [];
  const perReq: string[] = ['ev.request_id AS request_id'];
  if (spec.stepMs !== undefined) {
    perReq.push(`${bucketSql(p, spec.fromMs, spec.stepMs, 'ev.ts')} AS bucket`);
    groupCols.push('bucket');
  }
  for (const d of dims) {
    perReq.push(`ev.${d} AS ${d}`);
    groupCols.push(d);
  }
  const perReqGroup = ['request_id', ...groupCols];
  const sql = `
    WITH ev AS (
      SELECT request_id, ts, ${evCols.join(', ')} FROM ${db}.events
      WHERE ${w} AND request_id IS NOT NULL
      ORDER BY ts LIMIT 1 BY request_id
    ),
    fb AS (
      SELECT request_id, kind, ${FLAG} AS flag, ${NUM} AS num, ${STR} AS str FROM ${db}.feedback
      WHERE request_id IN (SELECT assumeNotNull(request_id) FROM ev)
      ORDER BY ts DESC, received_at DESC LIMIT 1 BY request_id, kind
    ),
    per_req AS (
      SELECT ${perReq.join(', ')},
        count(fb.kind) AS n_fb,
        maxIf(fb.flag, fb.kind = 'correct') AS correct,
        maxIf(fb.flag, fb.kind = 'thumbs') AS thumbs,
        maxIf(fb.num, fb.kind = 'rating') AS rating,
        maxIf(if(fb.str IS NULL, NULL, if(ifNull(fb.str = ev.label, false), 1., 0.)), fb.kind = 'label') AS label_hit,
        maxIf(fb.flag, fb.kind = 'conversion') AS conversion,
        maxIf(fb.flag, fb.kind = 'click') AS click
      FROM ev LEFT JOIN fb ON fb.request_id = ev.request_id
      GROUP BY ${perReqGroup.join(', ')}
    )
    SELECT ${[...groupCols, ''].join(', ')}
      count() AS requests,
      countIf(n_fb > 0) AS with_feedback,
      count(correct) AS correct_n, avg(correct) AS correct_rate,
      count(label_hit) AS label_n, avg(label_hit) AS label_accuracy,
      count(thumbs) AS thumbs_n, avg(thumbs) AS thumbs_up_rate,
      count(rating) AS rating_n, avg(rating) AS rating_mean,
      ifNull(sum(conversion), 0) AS conversions, sum(ifNull(conversion, 0)) / count() AS conversion_rate,
      ifNull(sum(click), 0) AS clicks, sum(ifNull(click, 0)) / count() AS click_rate
    FROM per_req
    ${groupCols.length ? `GROUP BY ${groupCols.join(', ')} ORDER BY ${groupCols.map((c) => `${c} ASC NULLS LAST`).join(', ')}` : ''}
    LIMIT ${p.int(spec.limit)}`;
  return { sql, params: p.values };
}

/** Feedback rows with ts in the range whose request_id has no stored event (yet). */
export function orphanFeedbackSql(fromMs: number, toMs: number, db: string): { sql: string; params: Record<string, unknown> } {
  const p = new Params();
  const range = `ts >= ${tsParam(p, fromMs)} AND ts < ${tsParam(p, toMs)}`;
  // Only the events of these requests are looked up (the request_id bloom filter skips the rest).
  const sql = `SELECT count() AS n FROM ${db}.feedback WHERE ${range}
    AND request_id NOT IN (SELECT assumeNotNull(request_id) FROM ${db}.events WHERE request_id IN (SELECT request_id FROM ${db}.feedback WHERE ${range}))`;
  return { sql, params: p.values };
}
