/**
 * Reads of the per-minute rollup on ClickHouse (what and why: `../rollup.ts`; the sketch mapping:
 * `../log-sketch.ts`). Materialized views (migrations.ts) fill `rollup_1m_<level>` as rows are
 * inserted, so every stored row is rolled up the moment its insert returns: a read takes the whole
 * minutes of a range from the rollup and only the partial minutes at either end from raw events,
 * merged the same way (sums, sumMap of the status / error maps and of the sketches, min, max).
 *
 * `ROLLUP_SELECT` is the per-minute aggregate of raw events: the same expressions as the model-level
 * materialized view (a test checks that the two agree row for row), used for the raw ends of a read
 * and to rebuild a minute that retention splits.
 */
import type { Filters, LatencyField, QuerySpec } from '../../schema/index.ts';
import { SKETCH_PER_DECADE, ZERO_INDEX, SKETCH_INDEX_EPSILON, sketchBoundIndex } from '../log-sketch.ts';
import { SKETCH_FIELDS, STAT_FIELDS } from '../rollup.ts';
import type { RollupLevel } from '../rollup.ts';
import { Params, W, bucketSql, ident, literal, probeValues, tsParam, whereClause } from './sql.ts';

/** A rollup column: its aggregate over raw events, and how stored rows of it merge. */
interface RollupColumn {
  name: string;
  raw: string;
  merge: 'sum' | 'sumMap' | 'min' | 'max';
}

/** The bucket index of a non-null value (same as `sketchIndex`, or `logBucketIndex` at another resolution). */
export function sketchIndexSql(col: string, perDecade: number = SKETCH_PER_DECADE): string {
  const x = `toFloat64(assumeNotNull(${col}))`;
  return `if(${x} <= 0, ${ZERO_INDEX}, toInt16(ceil(log10(${x}) * ${literal(perDecade)} - ${SKETCH_INDEX_EPSILON})))`;
}

/** The value of bucket index `i` (same as `sketchValue`). */
function sketchValueSql(i: string): string {
  return `if(${i} = ${ZERO_INDEX}, 0., 2 * pow(10, ${i} / ${SKETCH_PER_DECADE}.) / (1 + pow(10, 1 / ${SKETCH_PER_DECADE}.)))`;
}

const float = (f: string) => `toFloat64(${f})`;

export const ROLLUP_COLUMNS: readonly RollupColumn[] = [
  { name: 'n', raw: 'count()', merge: 'sum' },
  { name: 'w', raw: `sum(${W})`, merge: 'sum' },
  { name: 'w_status', raw: `sumIf(${W}, status IS NOT NULL)`, merge: 'sum' },
  { name: 'w_by_status', raw: `sumMapIf(map(assumeNotNull(status), ${W}), status IS NOT NULL)`, merge: 'sumMap' },
  { name: 'w_by_error', raw: `sumMapIf(map(assumeNotNull(error_type), ${W}), status = 'error' AND error_type IS NOT NULL)`, merge: 'sumMap' },
  ...STAT_FIELDS.flatMap((f) => {
    const c = ident(f);
    const cols: RollupColumn[] = [
      { name: `${f}_n`, raw: `count(${c})`, merge: 'sum' },
      { name: `${f}_sum`, raw: `sum(${float(`ifNull(${c}, 0)`)})`, merge: 'sum' },
      { name: `${f}_min`, raw: `min(${float(c)})`, merge: 'min' },
      { name: `${f}_max`, raw: `max(${float(c)})`, merge: 'max' },
    ];
    if ((SKETCH_FIELDS as readonly string[]).includes(f))
      cols.push({ name: `${f}_sketch`, raw: `sumMapIf(map(${sketchIndexSql(c)}, toUInt64(1)), ${c} IS NOT NULL)`, merge: 'sumMap' });
    return cols;
  }),
];
const COLUMN_BY_NAME = new Map(ROLLUP_COLUMNS.map((c) => [c.name, c]));

/** The table of a level (Distributed on a cluster). */
export const rollupTable = (l: RollupLevel) => `rollup_1m_${l.name}`;

/**
 * The model level's rows for the minutes in [fromMs, toMs), from raw events: what the materialized
 * view writes (columns minute, model, model_version, probe, then ROLLUP_COLUMNS).
 */
