/**
 * SQL of the per-minute rollup (what and why: `../rollup.ts`; the histogram mapping:
 * `../log-sketch.ts`). Per level two tables: `rollup_1m_<level>` (counts, weights, n/Σ/min/max
 * per field) and `rollup_1m_<level>_sketch` (minute × key × field × bucket index → rows), plus
 * `rollup_state` holding the watermark: every minute before it is rolled up at every level.
 *
 * Reads take the rolled-up minutes of a range from the rollup and everything else (the open tail,
 * partial minutes at either end) from raw events, in one statement, merged the same way.
 */
import type { Filters, QuerySpec } from '../../schema/index.ts';
import { InferlensError } from '../../schema/index.ts';
import { SKETCH_INDEX_EPSILON, SKETCH_PER_DECADE, ZERO_INDEX, sketchBoundIndex } from '../log-sketch.ts';
import { ROLLUP_ERROR_TYPES, ROLLUP_LEVELS, ROLLUP_STATUSES, ROLLUP_STEP_MS, SKETCH_FIELD_CODES, SKETCH_FIELDS, STAT_FIELDS } from '../rollup.ts';
import type { LatencyField } from '../../schema/index.ts';
import type { RollupLevel } from '../rollup.ts';
import { Params, bucketSql, ident, tsParam, whereClause } from './sql.ts';

const W = 'coalesce(sample_weight, 1)';

/** A rollup column: its type, its value for one raw event, and how minutes merge. */
interface RollupColumn {
  name: string;
  type: string;
  row: string;
  merge: 'sum' | 'min' | 'max';
}

export const ROLLUP_COLUMNS: readonly RollupColumn[] = [
  { name: 'n', type: 'BIGINT', row: '1', merge: 'sum' },
  { name: 'w', type: 'DOUBLE', row: W, merge: 'sum' },
  { name: 'w_status', type: 'DOUBLE', row: `CASE WHEN status IS NOT NULL THEN ${W} ELSE 0 END`, merge: 'sum' },
  ...ROLLUP_STATUSES.map((s) => ({ name: `w_${s}`, type: 'DOUBLE', row: `CASE WHEN status = '${s}' THEN ${W} ELSE 0 END`, merge: 'sum' as const })),
  ...ROLLUP_ERROR_TYPES.map((t) => ({
    name: `w_err_${t}`,
    type: 'DOUBLE',
    row: `CASE WHEN status = 'error' AND error_type = '${t}' THEN ${W} ELSE 0 END`,
    merge: 'sum' as const,
  })),
  ...STAT_FIELDS.flatMap((f) => [
    { name: `${f}_n`, type: 'BIGINT', row: `CASE WHEN ${ident(f)} IS NOT NULL THEN 1 ELSE 0 END`, merge: 'sum' as const },
    { name: `${f}_sum`, type: 'DOUBLE', row: ident(f), merge: 'sum' as const },
    { name: `${f}_min`, type: 'DOUBLE', row: ident(f), merge: 'min' as const },
    { name: `${f}_max`, type: 'DOUBLE', row: ident(f), merge: 'max' as const },
  ]),
];
const COLUMN_BY_NAME = new Map(ROLLUP_COLUMNS.map((c) => [c.name, c]));

export const statsTable = (l: RollupLevel) => `rollup_1m_${l.name}`;

/**
 * Whether a level keeps its latency sketch here. Only "all" does: at (model, version) a minute of
 * a key holds ~280 rows of the benchmark and its sketch ~80 buckets per field, so the sketch was
 * nearly as large as the rows (1.97 M bucket rows, 4.7 MB, per 1 M events) and slower to read:
 * the dashboard's per-minute P50/P95/P99 by model × version took 1.2–1.3 s from it against
 * 0.20–0.23 s exact from raw rows (ARCHITECTURE.md, issue 17). Quantiles and histograms at that
 * level are answered exactly from raw rows (`approxAggregate` answers null); its counts, rates and
 * n/Σ/min/max still come from `rollup_1m_model`. The table stays (frozen migrations), empty once
 * older minutes are rebuilt or cut by retention. ClickHouse keeps its sketches (sumMap, merged by
 * the engine on insert).
 */
