// Writes a simulated fleet into a data directory that `inferlens serve --data DIR/data` opens, and
// its ground truth to DIR/truth.json (DIR/description.json says what the fleet is).
// Usage: node --import tsx bench/fleet/generate.ts --seed 7 --hours 3 --history 2 [--clean] [--scale 1] --out DIR
// Prints one JSON line: { events, resources, incidents, seconds, data, truth }.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { databasePath, loadConfig } from '../../src/config/index.ts';
import { createDuckDBStore } from '../../src/store/index.ts';
import { INCIDENT_KINDS, generateFleet, writeFleet } from './index.ts';
import type { IncidentKind } from './index.ts';

const number =
  (name: string, min: number) =>
  (v: string): number => {
    const n = Number(v);
    if (!Number.isFinite(n) || n < min) throw new InvalidArgumentError(`${name} must be a number ≥ ${min}, got "${v}"`);
    return n;
  };

const kinds = (v: string): IncidentKind[] => {
  const list = v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = list.filter((k) => !(INCIDENT_KINDS as readonly string[]).includes(k));
  if (bad.length > 0) throw new InvalidArgumentError(`unknown incident kind(s) ${bad.join(', ')}: expected any of ${INCIDENT_KINDS.join(', ')}`);
  return list as IncidentKind[];
};

const program = new Command('generate')
  .description('Simulate a fleet of models with incidents and ground truth into an inferlens data directory')
  .requiredOption('--seed <n>', 'seed: the same seed gives the same fleet, traffic and incidents', number('seed', 0))
  .requiredOption('--hours <h>', 'length of the scored range in hours', number('hours', 0.01))
  .option('--history <h>', 'hours of normal traffic before the scored range', number('history', 0), 2)
  .option('--clean', 'the clean twin: the same traffic without incident effects (truth is [])')
  .option('--scale <s>', 'multiplies every rate and capacity (1 ≈ 40 requests/s)', number('scale', 0.001), 1)
  .option('--start <time>', 'start of the scored range (RFC 3339)', '2026-06-01T08:00:00Z')
  .option('--incidents <kinds>', `comma-separated kinds to place once each (default: all ${INCIDENT_KINDS.length})`, kinds)
  .requiredOption('--out <dir>', 'output folder: DIR/data (the data directory), DIR/truth.json, DIR/description.json')
  .parse();

const o = program.opts<{
  seed: number;
  hours: number;
  history: number;
  clean?: boolean;
  scale: number;
  start: string;
  incidents?: IncidentKind[];
  out: string;
}>();
const startMs = Date.parse(o.start);
if (!Number.isFinite(startMs)) program.error(`--start: expected an RFC 3339 time, got "${o.start}"`);

const t0 = performance.now();
const out = resolve(o.out);
const dataDir = join(out, 'data');
mkdirSync(dataDir, { recursive: true });
// The same file `inferlens serve --data DIR/data` opens.
const file = databasePath(loadConfig({ flags: { storage: { dataDir } } }));
const run = generateFleet({ seed: o.seed, hours: o.hours, historyHours: o.history, clean: o.clean === true, scale: o.scale, startMs, incidents: o.incidents });
const store = await createDuckDBStore({ path: file });
try {
  await store.migrate();
  const written = await writeFleet(run, store);
  writeFileSync(join(out, 'truth.json'), JSON.stringify(run.truth, null, 2) + '\n');
  writeFileSync(join(out, 'description.json'), JSON.stringify(run.description, null, 2) + '\n');
  console.log(
    JSON.stringify({
      events: written.events,
      resources: written.resources,
      incidents: run.truth.length,
      seconds: Math.round((performance.now() - t0) / 10) / 100,
      data: dataDir,
      truth: join(out, 'truth.json'),
      from: run.description.scoredStart,
      to: run.description.end,
    }),
  );
} finally {
  await store.close();
}
