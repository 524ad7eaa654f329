/**
 * The incidents the demo injects, where they hit, and when. A schedule is a list of incident
 * specs with offsets from the scenario's start; `fullSchedule` is the live demo's 40-minute cycle,
 * `compressedSchedule` the seconds-long one tests use, and `clean` injects nothing.
 */
/** Synchronised dumps, e.g. a batch job posting a backlog at once (the load spike's). */
export interface BurstSettings {
  size: number;
  everyMs: number;
}

export type IncidentKind = 'slow_replica' | 'tenant_errors' | 'input_drift' | 'load_spike' | 'canary_regression' | 'gpu_memory_creep';
/** In schedule order: the load spike last, so its backlog and 5× traffic do not dilute the windows of the next incident. */
export const INCIDENT_KINDS: readonly IncidentKind[] = ['slow_replica', 'tenant_errors', 'input_drift', 'canary_regression', 'gpu_memory_creep', 'load_spike'];

/** Where an incident hits: the dimensions a view or an alert should single out. */
export interface IncidentWhere {
  model?: string;
  model_version?: string;
  replica?: string;
  tenant?: string;
  tenants?: string[];
  node?: string;
  gpu?: string;
}

export interface IncidentSpec {
  /** Unique in a run, e.g. `slow_replica` or `slow_replica#2` in the second cycle. */
  id: string;
  kind: IncidentKind;
  title: string;
  where: IncidentWhere;
  /** What the views and alerts should show while it lasts. */
  expect: string;
  startOffsetMs: number;
  durationMs: number;
}

/** Who the incidents target; fixed by the demo's wiring (replica names, tenants, node). */
export interface IncidentTargets {
  model: string;
  slowReplica: string;
  /** A low-traffic tenant with part of its traffic on v2. */
  errorTenant: string;
  canaryTenants: string[];
  node: string;
  creepGpu: string;
  creepReplica: string;
}

/** Incident parameters, shared by the live actions and the backfill so both mean the same thing. */
export const INCIDENT_PARAMS = {
  slowFactor: 3,
  tenantErrorRate: 1,
  driftShare: 0.6,
  spikeRateMultiplier: 5,
  spikeBurst: { size: 120, everyMs: 1_500 },
  canaryPercent: 30,
  regression: { slowdownFactor: 2.5, flipRate: 0.15 },
  /** The creep reaches this much extra GPU memory by the incident's end. */
  creepBytesAtEnd: 40 * 1024 ** 3,
} as const;

/** Title, where and what to expect of one kind against the targets. */
export function describeIncident(kind: IncidentKind, t: IncidentTargets): Pick<IncidentSpec, 'title' | 'where' | 'expect'> {
  const p = INCIDENT_PARAMS;
  switch (kind) {
    case 'slow_replica':
      return {
        title: `replica ${t.slowReplica} becomes slow (exec ×${p.slowFactor})`,
        where: { model: t.model, replica: t.slowReplica, node: t.node },
        expect: `Runtime view: "Exec latency by replica" shows ${t.slowReplica}'s exec_ms about ${p.slowFactor}× the others', and "Which stage grew" names replica ${t.slowReplica}; the slice finder on exec_ms above twice its median (POST /v1/analysis/errors, kind slow, field exec_ms, threshold_ms) points at replica=${t.slowReplica}.`,
      };
    case 'tenant_errors':
      return {
        title: `tenant ${t.errorTenant} starts erroring on v2 only`,
        where: { model: t.model, tenant: t.errorTenant, model_version: 'v2' },
        expect: `Fleet error rate barely moves (the tenant is small); errors by tenant × version show ${t.errorTenant} on v2 at ~100 % (error_type internal, HTTP 500), v1 clean.`,
      };
    case 'input_drift':
      return {
        title: `input drift: ${Math.round(p.driftShare * 100)} % of messages come from the hard (never trained on) subset`,
        where: { model: t.model },
        expect:
          'Model-quality view: v2 confidence drops (below_rate(confidence, 0.9) from ~0 to ~35 %); v1 (naive Bayes) stays overconfident, so its drop shows as `correct` = false feedback (marketing-like ham called spam) seconds to minutes later; the spam share shifts.',
      };
    case 'load_spike':
      return {
        title: `load spike past capacity (rate ×${p.spikeRateMultiplier} plus batch dumps of ${p.spikeBurst.size})`,
        where: { model: t.model },
        expect:
          'Runtime view: QPS jumps, requests are turned away (`rejected`, the queue full: 503), and the saturation banner flags it (shed load against the minutes before).',
      };
    case 'canary_regression':
      return {
        title: `canary regression: v2 at ${p.canaryPercent} % of ${t.canaryTenants.join(' and ')}, ${p.regression.slowdownFactor}× slower exec and ${p.regression.flipRate * 100} % of labels flipped`,
        where: { model: t.model, model_version: 'v2', tenants: t.canaryTenants },
        expect:
          'Release comparison v2 vs v1: exec_ms P50/P99 up, confidently wrong answers (correct=false feedback, lower conversion); the verdict should say roll back / hold.',
      };
    case 'gpu_memory_creep':
      return {
        title: `GPU memory creep on ${t.node} gpu ${t.creepGpu} (simulated)`,
        where: { node: t.node, gpu: t.creepGpu, replica: t.creepReplica },
        expect: `Runtime view, Resources, "GPU memory used" (one line per GPU): ${t.node}/gpu${t.creepGpu} climbs by ~${Math.round(p.creepBytesAtEnd / 1024 ** 3)} GiB towards its 80 GiB while utilisation stays flat; samples are marked simulated.`,
      };
  }
}

const MINUTE_MS = 60_000;

/**
 * The live demo: six incidents over a 40-minute cycle, each followed by a quiet gap. The load spike
 * comes last: its 5× traffic would fill the 5-minute windows of whatever follows it, and the 5
 * minutes from its end to the next cycle's first incident clear them. 40 minutes, not 60, so a rule
 * comparing with an hour ago never compares an incident with itself one cycle earlier.
 */
export function fullSchedule(t: IncidentTargets): IncidentSpec[] {
  const plan: [IncidentKind, number, number][] = [
    ['slow_replica', 3, 5],
    ['tenant_errors', 9, 5],
    ['input_drift', 15, 5],
    ['canary_regression', 21, 6],
    ['gpu_memory_creep', 28, 6],
    ['load_spike', 35, 3],
  ];
  return plan.map(([kind, startMin, lengthMin]) => ({
    id: kind,
    kind,
    ...describeIncident(kind, t),
    startOffsetMs: startMin * MINUTE_MS,
    durationMs: lengthMin * MINUTE_MS,
  }));
}
export const FULL_CYCLE_MS = 40 * MINUTE_MS;

export interface CompressedTiming {
  /** Quiet time before the first incident. */
  warmupMs: number;
  durationMs: number;
  /** Quiet time between incidents. */
  gapMs: number;
}

/** The given kinds one after the other: warm-up, incident, gap, incident, … */
export function compressedSchedule(kinds: readonly IncidentKind[], t: IncidentTargets, timing: CompressedTiming): IncidentSpec[] {
  return kinds.map((kind, i) => ({
    id: kind,
    kind,
    ...describeIncident(kind, t),
    startOffsetMs: timing.warmupMs + i * (timing.durationMs + timing.gapMs),
    durationMs: timing.durationMs,
  }));
}