export function rollupSelectSql(fromMs: number, toMs: number, db: string): { sql: string; params: Record<string, unknown> } {
  const p = new Params();
  const sql = `SELECT toStartOfMinute(ts) AS minute, model, model_version, ifNull(probe, false) AS probe, ${ROLLUP_COLUMNS.map((c) => `${c.raw} AS ${c.name}`).join(', ')}
    FROM ${db}.events WHERE ts >= ${tsParam(p, fromMs)} AND ts < ${tsParam(p, toMs)}
    GROUP BY minute, model, model_version, probe`;
  return { sql, params: p.values };
}

/** The names of the model level's columns, in `rollupSelectSql` order. */
export const ROLLUP_MODEL_COLUMNS = ['minute', 'model', 'model_version', 'probe', ...ROLLUP_COLUMNS.map((c) => c.name)];

/** Filters on a rollup table: level dimensions and the probe flag (the other keys never get here). */
function rollupWhere(p: Params, fromMs: number, toMs: number, filters: Filters, includeProbes: boolean): string {
  const parts = [`minute >= toDateTime(${p.int(fromMs / 1000)}, 'UTC')`, `minute < toDateTime(${p.int(toMs / 1000)}, 'UTC')`];
  for (const [key, value] of Object.entries(filters)) {
    if (value === undefined) continue;
    const list = Array.isArray(value) ? value : [value];
    if (key === 'probe') parts.push(`probe IN (${probeValues(p, list)})`);
    else parts.push(`${ident(key)} IN ${p.add(list, 'Array(String)')}`);
  }
  if (!includeProbes) parts.push('NOT probe');
  return parts.join(' AND ');
}

type Spec = Pick<QuerySpec, 'fromMs' | 'toMs' | 'stepMs' | 'filters' | 'groupBy' | 'includeProbes'>;

/**
 * The merged rows: bucket, group columns, and the named rollup columns merged over the rolled-up
 * minutes [a, b) and the raw rows outside them.
 */
function mergedSql(p: Params, spec: Spec, level: RollupLevel, range: { a: number; b: number }, columns: readonly string[], db: string): string {
  const groups = spec.groupBy.map(ident);
  const g = groups.map((x) => `, ${x}`).join('');
  const single = spec.stepMs === undefined && groups.length === 0;
  const bucket = (col: string) => (spec.stepMs !== undefined ? bucketSql(p, spec.fromMs, spec.stepMs, col) : 'toInt64(0)');
  const cols = columns.map((c) => COLUMN_BY_NAME.get(c)!);
  const rolled = `SELECT ${bucket('minute')} AS bucket${g}, ${cols.map((c) => c.name).join(', ')} FROM ${db}.${rollupTable(level)} WHERE ${rollupWhere(p, range.a, range.b, spec.filters, spec.includeProbes)}`;
  // The head [from, a) and the tail [b, to) as two ranges, so the primary key skips the rest.
  const raw = [
    [spec.fromMs, range.a],
    [range.b, spec.toMs],
  ]
    .filter(([lo, hi]) => hi! > lo!)
    .map(
      ([lo, hi]) =>
        `SELECT ${bucket('ts')} AS bucket${g}, ${cols.map((c) => `${c.raw} AS ${c.name}`).join(', ')} FROM ${db}.events WHERE ${whereClause(p, lo!, hi!, spec.filters, spec.includeProbes)} GROUP BY bucket${g}`,
    );
  const groupBy = single ? '' : `GROUP BY bucket${g}`;
  return `SELECT ${single ? 'toInt64(0)' : 'bucket'} AS bucket${g}, ${cols.map((c) => `${c.merge}(${c.name}) AS ${c.name}`).join(', ')}
    FROM (${[rolled, ...raw].join(' UNION ALL ')}) ${groupBy}`;
}

/** Type-7 quantile q of a merged sketch map (index → rows), as `sketchQuantile`; NULL when empty. */
function sketchQuantileSql(map: string, q: number): string {
  const keys = `arraySort(mapKeys(${map}))`;
  const cum = `arrayCumSum(arraySort((c, k) -> k, mapValues(${map}), mapKeys(${map})))`;
  const total = `arraySum(mapValues(${map}))`;
  const h = `(${literal(q)} * (${total} - 1))`;
  const at = (rank: string) => `${keys}[arrayFirstIndex(x -> x > ${rank}, ${cum})]`;
  const lo = sketchValueSql(at(`floor(${h})`));
  const hi = sketchValueSql(at(`ceil(${h})`));
  return `if(${total} = 0, NULL, ${lo} + (${h} - floor(${h})) * (${hi} - ${lo}))`;
}

