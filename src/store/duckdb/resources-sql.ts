/**
 * Resource samples (DuckDB): staged as NDJSON and loaded with DuckDB's reader; read per step by
 * their own fields and labels (a label's name is user data, so it is only ever a bound parameter).
 */
import { rmSync } from 'node:fs';
import { InferlensError, tsMillis } from '../../schema/index.ts';
import type { ResourceSample } from '../../schema/index.ts';
import { resourceLabelOf } from '../store.ts';
import type { ResourceField, ResourceQuerySpec, ResourceRow } from '../store.ts';
import { Params, bucketSql, tsParam } from './sql.ts';
import type { ReadFn, StagedWriter } from './sql.ts';

export async function appendResources(w: StagedWriter, samples: readonly ResourceSample[]): Promise<void> {
  if (samples.length === 0) return;
  const lines = samples.map((s) =>
    JSON.stringify({
      ts: tsMillis(s.ts),
      node: s.node,
      replica: s.replica ?? null,
      gpu: s.gpu ?? null,
      pool: s.pool ?? null,
      metric: s.metric,
      labels: s.labels ?? null,
      value: s.value,
      simulated: s.simulated ?? false,
    }),
  );
  const file = w.stageFile(lines);
  try {
    await w.run(
      `INSERT INTO resources (ts, node, replica, gpu, pool, metric, labels, value, simulated) SELECT make_timestamp(CAST(ts * 1000 AS BIGINT)), node, replica, gpu, pool, metric, labels, value, simulated
       FROM read_ndjson($1, columns={ts: 'DOUBLE', node: 'VARCHAR', replica: 'VARCHAR', gpu: 'VARCHAR', pool: 'VARCHAR', metric: 'VARCHAR', labels: 'MAP(VARCHAR, VARCHAR)', value: 'DOUBLE', simulated: 'BOOLEAN'}, format='newline_delimited')`,
      [file],
    );
  } finally {
    rmSync(file, { force: true });
  }
}

export async function resources(read: ReadFn, spec: ResourceQuerySpec): Promise<ResourceRow[]> {
  const p = new Params();
  const parts = [`ts >= ${tsParam(p, spec.fromMs)}`, `ts < ${tsParam(p, spec.toMs)}`, `metric IN (${spec.metrics.map((m) => p.add(m)).join(', ')})`];
  const inList = (v: string | readonly string[]) => (typeof v === 'string' ? [v] : v).map((x) => p.add(x)).join(', ');
  for (const [k, v] of Object.entries(spec.filters)) {
    if (v === undefined) continue;
    if (k === 'labels') {
      // A sample's own labels: `labels[$k]` is NULL where the sample has no such label.
      for (const [lk, lv] of Object.entries(v as Record<string, string | readonly string[]>)) parts.push(`labels[${p.add(lk)}] IN (${inList(lv)})`);
      continue;
    }
    parts.push(`${resourceColumn(k)} IN (${inList(v as string | readonly string[])})`);
  }
  // Group keys: sample fields by name, labels as l0, l1, … (their names are user data, never SQL).
  const groups = spec.groupBy.map((g, i) => {
    const label = resourceLabelOf(g);
    return label === undefined ? { key: g, sql: resourceColumn(g), alias: g } : { key: g, label, sql: `labels[${p.add(label)}]`, alias: `l${i}` };
  });
  const rows = await read(
    `SELECT ${bucketSql(p, spec.fromMs, spec.stepMs)} AS bucket, metric${groups.map((g) => `, ${g.sql} AS ${g.alias}`).join('')},
            avg(value) AS avg, max(value) AS max, sum(value) AS sum, count(*) AS n, bool_or(coalesce(simulated, false)) AS simulated
     FROM resources WHERE ${parts.join(' AND ')} GROUP BY ALL ORDER BY bucket LIMIT 100000`,
    p.values,
  );
  return rows.map((r) => {
    const out: ResourceRow = {
      bucketMs: r.bucket as number,
      metric: r.metric as string,
      avg: r.avg as number,
      max: r.max as number,
      sum: r.sum as number,
      n: r.n as number,
      simulated: Boolean(r.simulated),
    };
    for (const g of groups) {
      if (g.label === undefined) out[g.key as ResourceField] = r[g.alias] as string | null;
      else (out.labels ??= {})[g.label] = r[g.alias] as string | null;
    }
    return out;
  });
}

function resourceColumn(c: string): string {
  if (c !== 'node' && c !== 'replica' && c !== 'gpu' && c !== 'pool') throw new InferlensError('invalid_argument', `unknown resource label "${c}"`);
  return c;
}
