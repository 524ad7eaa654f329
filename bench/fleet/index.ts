/**
 * The fleet simulator's public surface: a seeded fleet that the alert rules were never tuned on,
 * its incident catalogue with ground truth, and a writer through the Store seam.
 *
 *   const run = generateFleet({ seed: 7, hours: 3, historyHours: 2 });
 *   await writeFleet(run, store);            // or: for (const b of run.batches()) …
 *   run.truth                                // [{ id, kind, slice, start, end, detail }]
 *
 * `clean: true` gives the identical traffic and resources minus the incident effects.
 */
import { setImmediate } from 'node:timers';
import type { Store } from '../../src/store/index.ts';
import type { Fleet, FleetShape, ModelType, VersionRole } from './fleet.ts';
import { BASE_RATE_PER_S, DEFAULT_SHAPE, buildFleet } from './fleet.ts';
import type { Incident, IncidentKind, TruthIncident } from './incidents.ts';
import { INCIDENT_KINDS, planIncidents } from './incidents.ts';
import type { FleetBatch } from './simulate.ts';
import { simulate } from './simulate.ts';

export { INCIDENT_KINDS } from './incidents.ts';
export type { IncidentKind, TruthIncident, SliceKey } from './incidents.ts';
export type { FleetBatch } from './simulate.ts';
export type { ModelType, VersionRole, FleetShape } from './fleet.ts';

/** 2026-06-01T08:00:00Z: the default start of the scored range (no dependence on today's date). */
export const DEFAULT_START_MS = Date.UTC(2026, 5, 1, 8, 0, 0);

export interface FleetOptions {
  seed: number;
  /** Length of the scored range, hours (fractions allowed). */
  hours: number;
  /** Normal traffic before the scored range, hours (default 2). Never holds an incident. */
  historyHours?: number;
  /** The clean twin: same traffic and resources, no incident effects, empty truth. */
  clean?: boolean;
  /** Multiplies every rate and capacity (default 1: ~40 requests/s). */
  scale?: number;
  /** Start of the scored range, epoch ms (default 2026-06-01T08:00:00Z); history precedes it. */
  startMs?: number;
  /** Incident kinds to place, once per entry (default: each of the fourteen once). */
  incidents?: readonly IncidentKind[];
  /** Fleet size (default 6 classifiers, 5 rankers, 6 generative models, 60 tenants, 4 entries). */
  shape?: Partial<FleetShape>;
  /** Events per batch (default 100,000: fewer, larger appends cost the store less CPU). */
  batchRows?: number;
}

/** What a run contains, for a person or a scorer (names only; no effect parameters). */
export interface FleetDescription {
  seed: number;
  scale: number;
  clean: boolean;
  historyStart: string;
  scoredStart: string;
  end: string;
  /** Mean user requests/s the fleet is built for (probes excluded). */
  targetRequestsPerS: number;
  models: {
    name: string;
    type: ModelType;
    share: number;
    baseErrorRate: number;
    pool: string;
    timeoutMs: number;
    labels: string[];
    tenants: string[];
    versions: { name: string; role: VersionRole; route: string; canaryShare: number; latencyFactor: number; replicas: string[]; pinnedTenants: string[] }[];
  }[];
  tenants: { name: string; tier: string }[];
  entries: { name: string; ingressMs: number }[];
  nodes: { name: string; pool: string; gpus: number }[];
  replicas: { name: string; model: string; version: string; node: string; gpu: string; pool: string }[];
  /** Tenants persistently sending bad input: a standing nuisance, not an incident. */
  badInputTenants: { model: string; tenant: string; rate: number }[];
  /** Kinds the planner could not place (no free model and time in a short run). */
  droppedIncidents: IncidentKind[];
}

export interface FleetRun {
  description: FleetDescription;
  /** Ground truth of the scored range; [] for a clean run. */
  truth: TruthIncident[];
  /** The incidents a run with this seed holds (also on a clean run, whose effects are off). */
  plannedTruth: TruthIncident[];
  /** Batches in time order; each call replays the run from the start (bounded memory). */
  batches(): Generator<FleetBatch>;
  /** The fleet (for tests and tools that need more than the description). */
  fleet: Fleet;
  scoredStartMs: number;
  historyStartMs: number;
  endMs: number;
}

const HOUR = 3_600_000;