export const hasSketch = (l: RollupLevel): boolean => l.name === 'all';
export const sketchTable = (l: RollupLevel) => `rollup_1m_${l.name}_sketch`;

/** The bucket index of a column's value (same as `sketchIndex`, or `logBucketIndex` at another resolution). */
export function sketchIndexSql(col: string, perDecade: number = SKETCH_PER_DECADE): string {
  return `CASE WHEN ${col} <= 0 THEN ${ZERO_INDEX} ELSE CAST(ceil(log10(${col}) * ${Number(perDecade)} - ${SKETCH_INDEX_EPSILON}) AS SMALLINT) END`;
}

/** The value of bucket index `i` (same as `sketchValue`). */
function sketchValueSql(i: string): string {
  return `CASE WHEN ${i} = ${ZERO_INDEX} THEN 0.0 ELSE 2 * pow(10, ${i} / ${SKETCH_PER_DECADE}.0) / (1 + pow(10, 1 / ${SKETCH_PER_DECADE}.0)) END`;
}

const MINUTE = `time_bucket(INTERVAL 1 minute, ts)`;

/**
 * Statements that (re)build every level for the minutes in [fromMs, toMs) (both whole minutes):
 * delete what is there, the finest level's counters from raw events and the coarser ones' from
 * them, the sketch of each level that keeps one (`hasSketch`) from raw events.
 */
export function rebuildSql(fromMs: number, toMs: number): { sql: string; params: unknown[] }[] {
  const out: { sql: string; params: unknown[] }[] = [];
  const range = (col: string) => {
    const p = new Params();
    return { p, where: `${col} >= ${tsParam(p, fromMs)} AND ${col} < ${tsParam(p, toMs)}` };
  };
  for (const l of ROLLUP_LEVELS) {
    for (const t of [statsTable(l), sketchTable(l)]) {
      const { p, where } = range('minute');
      out.push({ sql: `DELETE FROM ${t} WHERE ${where}`, params: p.values });
    }
  }
  const [finest, ...coarser] = ROLLUP_LEVELS as [RollupLevel, ...RollupLevel[]];
  const dims = (l: RollupLevel) => l.dims.map((d) => `${ident(d)}, `).join('');
  const statCols = (l: RollupLevel) => `(minute, ${dims(l)}probe, ${ROLLUP_COLUMNS.map((c) => c.name).join(', ')})`;
  const sketchCols = (l: RollupLevel) => `(minute, ${dims(l)}probe, field, idx, n)`;
  const sketchOrder = (l: RollupLevel) => `${dims(l)}probe, field, minute, idx`;
  {
    const { p, where } = range('ts');
    out.push({
      sql: `INSERT INTO ${statsTable(finest)} ${statCols(finest)} SELECT ${MINUTE} AS minute, ${dims(finest)}coalesce(probe, false) AS probe, ${ROLLUP_COLUMNS.map((c) => `${c.merge}(${c.row})`).join(', ')}
            FROM events WHERE ${where} GROUP BY ALL ORDER BY minute`,
      params: p.values,
    });
  }
  for (const l of ROLLUP_LEVELS.filter(hasSketch)) {
    const { p, where } = range('ts');
    const parts = SKETCH_FIELDS.map(
      (f) =>
        `SELECT ${MINUTE} AS minute, ${dims(l)}coalesce(probe, false) AS probe, ${SKETCH_FIELD_CODES[f]} AS field, ${sketchIndexSql(ident(f))} AS idx FROM events WHERE ${where} AND ${ident(f)} IS NOT NULL`,
    );
    // The range parameters are shared by every part (same placeholders). Sorted by key, then
    // minute and bucket: runs of one key compress smaller than minute order (14 % when the
    // (model, version) level kept a sketch).
    out.push({
      sql: `INSERT INTO ${sketchTable(l)} ${sketchCols(l)} SELECT minute, ${dims(l)}probe, field, idx, count(*) FROM (${parts.join(' UNION ALL ')}) GROUP BY ALL ORDER BY ${sketchOrder(l)}`,
      params: p.values,
    });
  }
  for (const l of coarser) {
    const s = range('minute');
    out.push({
      sql: `INSERT INTO ${statsTable(l)} ${statCols(l)} SELECT minute, ${dims(l)}probe, ${ROLLUP_COLUMNS.map((c) => `${c.merge}(${c.name})`).join(', ')} FROM ${statsTable(finest)} WHERE ${s.where} GROUP BY ALL ORDER BY minute`,
      params: s.p.values,
    });
  }
  return out;
}