/**
 * The aggregate query answered from a level of the rollup plus raw rows outside `range`. Same
 * result columns as `aggregateSql` (bucket, group columns, m0…).
 */
export function rollupAggregateSql(
  spec: QuerySpec,
  level: RollupLevel,
  range: { a: number; b: number },
  db: string,
): { sql: string; params: Record<string, unknown> } {
  const p = new Params();
  const need = new Set<string>(['n']);
  const use = (c: string) => {
    if (!COLUMN_BY_NAME.has(c)) throw new Error(`no rollup column ${c}`);
    need.add(c);
    return c;
  };
  let seconds: () => string;
  if (spec.stepMs !== undefined) seconds = () => p.add(spec.stepMs! / 1000);
  else {
    let placeholder: string | undefined;
    seconds = () => (placeholder ??= p.add((spec.toMs - spec.fromMs) / 1000));
  }
  const exprs = spec.measures.map(({ measure: m }) => {
    switch (m.kind) {
      case 'count':
        return use('w');
      case 'n':
        return use('n');
      case 'qps':
        return `${use('w')} / ${seconds()}`;
      case 'status_rate':
        return `${use('w_by_status')}[${p.add(m.status)}] / nullIf(${use('w_status')}, 0)`;
      case 'error_type_rate':
        return `${use('w_by_error')}[${p.add(m.errorType)}] / nullIf(${use('w_status')}, 0)`;
      case 'agg':
        if (m.fn === 'mean') return `${use(`${m.field}_sum`)} / nullIf(${use(`${m.field}_n`)}, 0)`;
        if (m.fn === 'count') return use(`${m.field}_n`);
        if (m.fn === 'sum') return `if(${use(`${m.field}_n`)} = 0, NULL, ${use(`${m.field}_sum`)})`;
        return use(`${m.field}_${m.fn}`);
      case 'quantile':
        return sketchQuantileSql(use(`${m.field as LatencyField}_sketch`), Number(m.q));
      default:
        throw new Error(`measure ${m.kind} is not kept in the rollup`);
    }
  });
  const groups = spec.groupBy.map(ident);
  const key = [...(spec.stepMs !== undefined ? ['bucket'] : []), ...groups];
  const merged = mergedSql(p, spec, level, range, [...need], db);
  const order = key.length ? `ORDER BY ${key.map((k) => `${k} ASC NULLS LAST`).join(', ')}` : '';
  const sql = `SELECT bucket${groups.map((x) => `, ${x}`).join('')}, ${exprs.map((e, i) => `${e} AS m${i}`).join(', ')} FROM (${merged}) ${order} LIMIT ${p.int(spec.limit)}`;
  return { sql, params: p.values };
}

/**
 * Histogram counts per step bucket from the sketch (bounds must be sketch bounds: see
 * `sketchBoundIndex`), raw rows outside `range` binned on their values. Null when a bound is not a
 * sketch bound or the column has no sketch. Columns: bucket, idx (0…bounds.length), n.
 */
export function rollupHistogramSql(
  spec: { fromMs: number; toMs: number; stepMs: number; filters: Filters; includeProbes: boolean; column: string; boundsMs: readonly number[] },
  level: RollupLevel,
  range: { a: number; b: number },
  db: string,
): { sql: string; params: Record<string, unknown> } | null {
  if (!(SKETCH_FIELDS as readonly string[]).includes(spec.column)) return null;
  const idxBounds = spec.boundsMs.map(sketchBoundIndex);
  if (idxBounds.some((k) => k === undefined)) return null;
  const p = new Params();
  const merged = mergedSql(p, { ...spec, groupBy: [] }, level, range, [`${spec.column}_sketch`], db);
  const n = spec.boundsMs.length;
  const j = `arrayFirstIndex(b -> kv.1 <= b, [${idxBounds.map((k) => literal(k!)).join(', ')}])`;
  const sql = `SELECT bucket, if(${j} = 0, ${n}, ${j} - 1) AS idx, sum(kv.2) AS n
    FROM (${merged}) ARRAY JOIN arrayZip(mapKeys(${spec.column}_sketch), mapValues(${spec.column}_sketch)) AS kv
    GROUP BY bucket, idx ORDER BY bucket`;
  return { sql, params: p.values };
}
