/**
 * Reads of raw events (DuckDB): histograms, bucket counts, slice counts, listings, distinct
 * dimension values. The aggregate query is in sql.ts, the rollup's in rollup-sql.ts.
 */
import { InferlensError } from '../../schema/index.ts';
import type { Dimension, StoredEvent } from '../../schema/index.ts';
import type { BucketCountRow, BucketCountSpec, HistogramRow, HistogramSpec, ListSpec, SliceCount, SliceCountSpec } from '../store.ts';
import { SKETCH_INDEX_EPSILON } from '../log-sketch.ts';
import { sliceGroupingSets, toBucketCountRows, toHistogramRows, toSliceCounts } from '../result-rows.ts';
import { EVENT_COLUMNS } from './ddl.ts';
import { sketchIndexSql } from './rollup-sql.ts';
import { Params, bucketSql, ident, whereClause } from './sql.ts';
import type { ReadFn } from './sql.ts';
import type { Row } from '../result-rows.ts';

export async function histogram(read: ReadFn, spec: HistogramSpec): Promise<HistogramRow[]> {
  const p = new Params();
  const col = ident(spec.column);
  const where = whereClause(p, spec.fromMs, spec.toMs, spec.filters, spec.includeProbes);
  const cases = spec.boundsMs.map((b, i) => `WHEN ${col} <= ${Number(b)} THEN ${i}`).join(' ');
  const rows = await read(
    `SELECT ${bucketSql(p, spec.fromMs, spec.stepMs)} AS bucket,
            CASE ${cases} ELSE ${spec.boundsMs.length} END AS idx, count(*) AS n
     FROM events WHERE ${where} AND ${col} IS NOT NULL GROUP BY ALL ORDER BY bucket`,
    p.values,
  );
  return toHistogramRows(spec, rows);
}

export async function bucketCounts(read: ReadFn, spec: BucketCountSpec): Promise<BucketCountRow[]> {
  const p = new Params();
  const col = ident(spec.column);
  const dims = spec.groupBy.map(ident);
  const index =
    'perDecade' in spec.buckets
      ? sketchIndexSql(col, spec.buckets.perDecade)
      : `CAST(floor(${col} / ${p.add(spec.buckets.width)} + ${SKETCH_INDEX_EPSILON}) AS INTEGER)`;
  const where = whereClause(p, spec.fromMs, spec.toMs, spec.filters, spec.includeProbes);
  // One row per step and slice, its buckets as two lists (the counts bounded by the limit first).
  const rows = await read(
    `WITH c AS (SELECT ${bucketSql(p, spec.fromMs, spec.stepMs)} AS bucket, ${dims.map((d) => `${d}, `).join('')}${index} AS idx, count(*) AS n
       FROM events WHERE ${where} AND ${col} IS NOT NULL GROUP BY ALL LIMIT ${p.add(spec.limit + 1)})
     SELECT bucket, ${dims.map((d) => `${d}, `).join('')}list(CAST(idx AS INTEGER) ORDER BY idx) AS idx, list(CAST(n AS DOUBLE) ORDER BY idx) AS n
     FROM c GROUP BY ALL ORDER BY bucket`,
    p.values,
  );
  return toBucketCountRows(spec, dims, rows);
}

export async function sliceCounts(read: ReadFn, spec: SliceCountSpec): Promise<SliceCount[]> {
  const p = new Params();
  const where = whereClause(p, spec.fromMs, spec.toMs, spec.filters, spec.includeProbes);
  const dims = spec.dimensions.map(ident);
  let bad: string;
  if ('statuses' in spec.bad) bad = `status IN (${spec.bad.statuses.map((s) => p.add(s)).join(', ')})`;
  else bad = `${ident(spec.bad.column)} > ${p.add(spec.bad.aboveMs)}`;
  const sets = sliceGroupingSets(dims, spec.pairs);
  // Two stages: one pass over the rows to the distinct dimension combinations (36,000 per hour
  // of 1.67 M rows on the dashboard benchmark), then the grouping sets over those. Exact, and
  // 4× faster than the grouping sets over the rows (0.34 s against 1.46 s).
  const cols = dims.map((d) => `coalesce(${d}, '(none)') AS ${d}`).join(', ');
  const f = spec.sampleFraction;
  const sample = f !== undefined && f > 0 && f < 1 ? ` TABLESAMPLE ${(f * 100).toFixed(4)}% (system, 7)` : '';
  const rows = await read(
    `WITH base AS (SELECT ${cols}${dims.length ? ',' : ''} sum(coalesce(sample_weight, 1)) AS n,
             sum(CASE WHEN coalesce(${bad}, false) THEN coalesce(sample_weight, 1) ELSE 0 END) AS k FROM events${sample} WHERE ${where} GROUP BY ALL)
     SELECT ${dims.map((d) => `${d}, grouping(${d}) AS g_${d}`).join(', ')}${dims.length ? ',' : ''} sum(n) AS n, sum(k) AS k
     FROM base GROUP BY GROUPING SETS (${sets.join(', ')})
     HAVING sum(n) >= ${p.add(spec.minSupport)} OR ${dims.length ? dims.map((d) => `grouping(${d}) = 1`).join(' AND ') : 'true'}`,
    p.values,
  );
  return toSliceCounts(dims, rows);
}