/** Deletes every level's minutes before `beforeMs` (a whole minute). */
export function deleteRollupSql(beforeMs: number): { sql: string; params: unknown[] }[] {
  return ROLLUP_LEVELS.flatMap((l) =>
    [statsTable(l), sketchTable(l)].map((t) => {
      const p = new Params();
      return { sql: `DELETE FROM ${t} WHERE minute < ${tsParam(p, beforeMs)}`, params: p.values };
    }),
  );
}

/** Filters on a rollup table: level dimensions and the probe flag (the other keys never get here). */
function rollupWhere(p: Params, fromMs: number, toMs: number, filters: Filters, includeProbes: boolean): string {
  const parts = [`minute >= ${tsParam(p, fromMs)}`, `minute < ${tsParam(p, toMs)}`];
  for (const [key, value] of Object.entries(filters)) {
    if (value === undefined) continue;
    const list = Array.isArray(value) ? value : [value];
    if (key === 'probe') {
      const bools = list.map((v) => {
        if (v !== 'true' && v !== 'false') throw new InferlensError('invalid_argument', `filters.probe: expected 'true' or 'false', got "${v}"`);
        return p.add(v === 'true');
      });
      parts.push(`probe IN (${bools.join(', ')})`);
      continue;
    }
    parts.push(`${ident(key)} IN (${list.map((v) => p.add(v)).join(', ')})`);
  }
  if (!includeProbes) parts.push('NOT probe');
  return parts.join(' AND ');
}

/** The minute-aligned part of [fromMs, toMs) that the rollup covers, or null when none. */
export function rolledUpRange(fromMs: number, toMs: number, watermarkMs: number | null): { a: number; b: number } | null {
  if (watermarkMs === null) return null;
  const a = Math.ceil(fromMs / ROLLUP_STEP_MS) * ROLLUP_STEP_MS;
  const b = Math.min(Math.floor(toMs / ROLLUP_STEP_MS) * ROLLUP_STEP_MS, watermarkMs);
  return b > a ? { a, b } : null;
}

interface Parts {
  p: Params;
  /** Rows of the rollup table, filtered, with `bucket` and the group columns first. */
  rolled: (table: string, cols: string) => string;
  /** Raw rows outside the rolled-up minutes, same shape. */
  raw: (cols: string, extraWhere?: string) => string;
  groups: string[];
}

function parts(spec: Pick<QuerySpec, 'fromMs' | 'toMs' | 'stepMs' | 'filters' | 'groupBy' | 'includeProbes'>, range: { a: number; b: number }): Parts {
  const p = new Params();
  const groups = spec.groupBy.map(ident);
  const g = groups.map((x) => `, ${x}`).join('');
  const bucket = (col: string) => (spec.stepMs !== undefined ? bucketSql(p, spec.fromMs, spec.stepMs, col) : '0');
  return {
    p,
    groups,
    rolled: (table, cols) =>
      `SELECT ${bucket('minute')} AS bucket${g}, ${cols} FROM ${table} WHERE ${rollupWhere(p, range.a, range.b, spec.filters, spec.includeProbes)}`,
    // The head [from, a) and the tail [b, to) as two constant ranges, so zone maps skip the rest.
    raw: (cols, extraWhere) =>
      [
        [spec.fromMs, range.a],
        [range.b, spec.toMs],
      ]
        .filter(([lo, hi]) => hi! > lo!)
        .map(
          ([lo, hi]) =>
            `SELECT ${bucket('ts')} AS bucket${g}, ${cols} FROM events WHERE ${whereClause(p, lo!, hi!, spec.filters, spec.includeProbes)}${extraWhere ? ` AND ${extraWhere}` : ''}`,
        )
        .join(' UNION ALL ') || `SELECT ${bucket('ts')} AS bucket${g}, ${cols} FROM events WHERE false`,
  };
}

