/**
 * The incident catalogue: fourteen kinds, each placed by the seed on a random eligible slice at a
 * random time inside the scored range, lasting 10–40 minutes, with a magnitude drawn from a range
 * a user would want to hear about. Planning draws only from the `incidentPlan` stream, so the
 * traffic of a run and of its clean twin are the same numbers.
 *
 * Concurrent incidents never share a model (and keep 5 minutes apart on one model, so a queue
 * that drains after one is not read as the next).
 */
import type { ErrorType } from '../../src/schema/index.ts';
import type { Fleet, Model } from './fleet.ts';
import { expectedSliceRate, expectedVersionRates, hourOfDay, typicalTotalMs } from './fleet.ts';
import type { Random } from './random.ts';
import { STREAM, int, pick, shuffle, stream, uniform } from './random.ts';

export const INCIDENT_KINDS = [
  'latency_tail',
  'error_slice',
  'timeout_slice',
  'slow_replica',
  'saturation',
  'gpu_memory_creep',
  'replica_restarts',
  'output_shift',
  'empty_results',
  'refusal_format',
  'golden_failures',
  'canary_regression',
  'stage_regression',
  'confidence_drop',
] as const;
export type IncidentKind = (typeof INCIDENT_KINDS)[number];

/** Slice keys a truth record may use: only those that define the incident. */
export type SliceKey = 'model' | 'model_version' | 'tenant' | 'entry' | 'replica' | 'node' | 'gpu';

/** One incident's ground truth, as written to truth.json. */
export interface TruthIncident {
  id: string;
  kind: IncidentKind;
  slice: Partial<Record<SliceKey, string>>;
  /** ISO 8601 UTC. */
  start: string;
  end: string;
  /** The drawn magnitude, for reading the truth (not needed to score it). */
  detail: Record<string, string | number>;
}

export type StageName = 'ingress_ms' | 'queue_ms' | 'batch_ms' | 'post_ms';

/** An incident as the simulator applies it. Indices refer to the fleet. */
export interface Incident {
  id: string;
  kind: IncidentKind;
  model: number;
  startMs: number;
  endMs: number;
  /** Version index the incident is on, or -1 (all versions of the model). */
  version: number;
  /** Tenant index (fleet.tenants), or -1. */
  tenant: number;
  /** Entry index, or -1. */
  entry: number;
  /** Replica index (fleet.replicas), or -1. */
  replica: number;
  /** Share of the slice's requests affected (tail, errors, timeouts, label shift, empties). */
  share: number;
  /** Multiplier: latency factor, arrival factor, output-length factor. */
  factor: number;
  /** Absolute change: extra milliseconds, logit drop, score shift (in model sds). */
  delta: number;
  errorType: ErrorType;
  stage: StageName;
  /** Variant within a kind (refusal_format: refusals | format | both; canary: errors | latency | both; output_shift target class). */
  variant: string;
  /** Replica crash times (replica_restarts; the creep's closing restart). */
  crashesMs: number[];
  /** Seconds a crashed replica stays down. */
  gapS: number;
  truth: TruthIncident;
}

export interface PlanOptions {
  fleet: Fleet;
  seed: number;
  scoredStartMs: number;
  endMs: number;
  kinds: readonly IncidentKind[];
}

export interface Plan {
  incidents: Incident[];
  /** Kinds that found no free model and time (a short run with many incidents). */
  dropped: IncidentKind[];
}

const MIN = 60_000;
const GAP_ON_MODEL_MS = 5 * MIN;
/**
 * A request slice is eligible when it expects at least 4 requests per 5 minutes at the incident's
 * start: small tenants (~6 per 5 minutes) are in, slices nobody could see anything in are out.
 */
export const MIN_SLICE_RATE_PER_S = 4 / 300;
const MIN_AFFECTED = 8;
const ERROR_TYPES_FOR_SLICE: ErrorType[] = ['internal', 'dependency_timeout', 'model_load', 'resource_exhausted', 'replica_fault'];

/** Versions of a model with their routing weight: the stable one more often. */
function pickVersion(r: Random, m: Model): number {
  if (m.versions.length === 1 || r() < 0.55) return 0;
  return int(r, 1, m.versions.length - 1);
}

