/**
 * Feedback joined to events at query time (DuckDB). The join is by request_id and happens on every
 * read, never at write time, so feedback that arrives hours late, or before its request, matches
 * as soon as both rows are stored. Per request the latest row of each feedback kind counts
 * (a user who changes a thumbs-down into a thumbs-up is counted once, as up).
 *
 * Value forms (FeedbackSchema allows booleans, numbers and strings for every kind):
 * - thumbs / correct / conversion / click: true, a number > 0, or 'true' | 'up' | 'yes' | '1'
 *   count as 1; false, 0, or 'false' | 'down' | 'no' | '0' as 0; other strings are ignored.
 * - rating: the number (a numeric string is cast).
 * - label: compared as text with the event's label (a whole number 3 reads as '3').
 */
import { rmSync } from 'node:fs';
import { tsMillis } from '../../schema/index.ts';
import type { Feedback } from '../../schema/index.ts';
import type { FeedbackStats, FeedbackStatsSpec } from '../store.ts';
import { toFeedbackStats } from '../result-rows.ts';
import { Params, bucketSql, ident, tsParam, whereClause } from './sql.ts';
import type { ReadFn, StagedWriter } from './sql.ts';

/** Feedback rows, staged as NDJSON and loaded with DuckDB's reader; `received_at` is the load time. */
export async function appendFeedback(w: StagedWriter, rows: readonly Feedback[]): Promise<void> {
  if (rows.length === 0) return;
  const lines = rows.map((f) =>
    JSON.stringify({
      ts: tsMillis(f.ts),
      request_id: f.request_id,
      kind: f.kind,
      value_num: typeof f.value === 'number' ? f.value : typeof f.value === 'boolean' ? (f.value ? 1 : 0) : null,
      value_str: typeof f.value === 'string' ? f.value : null,
      source: f.source ?? null,
    }),
  );
  const file = w.stageFile(lines);
  try {
    await w.run(
      `INSERT INTO feedback (ts, request_id, kind, value_num, value_str, source, received_at) SELECT make_timestamp(CAST(ts * 1000 AS BIGINT)), request_id, kind, value_num, value_str, source, current_timestamp
       FROM read_ndjson($1, columns={ts: 'DOUBLE', request_id: 'VARCHAR', kind: 'VARCHAR', value_num: 'DOUBLE', value_str: 'VARCHAR', source: 'VARCHAR'}, format='newline_delimited')`,
      [file],
    );
  } finally {
    rmSync(file, { force: true });
  }
}

const FLAG = `CASE WHEN value_num IS NOT NULL THEN CASE WHEN value_num > 0 THEN 1.0 ELSE 0.0 END
  WHEN lower(value_str) IN ('true', 'up', 'yes', '1') THEN 1.0
  WHEN lower(value_str) IN ('false', 'down', 'no', '0') THEN 0.0 END`;
const NUM = 'coalesce(value_num, TRY_CAST(value_str AS DOUBLE))';
const STR = `coalesce(value_str, CASE WHEN value_num = trunc(value_num) THEN CAST(CAST(value_num AS BIGINT) AS VARCHAR) ELSE CAST(value_num AS VARCHAR) END)`;

/** The grouped statistics query; groups ordered by bucket then dimensions. */
export function feedbackStatsSql(spec: FeedbackStatsSpec): { sql: string; params: unknown[] } {
  const p = new Params();
  const where = whereClause(p, spec.fromMs, spec.toMs, spec.filters, false);
  const dims = spec.groupBy.map(ident);
  const evCols = [...new Set(['label', ...dims])];
  const groupCols: string[] = [];
  const perReq: string[] = ['ev.request_id'];
  if (spec.stepMs !== undefined) {
    perReq.push(`${bucketSql(p, spec.fromMs, spec.stepMs, 'ev.ts')} AS bucket`);
    groupCols.push('bucket');
  }
  for (const d of dims) {
    perReq.push(`ev.${d} AS ${d}`);
    groupCols.push(d);
  }
  const sql = `
    WITH ev AS (
      SELECT request_id, ts, ${evCols.join(', ')} FROM events
      WHERE ${where} AND request_id IS NOT NULL
      QUALIFY row_number() OVER (PARTITION BY request_id ORDER BY ts) = 1
    ),
    fb AS (
      SELECT request_id, kind, ${FLAG} AS flag, ${NUM} AS num, ${STR} AS str FROM feedback
      WHERE request_id IN (SELECT request_id FROM ev)
      QUALIFY row_number() OVER (PARTITION BY request_id, kind ORDER BY ts DESC, received_at DESC) = 1
    ),
    per_req AS (
      SELECT ${perReq.join(', ')},
        count(fb.kind) AS n_fb,
        max(fb.flag) FILTER (WHERE fb.kind = 'correct') AS correct,
        max(fb.flag) FILTER (WHERE fb.kind = 'thumbs') AS thumbs,
        max(fb.num) FILTER (WHERE fb.kind = 'rating') AS rating,
        max(CASE WHEN fb.str IS NULL THEN NULL WHEN fb.str = ev.label THEN 1.0 ELSE 0.0 END) FILTER (WHERE fb.kind = 'label') AS label_hit,
        max(fb.flag) FILTER (WHERE fb.kind = 'conversion') AS conversion,
        max(fb.flag) FILTER (WHERE fb.kind = 'click') AS click
      FROM ev LEFT JOIN fb ON fb.request_id = ev.request_id
      GROUP BY ALL
    )
    SELECT ${[...groupCols, ''].join(', ')}
      count(*) AS requests,
      count(*) FILTER (WHERE n_fb > 0) AS with_feedback,
      count(correct) AS correct_n, avg(correct) AS correct_rate,
      count(label_hit) AS label_n, avg(label_hit) AS label_accuracy,
      count(thumbs) AS thumbs_n, avg(thumbs) AS thumbs_up_rate,
      count(rating) AS rating_n, avg(rating) AS rating_mean,
      coalesce(sum(conversion), 0) AS conversions, sum(coalesce(conversion, 0)) / count(*) AS conversion_rate,
      coalesce(sum(click), 0) AS clicks, sum(coalesce(click, 0)) / count(*) AS click_rate
    FROM per_req
    ${groupCols.length ? `GROUP BY ${groupCols.join(', ')} ORDER BY ${groupCols.join(', ')}` : ''}
    LIMIT ${p.add(spec.limit)}`;
  return { sql, params: p.values };
}

/** Feedback rows with ts in the range whose request_id has no stored event (yet). */
export function orphanFeedbackSql(fromMs: number, toMs: number): { sql: string; params: unknown[] } {
  const p = new Params();
  const sql = `SELECT count(*) AS n FROM feedback f
    WHERE f.ts >= ${tsParam(p, fromMs)} AND f.ts < ${tsParam(p, toMs)}
      AND NOT EXISTS (SELECT 1 FROM events e WHERE e.request_id = f.request_id)`;
  return { sql, params: p.values };
}

/** Runs both queries and shapes the rows. */
export async function feedbackStats(read: ReadFn, spec: FeedbackStatsSpec): Promise<FeedbackStats> {
  const q = feedbackStatsSql(spec);
  const o = orphanFeedbackSql(spec.fromMs, spec.toMs);
  const [rows, orphanRows] = await Promise.all([read(q.sql, q.params), read(o.sql, o.params)]);
  return toFeedbackStats(spec, rows, Number(orphanRows[0]?.n ?? 0));
}