/** Merged-column expression of one measure (quantiles come from the sketch part). */
function mergedMeasure(m: QuerySpec['measures'][number]['measure'], p: Params, seconds: () => string, need: Set<string>): string | null {
  const use = (c: string) => {
    if (!COLUMN_BY_NAME.has(c)) throw new Error(`no rollup column ${c}`);
    need.add(c);
    return c;
  };
  switch (m.kind) {
    case 'count':
      return `sum(${use('w')})`;
    case 'n':
      return `sum(${use('n')})`;
    case 'qps':
      return `sum(${use('w')}) / ${seconds()}`;
    case 'status_rate':
      return `coalesce(sum(${use(`w_${m.status}`)}), 0) / nullif(sum(${use('w_status')}), 0)`;
    case 'error_type_rate':
      return `coalesce(sum(${use(`w_err_${m.errorType}`)}), 0) / nullif(sum(${use('w_status')}), 0)`;
    case 'agg':
      if (m.fn === 'mean') return `sum(${use(`${m.field}_sum`)}) / nullif(sum(${use(`${m.field}_n`)}), 0)`;
      if (m.fn === 'count') return `coalesce(sum(${use(`${m.field}_n`)}), 0)`;
      return `${m.fn}(${use(`${m.field}_${m.fn}`)})`;
    case 'quantile':
      return null;
    default:
      throw new Error(`measure ${m.kind} is not kept in the rollup`);
  }
}

/**
 * The aggregate query answered from a level of the rollup plus raw rows outside `range`. Same
 * result columns as `aggregateSql` (bucket, group columns, m0…).
 */