/** Eligible models of a kind. */
function eligibleModels(fleet: Fleet, kind: IncidentKind, startMs: number): number[] {
  const all = fleet.models.map((_, i) => i);
  switch (kind) {
    case 'confidence_drop':
      return all.filter((i) => fleet.models[i]!.type === 'classifier');
    case 'refusal_format':
      return all.filter((i) => fleet.models[i]!.type === 'generative');
    case 'empty_results':
      return all.filter((i) => fleet.models[i]!.type !== 'classifier');
    case 'saturation':
      // A surge must be able to push the stable version past capacity without being absurd:
      // models whose expected utilisation at that hour is at least 0.15 (surge ≤ ~12×).
      return all.filter((i) => stableUtilisation(fleet, i, startMs) >= 0.15);
    default:
      return all;
  }
}

/** Expected utilisation of a model's stable version at a time. */
export function stableUtilisation(fleet: Fleet, mi: number, tMs: number): number {
  const m = fleet.models[mi]!;
  const v = m.versions[0]!;
  const rate = expectedVersionRates(fleet, m, hourOfDay(tMs))[0]!;
  return rate / (v.capacityPerReplica * fleet.scale * v.replicas.length);
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** Draws slice and magnitude of one incident on model mi. */
function draw(
  r: Random,
  fleet: Fleet,
  kind: IncidentKind,
  mi: number,
  startMs: number,
  endMs: number,
): (Omit<Incident, 'id' | 'truth'> & { slice: TruthIncident['slice']; detail: TruthIncident['detail'] }) | null {
  const m = fleet.models[mi]!;
  const hour = hourOfDay(startMs);
  const durS = (endMs - startMs) / 1000;
  // Eligible: the slice expects ≥ 4 requests per 5 minutes, and the incident ≥ 8 affected
  // requests over its duration (a change nobody could see in the data is no ground truth).
  const big = (slice: { version?: number; tenant?: number; entry?: number }, parts = 1, share = 1) => {
    const rate = expectedSliceRate(fleet, m, hour, slice) / parts;
    return rate >= MIN_SLICE_RATE_PER_S && rate * durS * share >= MIN_AFFECTED;
  };
  const base: Omit<Incident, 'id' | 'truth'> = {
    kind,
    model: mi,
    startMs,
    endMs,
    version: -1,
    tenant: -1,
    entry: -1,
    replica: -1,
    share: 0,
    factor: 1,
    delta: 0,
    errorType: 'internal',
    stage: 'queue_ms',
    variant: '',
    crashesMs: [],
    gapS: 0,
  };
  const mv = (vi: number) => ({ model: m.name, model_version: m.versions[vi]!.name });
  const typical = typicalTotalMs(fleet, m);
  switch (kind) {
    case 'latency_tail': {
      const vi = pickVersion(r, m);
      const share = uniform(r, 0.1, 0.3);
      const factor = uniform(r, 4, 10);
      if (!big({ version: vi }, 1, share)) return null;
      // A slow request takes (factor − 1) × the model's typical total longer: "much slower".
      return {
        ...base,
        version: vi,
        share,
        factor,
        delta: (factor - 1) * typical,
        slice: mv(vi),
        detail: { slow_share: round(share), slowdown: round(factor) },
      };
    }
    case 'error_slice':
    case 'timeout_slice': {
      // Tenants are chosen uniformly (not by volume), so small tenants are as likely as large ones.
      const byTenant = r() < 0.6;
      const share = kind === 'error_slice' ? uniform(r, 0.15, 0.6) : uniform(r, 0.1, 0.45);
      const errorType = pick(r, ERROR_TYPES_FOR_SLICE);
      if (byTenant) {
        const tm = pick(r, m.tenants);
        const vi = tm.pinnedVersion >= 0 ? tm.pinnedVersion : r() < 0.8 ? 0 : 1;
        if (!big({ version: vi, tenant: tm.tenant }, 1, share)) return null;
        const slice = { ...mv(vi), tenant: fleet.tenants[tm.tenant]!.name };
        return {
          ...base,
          version: vi,
          tenant: tm.tenant,
          share,
          errorType,
          slice,
          detail: kind === 'error_slice' ? { error_rate: round(share), error_type: errorType } : { timeout_rate: round(share) },
        };
      }
      const vi = pickVersion(r, m);
      const ei = int(r, 0, fleet.entries.length - 1);
      if (!big({ version: vi, entry: ei }, 1, share)) return null;
      const slice = { ...mv(vi), entry: fleet.entries[ei]!.name };
      return {
        ...base,
        version: vi,
        entry: ei,
        share,
        errorType,
        slice,
        detail: kind === 'error_slice' ? { error_rate: round(share), error_type: errorType } : { timeout_rate: round(share) },
      };
    }
    case 'slow_replica': {
      const vi = m.versions.findIndex((v) => v.replicas.length >= 2);
      if (!big({ version: vi }, m.versions[vi]!.replicas.length)) return null;
      const ri = pick(r, m.versions[vi]!.replicas);
      const factor = uniform(r, 2.5, 5);
      return { ...base, version: vi, replica: ri, factor, slice: { model: m.name, replica: fleet.replicas[ri]!.name }, detail: { exec_factor: round(factor) } };
    }
    case 'saturation': {
      const rho = stableUtilisation(fleet, mi, startMs);
      const target = uniform(r, 1.3, 1.8);
      const factor = Math.max(1.4, target / rho);
      return { ...base, factor, slice: { model: m.name }, detail: { arrival_factor: round(factor), utilisation: round(target) } };
    }
    case 'gpu_memory_creep': {
      const ri = pick(
        r,
        m.versions.flatMap((v) => v.replicas),
      );
      const rep = fleet.replicas[ri]!;
      const target = uniform(r, 0.97, 1);
      // The creep ends with the restart that frees the memory, inside the incident's window.
      const gapS = uniform(r, 15, 30);
      const crashMs = endMs - Math.round(gapS * 1000) - 1000;
      return {
        ...base,
        replica: ri,
        share: target,
        crashesMs: [crashMs],
        gapS,
        slice: { node: rep.node, gpu: rep.gpu },
        detail: { replica: rep.name, memory_ratio_at_end: round(target) },
      };
    }
    case 'replica_restarts': {
      const vi = m.versions.findIndex((v) => v.replicas.length >= 2);
      const ri = pick(r, m.versions[vi]!.replicas);
      const crashes: number[] = [];
      for (let t = startMs + uniform(r, 0.2, 1.5) * MIN; t < endMs - 30_000; t += uniform(r, 2, 6) * MIN) crashes.push(Math.round(t));
      const gapS = uniform(r, 15, 45);
      return {
        ...base,
        version: vi,
        replica: ri,
        crashesMs: crashes,
        gapS,
        slice: { model: m.name, replica: fleet.replicas[ri]!.name },
        detail: { restarts: crashes.length, down_s: round(gapS) },
      };
    }
    case 'output_shift': {
      const vi = pickVersion(r, m);
      if (!big({ version: vi })) return null;
      if (m.type === 'classifier') {
        const target = int(r, 0, m.labels.length - 1);
        const share = uniform(r, 0.2, 0.4);
        if (!big({ version: vi }, 1, share)) return null;
        return { ...base, version: vi, share, variant: String(target), slice: mv(vi), detail: { label: m.labels[target]!, moved_share: round(share) } };
      }
      if (m.type === 'ranker') {
        const dir = r() < 0.5 ? -1 : 1;
        const delta = dir * uniform(r, 0.8, 1.5);
        const factor = uniform(r, 0.45, 0.7);
        return { ...base, version: vi, delta, factor, slice: mv(vi), detail: { score_shift_sd: round(delta), items_factor: round(factor) } };
      }
      const factor = r() < 0.5 ? uniform(r, 0.35, 0.55) : uniform(r, 1.8, 2.5);
      return { ...base, version: vi, factor, slice: mv(vi), detail: { output_tokens_factor: round(factor) } };
    }
    case 'empty_results': {
      const vi = pickVersion(r, m);
      const share = uniform(r, 0.08, 0.3);
      if (!big({ version: vi }, 1, share)) return null;
      return { ...base, version: vi, share, slice: mv(vi), detail: { empty_rate: round(share) } };
    }
    case 'refusal_format': {
      const vi = pickVersion(r, m);
      if (!big({ version: vi })) return null;
      const variant = pick(r, ['refusals', 'format', 'both']);
      const share = variant === 'format' ? uniform(r, 0.1, 0.3) : uniform(r, 0.08, 0.25);
      const delta = variant === 'both' ? uniform(r, 0.1, 0.3) : 0;
      if (!big({ version: vi }, 1, share)) return null;
      const detail: Record<string, string | number> = { variant };
      if (variant !== 'format') detail.refusal_rate = round(share);
      if (variant === 'format') detail.format_fail_rate = round(share);
      if (variant === 'both') detail.format_fail_rate = round(delta);
      return { ...base, version: vi, share, delta, variant, slice: mv(vi), detail };
    }
    case 'golden_failures': {
      const vi = pickVersion(r, m);
      const pass = uniform(r, 0.4, 0.85);
      return { ...base, version: vi, share: pass, slice: mv(vi), detail: { golden_pass_rate: round(pass) } };
    }
    case 'canary_regression': {
      const variant = pick(r, ['errors', 'latency', 'both']);
      const share = variant === 'latency' ? 0 : uniform(r, 0.03, 0.12);
      if (!big({ version: 1 }, 1, share || 1)) return null;
      const factor = variant === 'errors' ? 1 : uniform(r, 1.5, 3);
      const errorType = pick(r, ['internal', 'model_load', 'bad_input', 'resource_exhausted'] as ErrorType[]);
      const detail: Record<string, string | number> = { variant };
      if (share > 0) {
        detail.extra_error_rate = round(share);
        detail.error_type = errorType;
      }
      if (factor > 1) detail.latency_factor = round(factor);
      return { ...base, version: 1, share, factor, delta: (factor - 1) * typical, errorType, variant, slice: mv(1), detail };
    }
    case 'stage_regression': {
      const ei = int(r, 0, fleet.entries.length - 1);
      if (!big({ entry: ei })) return null;
      const stage = pick(r, ['ingress_ms', 'queue_ms', 'batch_ms', 'post_ms'] as StageName[]);
      // A visible change of the total: the stage gains 0.5–1.5 × the model's typical total.
      const delta = uniform(r, 0.5, 1.5) * typical;
      return { ...base, entry: ei, stage, delta, slice: { model: m.name, entry: fleet.entries[ei]!.name }, detail: { stage, extra_ms: round(delta) } };
    }
    case 'confidence_drop': {
      const vi = pickVersion(r, m);
      if (!big({ version: vi })) return null;
      const delta = uniform(r, 0.9, 1.8);
      return { ...base, version: vi, delta, slice: mv(vi), detail: { logit_drop: round(delta) } };
    }
  }
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/**
 * Places one incident of each listed kind (repeat a kind to place it twice): a random eligible
 * model, a duration of 10–40 minutes, a start inside the scored range, retried until no other
 * incident holds that model within 5 minutes.
 */
export function planIncidents(o: PlanOptions): Plan {
  const r = stream(o.seed, STREAM.incidentPlan);
  const span = o.endMs - o.scoredStartMs;
  const margin = Math.min(2 * MIN, span / 10);
  const busy: { model: number; from: number; to: number }[] = [];
  const incidents: Incident[] = [];
  const dropped: IncidentKind[] = [];
  for (const kind of shuffle(r, o.kinds)) {
    let placed = false;
    for (let attempt = 0; attempt < 400 && !placed; attempt++) {
      const maxDur = Math.min(40 * MIN, span - 2 * margin);
      if (maxDur < 5 * MIN) break;
      const dur = Math.round(uniform(r, Math.min(10 * MIN, maxDur), maxDur) / 1000) * 1000;
      const startMs = Math.round(uniform(r, o.scoredStartMs + margin, o.endMs - margin - dur) / 1000) * 1000;
      const endMs = startMs + dur;
      const models = eligibleModels(o.fleet, kind, startMs);
      if (models.length === 0) continue;
      const mi = pick(r, models);
      if (busy.some((b) => b.model === mi && b.from < endMs + GAP_ON_MODEL_MS && startMs < b.to + GAP_ON_MODEL_MS)) continue;
      const d = draw(r, o.fleet, kind, mi, startMs, endMs);
      if (!d) continue;
      const id = `${kind}-${String(incidents.length + 1).padStart(2, '0')}`;
      const { slice, detail, ...rest } = d;
      incidents.push({ ...rest, id, truth: { id, kind, slice, start: iso(startMs), end: iso(endMs), detail } });
      busy.push({ model: mi, from: startMs, to: endMs });
      placed = true;
    }
    if (!placed) dropped.push(kind);
  }
  incidents.sort((a, b) => a.startMs - b.startMs || a.id.localeCompare(b.id));
  return { incidents, dropped };
}
