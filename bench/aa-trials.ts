/**
 * A/A trials of the release comparer: the same version's traffic split in two by replica, judged
 * many times with different seeds. Prints the share of each verdict (rollback must stay ≤ 5 %)
 * and the time per comparison. Usage: node --import tsx bench/aa-trials.ts [trials] [rowsPerSide]
 */
import { CompareRequestSchema, decode } from '../src/schema/index.ts';
import { createQueries } from '../src/query/index.ts';
import { createComparer } from '../src/release/index.ts';
import { syntheticTraffic } from '../src/release/synthetic-traffic.test-support.ts';
import { createDuckDBStore } from '../src/store/index.ts';

const trials = Number(process.argv[2] ?? 100);
const perSide = Number(process.argv[3] ?? 2000);
const T0 = Date.parse('2026-01-01T00:00:00Z');
const HOUR = 3_600_000;

const store = await createDuckDBStore({ path: ':memory:' });
await store.migrate();
const tIngest = performance.now();
for (let t = 0; t < trials; t++) {
  await store.appendEvents(
    syntheticTraffic({
      seed: 1000 + t,
      n: 2 * perSide,
      fromMs: T0,
      toMs: T0 + HOUR,
      modelVersion: 'v1',
      tenant: `aa-${t}`,
      replicas: ['r1', 'r2'],
      probes: 100,
      idPrefix: `aa-${t}`,
    }),
  );
}
const ingestMs = performance.now() - tIngest;
const comparer = createComparer(createQueries(store));
const counts: Record<string, number> = {};
const worse: Record<string, number> = {};
const tCompare = performance.now();
for (let t = 0; t < trials; t++) {
  const r = await comparer.compare(
    decode(
      CompareRequestSchema,
      {
        baseline: { filters: { model: 'm', model_version: 'v1', replica: 'r1' } },
        candidate: { filters: { model: 'm', model_version: 'v1', replica: 'r2' } },
        from: new Date(T0).toISOString(),
        to: new Date(T0 + HOUR).toISOString(),
        tenant: `aa-${t}`,
      },
      'compare request',
    ),
  );
  counts[r.verdict] = (counts[r.verdict] ?? 0) + 1;
  for (const row of r.evidence) if (row.direction === 'worse') worse[row.metric] = (worse[row.metric] ?? 0) + 1;
}
const compareMs = (performance.now() - tCompare) / trials;
await store.close();
console.log(`A/A: ${trials} trials × ${perSide} requests per side`);
for (const [v, k] of Object.entries(counts)) console.log(`  ${v.padEnd(16)} ${k} (${((100 * k) / trials).toFixed(1)} %)`);
console.log(`  metrics judged worse (trials): ${JSON.stringify(worse)}`);
console.log(`  ingest ${(ingestMs / 1000).toFixed(1)} s, compare ${compareMs.toFixed(0)} ms per trial`);