/** Builds a run: the fleet, the incident plan and the ground truth; data comes from `batches()`. */
export function generateFleet(options: FleetOptions): FleetRun {
  const seed = options.seed >>> 0;
  if (!(options.hours > 0)) throw new Error(`hours must be > 0, got ${options.hours}`);
  const historyHours = options.historyHours ?? 2;
  if (!(historyHours >= 0)) throw new Error(`historyHours must be ≥ 0, got ${historyHours}`);
  const scale = options.scale ?? 1;
  if (!(scale > 0)) throw new Error(`scale must be > 0, got ${scale}`);
  const scoredStartMs = Math.round(options.startMs ?? DEFAULT_START_MS);
  const historyStartMs = scoredStartMs - Math.round(historyHours * HOUR);
  const endMs = scoredStartMs + Math.round(options.hours * HOUR);
  const shape = { ...DEFAULT_SHAPE, ...options.shape };
  const fleet = buildFleet(seed, scale, shape);
  const plan = planIncidents({ fleet, seed, scoredStartMs, endMs, kinds: options.incidents ?? INCIDENT_KINDS });
  const active: Incident[] = options.clean ? [] : plan.incidents;
  const batchRows = options.batchRows ?? 100_000;

  const description: FleetDescription = {
    seed,
    scale,
    clean: options.clean === true,
    historyStart: new Date(historyStartMs).toISOString(),
    scoredStart: new Date(scoredStartMs).toISOString(),
    end: new Date(endMs).toISOString(),
    targetRequestsPerS: BASE_RATE_PER_S * scale,
    models: fleet.models.map((m) => ({
      name: m.name,
      type: m.type,
      share: round(m.share, 5),
      baseErrorRate: round(m.baseErrorRate, 5),
      pool: m.pool.name,
      timeoutMs: m.timeoutMs,
      labels: m.labels,
      tenants: m.tenants.map((t) => fleet.tenants[t.tenant]!.name),
      versions: m.versions.map((v, vi) => ({
        name: v.name,
        role: v.role,
        route: v.route,
        canaryShare: round(v.canaryShare, 4),
        latencyFactor: round(v.latencyFactor, 3),
        replicas: v.replicas.map((ri) => fleet.replicas[ri]!.name),
        pinnedTenants: m.tenants.filter((t) => t.pinnedVersion === vi).map((t) => fleet.tenants[t.tenant]!.name),
      })),
    })),
    tenants: fleet.tenants.map((t) => ({ name: t.name, tier: t.tier })),
    entries: fleet.entries.map((e) => ({ name: e.name, ingressMs: round(e.ingressMs, 2) })),
    nodes: fleet.nodes.map((n) => ({ name: n.name, pool: n.pool.name, gpus: n.replicas.length })),
    replicas: fleet.replicas.map((r) => ({
      name: r.name,
      model: fleet.models[r.model]!.name,
      version: fleet.models[r.model]!.versions[r.version]!.name,
      node: r.node,
      gpu: r.gpu,
      pool: r.pool.name,
    })),
    badInputTenants: fleet.models.flatMap((m) =>
      m.tenants.filter((t) => t.badInputRate > 0).map((t) => ({ model: m.name, tenant: fleet.tenants[t.tenant]!.name, rate: round(t.badInputRate, 4) })),
    ),
    droppedIncidents: plan.dropped,
  };

  const plannedTruth = plan.incidents.map((i) => i.truth);
  return {
    description,
    truth: options.clean ? [] : plannedTruth,
    plannedTruth,
    fleet,
    scoredStartMs,
    historyStartMs,
    endMs,
    batches: () => simulate({ fleet, seed, incidents: active, historyStartMs, endMs, batchRows }),
  };
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

export interface WriteResult {
  events: number;
  resources: number;
}

/**
 * Writes a run through the Store seam: each batch's events in one `appendEvents` (with its ts
 * bounds as the duplicate-check hint) and its resources in one `appendResources`. The next batch
 * is generated while the store writes the previous one.
 */
export async function writeFleet(run: FleetRun, store: Store): Promise<WriteResult> {
  let events = 0;
  let resources = 0;
  let pending: Promise<unknown> = Promise.resolve();
  for (const b of run.batches()) {
    await pending;
    events += b.events.length;
    resources += b.resources.length;
    const ev = b.events.length > 0 ? store.appendEvents(b.events, { minTsMs: b.minTsMs, maxTsMs: b.maxTsMs }) : Promise.resolve();
    const rs = b.resources.length > 0 ? store.appendResources(b.resources) : Promise.resolve();
    pending = Promise.all([ev, rs]);
    // Let the store stage the batch and start its native insert before generating the next one.
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  await pending;
  return { events, resources };
}