export function rollupAggregateSql(spec: QuerySpec, level: RollupLevel, range: { a: number; b: number }): { sql: string; params: unknown[] } {
  const { p, rolled, raw, groups } = parts(spec, range);
  let seconds: () => string;
  if (spec.stepMs !== undefined) {
    const stepS = spec.stepMs / 1000;
    seconds = () => `(${p.add(stepS)})`;
  } else {
    let placeholder: string | undefined;
    seconds = () => `(${(placeholder ??= p.add(spec.toMs - spec.fromMs))} / 1000.0)`;
  }
  const need = new Set<string>(['n']);
  const merged = spec.measures.map(({ measure }) => mergedMeasure(measure, p, seconds, need));
  const cols = [...need];
  const key = ['bucket', ...groups];
  // Without step and group-by the exact query answers one row even when no row matches: so here.
  const single = spec.stepMs === undefined && groups.length === 0;
  const groupBy = single ? '' : `GROUP BY ${key.join(', ')}`;
  const units = `${rolled(statsTable(level), cols.join(', '))} UNION ALL ${raw(cols.map((c) => `${COLUMN_BY_NAME.get(c)!.row} AS ${c}`).join(', '))}`;
  const countSel = merged.map((e, i) => (e ? `${e} AS m${i}` : null)).filter((x): x is string => x !== null);
  const quantiles = spec.measures.map(({ measure }, i) => ({ i, measure })).filter((x) => x.measure.kind === 'quantile') as {
    i: number;
    measure: { kind: 'quantile'; q: number; field: string };
  }[];
  let sql: string;
  if (quantiles.length === 0) {
    sql = `SELECT ${[single ? '0 AS bucket' : key.join(', '), ...countSel].join(', ')} FROM (${units}) ${groupBy}`;
  } else {
    const fields = [...new Set(quantiles.map((x) => x.measure.field as LatencyField))];
    const codes = fields.map((f) => SKETCH_FIELD_CODES[f]);
    const rawSketch = fields.map((f) => raw(`${SKETCH_FIELD_CODES[f]} AS field, ${sketchIndexSql(ident(f))} AS idx, 1 AS n`, `${ident(f)} IS NOT NULL`));
    const sketchUnits = [rolled(sketchTable(level), 'field, idx, n') + ` AND field IN (${codes.join(', ')})`, ...rawSketch].join(' UNION ALL ');
    const part = [...key, 'field'].join(', ');
    const qExpr = (q: number) => {
      const h = `(${q} * (total - 1))`;
      const lo = sketchValueSql(`min(idx) FILTER (WHERE cum > floor(${h}))`);
      const hi = sketchValueSql(`min(idx) FILTER (WHERE cum > ceil(${h}))`);
      return `${lo} + (any_value(${h}) - floor(any_value(${h}))) * (${hi} - ${lo})`;
    };
    const join = key.map((k) => `c.${k} IS NOT DISTINCT FROM qp.${k}`).join(' AND ');
    sql = `WITH c AS (SELECT ${[single ? '0 AS bucket' : key.join(', '), ...countSel].join(', ')} FROM (${units}) ${groupBy}),
      sk AS (SELECT ${part}, idx, sum(n) AS c FROM (${sketchUnits}) GROUP BY ALL),
      cu AS (SELECT *, sum(c) OVER (PARTITION BY ${part} ORDER BY idx ROWS UNBOUNDED PRECEDING) AS cum, sum(c) OVER (PARTITION BY ${part}) AS total FROM sk),
      qv AS (SELECT ${part}, ${quantiles.map(({ i, measure }) => `CASE WHEN field = ${SKETCH_FIELD_CODES[measure.field as LatencyField]} THEN ${qExpr(Number(measure.q))} END AS m${i}`).join(', ')} FROM cu GROUP BY ${part}),
      qp AS (SELECT ${single ? '0 AS bucket' : key.join(', ')}, ${quantiles.map(({ i }) => `max(m${i}) AS m${i}`).join(', ')} FROM qv ${groupBy})
      SELECT ${[...key.map((k) => `c.${k}`), ...spec.measures.map((_, i) => (merged[i] ? `c.m${i}` : `qp.m${i}`))].join(', ')}
      FROM c LEFT JOIN qp ON ${join}`;
  }
  const order = spec.stepMs !== undefined || groups.length ? `ORDER BY ${[...(spec.stepMs !== undefined ? ['bucket'] : []), ...groups].join(', ')}` : '';
  return { sql: `SELECT * FROM (${sql}) ${order} LIMIT ${p.add(spec.limit)}`, params: p.values };
}

/**
 * Histogram counts per step bucket from the sketch (bounds must be sketch bounds: see
 * `sketchBoundIndex`), raw rows outside `range` binned on their values. Null when a bound is not a
 * sketch bound. Columns: bucket, idx (0…bounds.length), n.
 */
export function rollupHistogramSql(
  spec: { fromMs: number; toMs: number; stepMs: number; filters: Filters; includeProbes: boolean; column: string; boundsMs: readonly number[] },
  level: RollupLevel,
  range: { a: number; b: number },
): { sql: string; params: unknown[] } | null {
  const code = SKETCH_FIELD_CODES[spec.column as LatencyField];
  if (code === undefined) return null;
  const idxBounds = spec.boundsMs.map(sketchBoundIndex);
  if (idxBounds.some((k) => k === undefined)) return null;
  const { p, rolled, raw } = parts({ ...spec, groupBy: [] }, range);
  const col = ident(spec.column);
  const fromSketch = idxBounds.map((k, i) => `WHEN idx <= ${k} THEN ${i}`).join(' ');
  const fromValue = spec.boundsMs.map((b, i) => `WHEN ${col} <= ${Number(b)} THEN ${i}`).join(' ');
  const n = spec.boundsMs.length;
  const sql = `SELECT bucket, hidx AS idx, sum(n) AS n FROM (
      SELECT bucket, CASE ${fromSketch} ELSE ${n} END AS hidx, n FROM (${rolled(sketchTable(level), 'idx, n')} AND field = ${code})
      UNION ALL
      SELECT bucket, hidx, 1 AS n FROM (${raw(`CASE ${fromValue} ELSE ${n} END AS hidx`, `${col} IS NOT NULL`)})
    ) GROUP BY ALL ORDER BY bucket`;
  return { sql, params: p.values };
}