export async function listEvents(read: ReadFn, spec: ListSpec): Promise<StoredEvent[]> {
  const p = new Params();
  let where = whereClause(p, spec.fromMs, spec.toMs, spec.filters, spec.includeProbes ?? true);
  if (spec.minValue) where += ` AND ${ident(spec.minValue.column)} >= ${p.add(spec.minValue.value)}`;
  const cols = spec.columns ? spec.columns.filter((c) => c !== 'ts').map(columnName) : undefined;
  const order = spec.order === 'sample' ? 'hash(request_id, ts)' : `ts ${spec.order === 'ts_asc' ? 'ASC' : 'DESC'}`;
  const perSlice = spec.perSlice
    ? ` QUALIFY row_number() OVER (PARTITION BY ${spec.perSlice.by.map(ident).join(', ') || '1'} ORDER BY ${order}) <= ${p.add(spec.perSlice.limit)}`
    : '';
  const rows = await read(`SELECT ${selectEventColumns(cols)} FROM events WHERE ${where}${perSlice} ORDER BY ${order} LIMIT ${p.add(spec.limit)}`, p.values);
  return rows.map(toStoredEvent);
}

export async function getEvents(read: ReadFn, requestId: string): Promise<StoredEvent[]> {
  const rows = await read(`SELECT ${selectEventColumns()} FROM events WHERE request_id = $1 ORDER BY ts LIMIT 100`, [requestId]);
  return rows.map(toStoredEvent);
}

export async function distinctValues(read: ReadFn, dimension: Dimension, fromMs: number, toMs: number, limit: number): Promise<string[]> {
  const p = new Params();
  const col = ident(dimension);
  const where = whereClause(p, fromMs, toMs, {}, true);
  const rows = await read(
    `SELECT ${col} AS v, count(*) AS n FROM events WHERE ${where} AND ${col} IS NOT NULL GROUP BY 1 ORDER BY n DESC, v LIMIT ${p.add(limit)}`,
    p.values,
  );
  return rows.map((r) => r.v as string);
}

const EVENT_COLUMN_NAMES: ReadonlySet<string> = new Set(EVENT_COLUMNS.map((c) => c.name));
function columnName(c: string): string {
  if (!EVENT_COLUMN_NAMES.has(c)) throw new InferlensError('invalid_argument', `unknown event column "${c}"`);
  return c;
}

const MAP_COLUMNS: ReadonlySet<string> = new Set(EVENT_COLUMNS.filter((c) => c.kind === 'attributes' || c.kind === 'features').map((c) => c.name));

function selectEventColumns(cols?: readonly string[]): string {
  const names = cols ?? EVENT_COLUMNS.map((c) => c.name).filter((c) => c !== 'ts');
  return ['epoch_ms(ts) AS ts', ...names.map((c) => (MAP_COLUMNS.has(c) ? `CAST(to_json(${c}) AS VARCHAR) AS ${c}` : c))].join(', ');
}

function toStoredEvent(r: Row): StoredEvent {
  const out: Record<string, unknown> = {};
  for (const k in r) {
    const v = r[k];
    if (k === 'ts') out.ts = new Date(v as number).toISOString();
    else if (MAP_COLUMNS.has(k)) out[k] = v == null ? null : JSON.parse(v as string);
    else out[k] = v;
  }
  return out as StoredEvent;
}
